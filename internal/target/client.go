package target

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// launchClient starts a client under test against wirecheck as its
// server: a listener over the target's transport, the client launched
// with the endpoint in place of its placeholder, and its first
// connection accepted within the startup bound. A client that exits, or
// never connects, did not start: a NotReady with its stderr.
func (t Target) launchClient(b Bounds) (transport.Transport, error) {
	k, _ := transport.Lookup(t.Kind())
	if k.Listen == nil {
		return nil, fmt.Errorf("%w: --transport %s has no client role", transport.ErrStart, t.Kind())
	}
	l, err := k.Listen(transport.ListenOptions{Path: t.Paths[k.Name], MaxFrame: t.MaxFrame, Binary: t.Binary})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrStart, err)
	}
	ph, ep := t.Placeholder(), l.Endpoint()
	words := []string{ph, ep}
	if p, ok := l.(transport.Provisioner); ok {
		for w, v := range p.Provisions() {
			words = append(words, w, v)
		}
	}
	expand := strings.NewReplacer(words...)
	argv := make([]string, len(t.Argv))
	for i, w := range t.Argv {
		argv[i] = expand.Replace(w)
	}
	env := make([]string, len(t.Env))
	for i, e := range t.Env {
		k, v, _ := strings.Cut(e, "=")
		env[i] = k + "=" + expand.Replace(v)
	}
	proc, err := transport.Launch(transport.Options{Command: argv, Dir: t.Cwd, Env: env})
	if err != nil {
		_ = l.Close()
		return nil, clientStartErr{t.whereLooked(argv, err)}
	}
	bound := b.Startup
	if bound <= 0 {
		bound = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	go func() {
		select {
		case <-proc.Exited():
		case <-b.Abort:
		case <-ctx.Done():
			return
		}
		cancel()
	}()
	conn, err := l.Accept(ctx)
	if err != nil {
		select {
		case <-b.Abort:
			proc.Close()
			_ = l.Close()
			return nil, ErrAborted
		default:
		}
		cause := fmt.Sprintf("the client did not connect to %s within %v (--startup-timeout)", ph, bound)
		hint := t.connectHint(ph)
		select {
		case <-proc.Exited():
			cause = fmt.Sprintf("the client exited (%s) without connecting to %s", proc.ExitStatus(), ph)
		default:
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				cause = fmt.Sprintf("accepting the client's connection: %v", err)
			}
		}
		nr := &NotReady{Cause: cause, Stderr: stderrTail(proc), Awaited: t.awaitedClient(ph), Hint: hint}
		proc.Close()
		_ = l.Close()
		return nil, nr
	}
	return transport.Serving(proc, conn, l), nil
}

// awaitedClient is what a client under test is waited for: the first
// connection to the endpoint its placeholder became.
func (t Target) awaitedClient(ph string) string {
	if t.OverHTTP() {
		return "the client's first request to " + ph + " (the URL wirecheck serves on)"
	}
	return "the client to start " + ph + " (an executable wirecheck made, in place of the server command) and connect through it"
}

// connectHint is the usual cause of a client that never reached wirecheck:
// the placeholder is in its command but not where the client takes its
// server (a flag it ignores, a config file it never reads), or the client
// waits for a user before it connects.
func (t Target) connectHint(ph string) string {
	becomes, takes := "the command of a server (wirecheck's)", "the command of its server"
	if t.OverHTTP() {
		becomes, takes = "the URL of a server (wirecheck's)", "its server's URL"
	}
	return fmt.Sprintf("%s becomes %s: put it where the client takes %s (an argument, or --env NAME=%s), "+
		"and run the client so that it connects at once, without waiting for a user (a headless or one-shot mode)", ph, becomes, takes, ph)
}

// clientStartErr is a launch error of a client under test, which the
// transport words for the server it usually launches.
type clientStartErr struct{ error }

func (e clientStartErr) Error() string {
	return strings.Replace(e.error.Error(), transport.ErrStart.Error(), "cannot start the client", 1)
}

func (e clientStartErr) Unwrap() error { return e.error }
