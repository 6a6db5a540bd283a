// Package httpmcp carries MCP over HTTP: Streamable HTTP (one POST per
// message, answers as a JSON body or an SSE stream, a GET stream for the
// server's own messages) and the legacy HTTP+SSE transport (one GET
// stream, messages POSTed to the endpoint it names). Everything a server
// sends is bounded in time and bytes; what HTTP itself gets wrong is judged
// here through Hooks, what the messages get wrong by the peer above.
package httpmcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Options configures Dial.
type Options struct {
	URL     string   // the endpoint (http) or the stream URL (sse)
	Kind    string   // "http" (Streamable HTTP) or "sse" (legacy)
	Headers []string // "Name: value", sent to the endpoint's origin only
	// Process is the launched server, nil for --url: Stderr(), Exited(),
	// ExitStatus() and Close() come from it; its stdout lines become
	// stderr-like log lines (stdout is a log over HTTP).
	Process transport.Transport
	Timeout time.Duration // one exchange's headers, a JSON body (--timeout)
	// MaxFrame caps a JSON body and an SSE event; MaxBuffered the frames
	// read and not yet received. Defaults as stdio's.
	MaxFrame, MaxBuffered int
	Pool                  *transport.Pool
}

const (
	// DefaultTimeout bounds an exchange when Options.Timeout is zero.
	DefaultTimeout = 10 * time.Second
	dialTimeout    = 2 * time.Second
	maxHeaderBytes = 64 << 10
	// maxIdle is what a stream may send without an event (comments,
	// blank lines) before it counts as a flood.
	maxIdle = 1 << 20
	// maxHops is how many same-origin 307/308 redirects one request
	// follows.
	maxHops = 3
	// closeWait is how long a request's stream may stay open after its
	// response (mcp-stream-close-wait).
	closeWait = time.Second
	// getReopens is how often a GET stream the server ended is opened
	// again, getPause apart.
	getReopens = 3
	getPause   = 100 * time.Millisecond
	// evidence is how much of a body a check's message quotes.
	evidence = 200
)

// The two kinds of HTTP transport.
const (
	KindHTTP = "http"
	KindSSE  = "sse"
)

// Dial does no network I/O; the first Send does. The result also
// implements Exchanger, transport.Hooked and
// transport.RequestCloser.
func Dial(o Options) (transport.Transport, error) {
	if o.Kind == "" {
		o.Kind = KindHTTP
	}
	if o.Kind != KindHTTP && o.Kind != KindSSE {
		return nil, fmt.Errorf("unknown HTTP transport %q (want http or sse)", o.Kind)
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", o.URL)
	}
	headers := http.Header{}
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("header %q is not \"Name: value\"", h)
		}
		headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = transport.DefaultMaxFrame
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = transport.DefaultMaxBuffered
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{
		o:           o,
		endpoint:    u,
		origin:      origin(u),
		home:        u.Hostname(),
		headers:     headers,
		q:           transport.NewQueue(o.MaxBuffered, o.Pool),
		ctx:         ctx,
		cancel:      cancel,
		eventIDs:    map[string]int{},
		serverRq:    map[string]int{},
		posted:      map[string]int{},
		pending:     map[string]bool{},
		inflight:    map[string]*exchange{},
		endpointSet: make(chan struct{}),
		stderr:      make(chan transport.Frame),
		exited:      make(chan struct{}),
		stopErr:     make(chan struct{}),
		idle:        make(chan func()),
	}
	c.ht = acquireTransport(o.Timeout, o.Process != nil)
	c.hc = &http.Client{Transport: guard{c}, CheckRedirect: c.redirect}
	if o.Process != nil {
		c.fwd.Add(1)
		go c.forward()
	}
	return c, nil
}

type client struct {
	o        Options
	origin   string
	home     string // the endpoint's host as dialled: never refused (guard)
	headers  http.Header
	ht       *http.Transport
	hc       *http.Client
	q        *transport.Queue
	ctx      context.Context
	cancel   context.CancelFunc
	work     sync.WaitGroup // exchanges and streams
	workers  sync.WaitGroup // the goroutines that run them (start)
	idle     chan func()    // a worker waiting takes its next work here
	fwd      sync.WaitGroup // the process's output forwarder
	closed   atomic.Bool
	exchange atomic.Int64

	mu       sync.Mutex
	hooks    transport.Hooks
	endpoint *url.URL
	session  string
	version  string               // MCP-Protocol-Version, once negotiated at 2025-06-18 or later
	revision string               // the negotiated protocol version, whatever it is
	initKey  string               // the id key of the initialize request
	eventIDs map[string]int       // event id → the exchange that sent it
	serverRq map[string]int       // a server request's id key → the exchange it came on
	posted   map[string]int       // the id key a POST is owed (null for a raw body) or brought → that exchange
	inflight map[string]*exchange // a request's id key → its exchange, while it runs (CloseRequest)
	// remembered is the bytes of the keys of eventIDs, serverRq and posted.
	remembered int
	get        getState
	// params are the x-mcp-header annotations of each tool a tools/list
	// answer listed with valid ones (2026-07-28), by tool name.
	params map[string][]mcpheader.Param

	// legacy transport
	legacyOnce   sync.Once
	post         *url.URL
	endpointSet  chan struct{} // closed once post is known, or never will be
	endpointOnce sync.Once
	endedWhy     string // the legacy session ended: why
	endedOverCap bool   // … at an event over --max-frame
	legacyCancel context.CancelFunc
	pending      map[string]bool

	stderr  chan transport.Frame
	exited  chan struct{}
	stopErr chan struct{}
	once    sync.Once
	err     error
}

type getState struct {
	started bool
	cancel  context.CancelFunc
}

func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

func (c *client) Kind() string { return c.o.Kind }

// WholeMessages makes the client a transport.Messenger: each write is a
// POST body of its own.
func (c *client) WholeMessages() bool { return true }

var _ transport.Messenger = (*client)(nil)

func (c *client) Credentialed() bool { return c.headers.Get("Authorization") != "" }

func (c *client) Launched() bool { return c.o.Process != nil }

// PID is the launched server's process id (transport.Launcher), 0 for
// --url.
func (c *client) PID() int {
	if l, ok := c.o.Process.(transport.Launcher); ok {
		return l.PID()
	}
	return 0
}

var _ transport.Launcher = (*client)(nil)

func (c *client) Session() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

func (c *client) Endpoint() *url.URL {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := *c.endpoint
	return &u
}

func (c *client) SetHooks(h transport.Hooks) {
	c.mu.Lock()
	c.hooks = h
	c.mu.Unlock()
}

func (c *client) check(name string, v verdict.Verdict, msg, expected, actual string) {
	c.mu.Lock()
	f := c.hooks.Check
	c.mu.Unlock()
	if f != nil {
		f(name, v, msg, expected, actual)
	}
}

func (c *client) note(text string) {
	c.mu.Lock()
	f := c.hooks.Note
	c.mu.Unlock()
	if f != nil {
		f(text)
	}
}

func (c *client) pass(name, msg string) { c.check(name, verdict.Pass, msg, "", "") }

func (c *client) fail(name, msg, expected, actual string) {
	c.check(name, verdict.Fail, msg, expected, actual)
}

// ErrClosed is what Send returns once Close was called.
var ErrClosed = errors.New("HTTP transport closed")

func (c *client) Recv() <-chan transport.Frame { return c.q.Out() }

func (c *client) Overflowed() bool { return c.q.Overflowed() }

func (c *client) Stderr() <-chan transport.Frame { return c.stderr }

func (c *client) Exited() <-chan struct{} {
	if c.o.Process != nil {
		return c.o.Process.Exited()
	}
	return c.exited
}

func (c *client) ExitStatus() transport.ExitStatus {
	if c.o.Process != nil {
		return c.o.Process.ExitStatus()
	}
	return transport.ExitStatus{}
}

// forward folds the process's stdout into its stderr: over HTTP, stdout
// is only a log.
func (c *client) forward() {
	defer c.fwd.Done()
	defer close(c.stderr)
	out, errs := c.o.Process.Recv(), c.o.Process.Stderr()
	for out != nil || errs != nil {
		var f transport.Frame
		var ok bool
		select {
		case f, ok = <-out:
			if !ok {
				out = nil
				continue
			}
		case f, ok = <-errs:
			if !ok {
				errs = nil
				continue
			}
		case <-c.stopErr:
			return
		}
		select {
		case c.stderr <- f:
		case <-c.stopErr:
			return
		}
	}
}

// Close cancels every exchange, then ends the process. Nothing of the
// transport runs once it returns.
func (c *client) Close() error {
	c.once.Do(func() {
		// Under mu, so no worker starts after Wait has begun.
		c.mu.Lock()
		c.closed.Store(true)
		c.mu.Unlock()
		c.cancel()
		c.work.Wait()
		c.workers.Wait()
		releaseTransport(c.ht)
		c.q.Close()
		if c.o.Process != nil {
			c.err = c.o.Process.Close()
			close(c.stopErr)
			c.fwd.Wait()
		} else {
			close(c.stderr)
			close(c.exited)
		}
	})
	return c.err
}

// redirect follows at most maxHops same-origin 307/308 hops, which keep
// the method and body; any other redirect is the answer itself, and one
// to another origin is never followed (the user's credentials stay home).
func (c *client) redirect(req *http.Request, via []*http.Request) error {
	if req.Response != nil {
		c.note(fmt.Sprintf("HTTP %d redirect to %s", req.Response.StatusCode, req.URL.Redacted()))
		if st := req.Response.StatusCode; st != http.StatusTemporaryRedirect && st != http.StatusPermanentRedirect {
			return http.ErrUseLastResponse
		}
	}
	if origin(req.URL) != origin(via[0].URL) {
		return &endError{why: "redirected to another origin (" + req.URL.Redacted() + "), not followed"}
	}
	if len(via) > maxHops {
		return &endError{why: fmt.Sprintf("redirect loop: more than %d hops, the last to %s", maxHops, req.URL.Redacted())}
	}
	return nil
}

// endError is an exchange's end with a reason of its own.
type endError struct{ why string }

func (e *endError) Error() string { return e.why }
