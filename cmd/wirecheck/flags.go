package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wirecheck/wirecheck/internal/buildinfo"
	"github.com/wirecheck/wirecheck/internal/interrupt"
	"github.com/wirecheck/wirecheck/internal/progress"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/shard"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// revisionFlags pick the revision of a protocol that has them (--revision,
// --mcp-version its alias, or --param with the protocol's key), and hold
// the --param settings.
type revisionFlags struct {
	revision string
	params   []string
}

func (r *revisionFlags) add(fl *pflag.FlagSet, paramHelp string) {
	fl.StringVar(&r.revision, "revision", "", "revision of the protocol to request and judge by (protocols that have them, e.g. mcp); its default otherwise; run takes all: every revision side by side, a verdict column each")
	fl.StringVar(&r.revision, "mcp-version", "", "alias of --revision")
	fl.StringArrayVar(&r.params, "param", nil, paramHelp)
}

// common are the flags of the commands that talk to a server (run,
// replay, fuzz): how to reach it, and how to judge and report the run.
type common struct {
	revisionFlags
	protocol, url, transport, cwd, level string
	// role is run's --role: server (the default) or client.
	role                         string
	headers, env, reports        []string
	timeout, startupTimeout      time.Duration
	maxFrame                     sizeFlag
	noColor, verbose, noProgress bool
	shard                        shard.Shard
}

func (c *common) add(cmd *cobra.Command, level, paramHelp string) {
	f := cmd.Flags()
	f.StringVar(&c.protocol, "protocol", "", "protocol to check (see 'wirecheck protocols')")
	f.StringVar(&c.url, "url", "", "check a running server at this http(s) URL instead of launching one; with a command and --transport http|sse, where the launched server listens ({port} is the port wirecheck picks)")
	f.StringVar(&c.transport, "transport", "", "transport to the server: stdio, http (Streamable HTTP) or sse (legacy HTTP+SSE); default stdio, http with --url")
	f.StringArrayVar(&c.headers, "header", nil, "HTTP header 'Name: value' sent to the server (repeatable; HTTP transports only; ${VAR} in the value is read from the environment and stays ${VAR} in rerun lines)")
	f.StringArrayVar(&c.env, "env", nil, "KEY=VALUE added to the server's environment (repeatable)")
	f.StringVar(&c.cwd, "cwd", "", "working directory of the server")
	f.DurationVar(&c.timeout, "timeout", runner.DefaultTimeout, "how long to wait for each response")
	f.DurationVar(&c.startupTimeout, "startup-timeout", runner.DefaultStartupTimeout, "how long to wait for the server to become ready")
	c.maxFrame = sizeFlag(transport.DefaultMaxFrame)
	f.Var(&c.maxFrame, "max-frame", "largest frame the server may send that wirecheck reads and judges (a stdout line, an HTTP body, an SSE event): bytes, or with a unit (64MiB, 16MB); a bigger frame is reported as this limit, not as the server's fault")
	f.StringArrayVar(&c.reports, "report", nil, "write a report: FORMAT=PATH, format one of "+strings.Join(report.Formats(), ", ")+" (repeatable; PATH - is stdout; github alone: annotations on stdout, the Markdown summary appended to $GITHUB_STEP_SUMMARY)")
	f.StringVar(&c.level, "level", level, "lowest rule level whose failure fails the run: must, should or may; "+report.LevelRule)
	f.BoolVar(&c.noColor, "no-color", false, "no colour in the console output, even on a terminal")
	f.BoolVar(&c.noProgress, "no-progress", false, "no live progress line on the terminal (there is none when stdout or stderr is not a terminal)")
	c.revisionFlags.add(f, paramHelp)
}

// setup is what run, replay and fuzz start from: the protocol's bundle,
// the protocol resolved for the revision asked, the settings, the one
// Target every launch of the run uses, and all, run's --revision all.
type setup struct {
	b      *protocols.Bundle
	proto  *spec.Protocol
	params map[string]string
	t      target.Target
	all    []string
}

// prepare checks the flags against the server command after "--"; only
// names a command that takes no setting but the revision.
func (c *common) prepare(argv []string, only string) (*setup, error) {
	b, err := protocols.PickRole(c.protocol, c.role)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	reach := protocols.Reach{URL: c.url, Transport: c.transport, Headers: c.headers}
	t := target.Target{Argv: argv, Env: c.env, Cwd: c.cwd, Transport: reach.Default(b), URL: c.url, Headers: c.headers, Paths: b.Protocol.Endpoints, MaxFrame: int(c.maxFrame)}
	if c.role == protocols.RoleClient {
		t.Client = true
		if t.Binary, err = os.Executable(); err != nil {
			return nil, usageErr("--role client: cannot find wirecheck's own executable to connect back with: %v", err)
		}
		if err := t.Check(); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	if _, _, err := c.judging(); err != nil {
		return nil, err
	} else if err := reach.Check(b); err != nil {
		return nil, usageErr("%v", err)
	} else if len(argv) == 0 && c.url == "" {
		return nil, usageErr("no server command: give it after '--', e.g. wirecheck run --protocol %s -- ./my-server", c.protocol)
	} else if err := t.Check(); err != nil {
		return nil, usageErr("%v", err)
	} else if c.timeout <= 0 || c.startupTimeout <= 0 {
		return nil, usageErr("--timeout and --startup-timeout must be positive")
	}
	// Afterwards revision is the one asked, however named, and params the
	// settings other than it, as rerun lines carry them.
	st, err := b.Settings(c.revision, c.params, only)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	c.revision, c.params = st.Revision, st.Rest
	// From here on the transport is named, whether given or found (a URL
	// alone): what judges the run reads it, rerun lines repeat it.
	t = t.Detect(c.timeout, st.Protocol.Version)
	return &setup{b, st.Protocol, st.Params, t, st.All}, nil
}

// live is the progress line to draw on stderr (nil where none is
// wanted) and what clears it.
func (c *common) live(cmd *cobra.Command) (runner.Progress, func()) {
	if !progress.On(cmd.OutOrStdout(), cmd.ErrOrStderr(), c.reports, c.noProgress) {
		return nil, func() {}
	}
	p := progress.NewRun(cmd.ErrOrStderr())
	return p, p.Stop
}

// judging parses how the run is judged and where it is reported.
func (c *common) judging() (verdict.Level, []report.Output, error) {
	level, outs, err := report.ParseJudging(c.level, c.reports)
	if err != nil {
		return "", nil, usageErr("%v", err)
	}
	return level, outs, nil
}

// rerun is what the line that reruns this command's server with its
// settings says besides the target; level is "" where it does not travel.
func (c *common) rerun(command string, head []string, level string) target.Rerun {
	return runner.Rerun(target.Rerun{Command: command, Head: head, Protocol: c.protocol, Revision: c.revision,
		Params: c.params, Timeout: c.timeout, Startup: c.startupTimeout, Level: level})
}

// sizeFlag is a flag holding a size in bytes (transport.ParseSize).
type sizeFlag int

func (s *sizeFlag) String() string { return transport.SizeString(int(*s)) }
func (s *sizeFlag) Type() string   { return "size" }

func (s *sizeFlag) Set(v string) error {
	n, err := transport.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// interruptible is the context of a run Ctrl-C or SIGTERM ends early,
// and the watch that says which signal did; a second signal exits at
// once, its servers killed.
func interruptible(stderr io.Writer) (context.Context, *interrupt.Watch) {
	return interrupt.Notify(context.Background(), func(code int) {
		transport.KillAll()
		fmt.Fprintf(stderr, "\nwirecheck: a second signal: exiting at once (exit %d), no report written\n", code)
		os.Exit(code)
	})
}

// finish writes a run's reports and makes its exit code: one block saying
// why for a run that never began (exit 3), not a table nobody judged;
// began prints more after a run that did, which exits as Report.Exit says.
//
// A run a signal interrupted (w) is marked so in every report and exits
// with the signal's code (130, 143), never as a verdict.
func (c *common) finish(cmd *cobra.Command, rep *report.Report, runErr error, s *setup, w *interrupt.Watch, began func()) error {
	level, outs, _ := c.judging()
	rep.Version, rep.Level = buildinfo.Read(version).Version, level
	var nr *report.NotReady
	if sig, at := w.Signal(); sig != "" {
		rep.Interrupt(sig, at.Sub(rep.Started))
	} else {
		nr = session.NotReady(runErr, rep, s.proto, s.t.String(), c.startupTimeout, exitNoTarget)
	}
	if nr != nil {
		rep.NotStarted = nr.Record()
	}
	sink := report.Sink{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Outputs: outs, NoColor: c.noColor, Verbose: c.verbose}
	if err := sink.Write(rep, nr); err != nil {
		return err
	} else if nr != nil {
		return &exitError{code: exitNoTarget, err: errors.New("")}
	} else if began != nil {
		began()
	}
	if code, err := rep.Exit(level, runErr); code != exitOK {
		return &exitError{code: code, err: err}
	}
	return nil
}
