package target

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Bounds bound one launch.
type Bounds struct {
	// Timeout bounds one HTTP exchange (--timeout).
	Timeout time.Duration
	// Startup bounds the wait for a launched HTTP server's port to answer
	// (--startup-timeout).
	Startup time.Duration
	// Abort, when closed, ends that wait at once (and the process).
	Abort <-chan struct{}
}

// ErrAborted ends a launch that Bounds.Abort cut short.
var ErrAborted = errors.New("the launch was aborted")

// NotReady is the error of a launched HTTP server whose port never
// answered: the process started, so the user needs what it wrote.
type NotReady struct {
	Cause string
	// Stderr holds the last lines the process wrote on stderr.
	Stderr []string
	// Awaited, when set, is what the wait was for (a client under test's
	// connection) where it is not a launched server's port; Hint what to
	// check when the evidence points at a usual cause.
	Awaited, Hint string
}

func (e *NotReady) Error() string { return e.Cause }

// Launch starts a fresh server process and returns its transport: stdio
// as the process's pipes; a URL alone is dialled; a command over HTTP is
// launched on a free port (see Port) and dialled once the server answers
// there (awaitReady). No protocol request is made before the first Send:
// each may cost the server a session.
func (t Target) Launch(b Bounds) (transport.Transport, error) {
	if t.Client {
		return t.launchClient(b)
	}
	if t.Serve != nil {
		return transport.InProcess(t.Serve, transport.Options{MaxFrame: t.MaxFrame})
	}
	if !t.OverHTTP() {
		tr, err := transport.Launch(transport.Options{Command: t.Argv, Dir: t.Cwd, Env: t.Env, MaxFrame: t.MaxFrame})
		return tr, t.whereLooked(t.Argv, err)
	}
	o := dialOptions{Kind: t.Kind(), Headers: expandHeaders(t.Headers), Timeout: b.Timeout, MaxFrame: t.MaxFrame}
	if len(t.Argv) == 0 {
		o.URL = t.URL
		return dial(o)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%w: no free port on 127.0.0.1: %w", transport.ErrStart, err)
	}
	argv, env, raw := t.withPort(port)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: --url %q: %w", transport.ErrStart, raw, err)
	}
	proc, err := transport.Launch(transport.Options{Command: argv, Dir: t.Cwd, Env: env})
	if err != nil {
		return nil, t.whereLooked(argv, err)
	}
	if err := awaitReady(proc, hostPort(u), tlsName(u), b); err != nil {
		var nr *NotReady
		if errors.As(err, &nr) {
			nr.Stderr = stderrTail(proc)
		}
		proc.Close()
		return nil, err
	}
	o.URL, o.Process = raw, proc
	tr, err := dial(o)
	if err != nil {
		proc.Close()
		return nil, err
	}
	return tr, nil
}

// withPort is the command, environment and URL with port in place of
// every {port}; the URL defaults to the transport's usual path on
// 127.0.0.1.
func (t Target) withPort(port int) (argv, env []string, u string) {
	p := strconv.Itoa(port)
	argv = make([]string, len(t.Argv))
	for i, w := range t.Argv {
		argv[i] = strings.ReplaceAll(w, Port, p)
	}
	env = make([]string, len(t.Env))
	for i, e := range t.Env {
		k, v, _ := strings.Cut(e, "=")
		env[i] = k + "=" + strings.ReplaceAll(v, Port, p)
	}
	u = t.URL
	if u == "" {
		path := t.Paths[t.Kind()]
		if path == "" {
			k, _ := transport.Lookup(t.Kind())
			path = k.Path
		}
		u = "http://127.0.0.1:" + Port + path
	}
	return argv, env, strings.ReplaceAll(u, Port, p)
}

// freePort asks the kernel for a port no one listens on. Another process
// may take it before the server does; the server then fails to start and
// says so on stderr, which the error shows.
func freePort() (int, error) {
	// The kernel may hand a port just closed here to the next caller:
	// two lanes launching at once (or two runs of one process) would get
	// the same port, the second server fail to bind, and its readiness
	// poll reach the first's. A port handed out stays this process's for
	// a while.
	// Ports below the kernel's ephemeral range (Linux 32768–60999, macOS
	// 49152–65535) come first: a client socket of any process can take an
	// ephemeral port as its own end between the pick and the server's
	// bind; none takes one of these.
	handedMu.Lock()
	defer handedMu.Unlock()
	for try := range 128 {
		addr := "127.0.0.1:0"
		if try < 64 {
			addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(lowPorts+rand.IntN(lowSpan)))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if at, ok := handed[port]; ok && time.Since(at) < handedFor {
			continue
		}
		handed[port] = time.Now()
		return port, nil
	}
	return 0, errors.New("no free port that this process has not handed out lately")
}

// lowPorts and lowSpan are the ports freePort tries first: registered
// ports below every common ephemeral range.
const (
	lowPorts = 20000
	lowSpan  = 12000
)

// handed are the ports freePort handed out, and when.
var (
	handedMu sync.Mutex
	handed   = map[int]time.Time{}
)

// handedFor is how long a handed port is not handed again.
const handedFor = 10 * time.Minute

// hostPort is where u's server listens.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// stderrTail reads what the process has written on stderr so far (all
// of it once it has exited), for the error that says why it never
// answered: the last tailLines lines. It waits at most a moment for lines
// still on their way.
func stderrTail(proc transport.Transport) []string {
	ch := proc.Stderr()
	if ch == nil {
		return nil
	}
	var lines []string
	idle := time.NewTimer(200 * time.Millisecond)
	defer idle.Stop()
	for {
		select {
		case f, ok := <-ch:
			if !ok {
				return lines
			}
			line, _ := transcript.Text(f.Raw)
			lines = append(lines, line)
			if len(lines) > tailLines {
				lines = lines[1:]
			}
		case <-idle.C:
			return lines
		}
	}
}

// tailLines is how much of the stderr of a server that never answered
// the error keeps, as a report shows of one that never started.
const tailLines = 10

// whereLooked says where a command given as a relative path was looked
// for when it was not found under --cwd: the path is taken inside --cwd,
// not in the directory wirecheck was started from, and the bare "no such
// file or directory" hides that.
func (t Target) whereLooked(argv []string, err error) error {
	if err == nil || t.Cwd == "" || len(argv) == 0 {
		return err
	}
	name := argv[0]
	if filepath.IsAbs(name) || !strings.ContainsRune(name, filepath.Separator) || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir, aerr := filepath.Abs(t.Cwd)
	if aerr != nil {
		dir = t.Cwd
	}
	also := ""
	if here, herr := filepath.Abs(name); herr == nil {
		if _, serr := os.Stat(here); serr == nil {
			also = "; to run the one beside wirecheck, give " + here
		}
	}
	return fmt.Errorf("%w: looked for %s, since a relative command is taken inside --cwd %s; give its path from there, or an absolute one%s",
		err, filepath.Join(dir, name), t.Cwd, also)
}
