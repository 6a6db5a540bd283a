package httpserve

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Session is one client session: a transport.Conn. Over Streamable HTTP
// it begins with an initialize POST (or, sessionless, the first POST);
// over the legacy transport with the GET of its event stream.
type Session struct {
	srv *Server
	// id is the Mcp-Session-Id, "" when sessionless; a session wirecheck
	// retired (EndAfter) gets a new one, hence atomic.
	id atomic.Value

	recv chan transport.Frame
	done chan struct{}

	mu      sync.Mutex
	cond    *sync.Cond
	set     Settings
	hooks   *transport.Hooks
	q       []transport.Frame
	qbytes  int
	qclosed bool
	// overflowed is set once a frame was dropped at maxQueued.
	overflowed bool
	nexch      int
	revision   string
	// initialized is set once the initialize response went out: the
	// requests after it owe the session id and the version header.
	initialized bool
	// open are the POSTed requests not yet answered, by the peer's key of
	// their id.
	open    map[string]*exchange
	streams map[string]*stream
	nstream int
	// waiting are server messages sent while no stream could carry them.
	waiting [][]byte
	ended   bool
	// legacyStream is the legacy transport's one event stream.
	legacyStream *stream
	// dropped and endedAfter are set once DropCall and EndAfter did.
	dropped, endedAfter bool
	// owed are wirecheck's requests the client has not answered; EndAfter
	// waits for them (retireDue), so no answer of the client's is lost to
	// a session ended under it.
	owed      map[string]bool
	retireDue bool
	// retired is set while the session's id is ended by wirecheck and
	// the client's new session has not begun: it owes no DELETE.
	retired bool
	// reported are the checks this session has reported.
	reported map[string]bool
	// tools are those of the tools/list results wirecheck sent, by name.
	tools map[string]listedTool
}

func newSession(srv *Server, set Settings) *Session {
	c := &Session{srv: srv, set: set, recv: make(chan transport.Frame), done: make(chan struct{}),
		open: map[string]*exchange{}, streams: map[string]*stream{}, owed: map[string]bool{}, reported: map[string]bool{}}
	c.cond = sync.NewCond(&c.mu)
	go c.pump()
	return c
}

func sessionID(n int) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "-" + strconv.Itoa(n)
}

// ID is the session's Mcp-Session-Id, "" when sessionless.
func (c *Session) ID() string {
	id, _ := c.id.Load().(string)
	return id
}

func (c *Session) setID(id string) { c.id.Store(id) }

// Set changes this session's settings from its next exchange on.
func (c *Session) Set(set Settings) {
	c.mu.Lock()
	c.set = set
	c.mu.Unlock()
}

// Settings are the session's.
func (c *Session) Settings() Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set
}

// Revision is the revision the session runs: the one its initialize
// response named, or from 2026-07-28 the last request's _meta.
func (c *Session) Revision() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revision
}

// SetHooks routes this session's observations (transport.Hooked); the
// listener's hooks serve until then.
func (c *Session) SetHooks(h transport.Hooks) {
	c.mu.Lock()
	c.hooks = &h
	c.mu.Unlock()
	c.srv.mu.Lock()
	c.srv.hooked = c
	c.srv.mu.Unlock()
}

func (c *Session) check(name string, v verdict.Verdict, msg, expected, actual string) {
	c.mu.Lock()
	h := c.hooksLocked()
	c.reported[name] = true
	c.mu.Unlock()
	if h.Check != nil {
		h.Check(name, v, msg, expected, actual)
	}
}

func (c *Session) note(text string) {
	c.mu.Lock()
	h := c.hooksLocked()
	c.mu.Unlock()
	if h.Note != nil {
		h.Note(text)
	}
}

// hooksLocked are the hooks c reports to: its own once SetHooks gave
// them, else the listener's; c.mu held.
func (c *Session) hooksLocked() transport.Hooks {
	if c.hooks != nil {
		return *c.hooks
	}
	return c.srv.hooks
}

// Recv delivers the client's messages, one HTTP body each.
func (c *Session) Recv() <-chan transport.Frame { return c.recv }

// Done is closed when the session is over: DELETE, Close, the legacy
// stream gone, or the listener closed.
func (c *Session) Done() <-chan struct{} { return c.done }

// Reported says whether the session has reported check: a scenario
// skips the rule it declared when its check never came up.
func (c *Session) Reported(check string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reported[check]
}

// Finish judges, once the client has exited, what it owed the session at
// the end (transport.Finisher): a DELETE, unless the server refuses them,
// and the resumption of every stream wirecheck broke.
func (c *Session) Finish() {
	c.srv.settle(500 * time.Millisecond)
	c.mu.Lock()
	over, noDelete, retired := c.ended, c.set.NoDelete, c.retired
	c.mu.Unlock()
	if over || c.srv.legacy {
		return
	}
	c.judgeUnresumed()
	if c.ID() != "" && !noDelete && !retired {
		c.check(CheckDelete, verdict.Fail, "the client exited without ending its session with DELETE", "DELETE with Mcp-Session-Id: "+c.ID(), "no DELETE before the client exited")
	}
}

// Close ends the session: later requests with its id get 404, its open
// streams end. A stream wirecheck broke that the client has not resumed
// by then never was (CheckResumes).
func (c *Session) Close() error {
	if !c.srv.legacy {
		c.judgeUnresumed()
	}
	c.end(true)
	return nil
}

// end ends the session once; forget is set when its id must answer 404
// from now on.
func (c *Session) end(forget bool) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	for _, st := range c.streams {
		st.detach()
	}
	if c.legacyStream != nil {
		c.legacyStream.detach()
	}
	for _, x := range c.open {
		x.finish()
	}
	c.qclosed = true
	c.cond.Broadcast()
	c.mu.Unlock()
	if forget {
		c.srv.forget(c)
	} else {
		c.srv.mu.Lock()
		if c.srv.sessions[c.ID()] == c {
			delete(c.srv.sessions, c.ID())
		}
		c.srv.mu.Unlock()
	}
	close(c.done)
}

// deliver queues a frame for Recv: a handler never waits on a consumer.
func (c *Session) deliver(f transport.Frame) {
	c.mu.Lock()
	switch {
	case c.qclosed:
	case c.qbytes+len(f.Raw) > maxQueued && len(c.q) > 0:
		// A client that floods faster than the peer judges: what is
		// past the cap is dropped, as a stdio transport drops it.
		c.overflowed = true
	default:
		c.q = append(c.q, f)
		c.qbytes += len(f.Raw)
		c.cond.Signal()
	}
	c.mu.Unlock()
}

// maxQueued caps the bytes of the client's messages not yet taken by
// Recv (transport.DefaultMaxBuffered, as on stdio).
const maxQueued = transport.DefaultMaxBuffered

// Overflowed reports whether frames were dropped at that cap.
func (c *Session) Overflowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.overflowed
}

func (c *Session) pump() {
	defer close(c.recv)
	for {
		c.mu.Lock()
		for len(c.q) == 0 && !c.qclosed {
			c.cond.Wait()
		}
		if len(c.q) == 0 {
			c.mu.Unlock()
			return
		}
		f := c.q[0]
		c.q = c.q[1:]
		c.qbytes -= len(f.Raw)
		c.mu.Unlock()
		select {
		case c.recv <- f:
		case <-c.srv.done:
			return
		}
	}
}

// message is what routing needs of one JSON-RPC message.
type message struct {
	method  string
	key     string // id's peer key; "" without an id
	version string // result.protocolVersion
	meta    string // params._meta's revision
}

func (m message) request() bool  { return m.method != "" && m.key != "" }
func (m message) response() bool { return m.method == "" && m.key != "" }

func parse(b []byte) (message, bool) {
	var v struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return message{}, false
	}
	if _, err := d.Token(); err != io.EOF {
		return message{}, false
	}
	m := message{method: v.Method, version: v.Result.ProtocolVersion}
	m.meta, _ = v.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	if len(v.ID) > 0 && string(v.ID) != "null" {
		var id any
		d := json.NewDecoder(bytes.NewReader(v.ID))
		d.UseNumber()
		if d.Decode(&id) == nil {
			m.key = transport.IDKey(id)
		}
	}
	return m, true
}

// parseBody reads a POST body: one message or a batch.
func parseBody(b []byte) ([]message, bool) {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(t, &raws) != nil {
			return nil, false
		}
		out := make([]message, 0, len(raws))
		for _, r := range raws {
			m, ok := parse(r)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	m, ok := parse(b)
	if !ok {
		return nil, false
	}
	return []message{m}, true
}

// Send writes a message: a response on the stream (or body) of the POST
// that carried its request; a request or notification of wirecheck's on
// the open GET stream, else on the stream of the request still open most
// recently, else it waits for a stream.
func (c *Session) Send(msg []byte) error {
	m, ok := parse(msg)
	if !ok {
		return fmt.Errorf("httpserve: Send needs one JSON-RPC message: %.80q", msg)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return ErrClosed
	}
	if c.legacyStream != nil {
		if m.version != "" && c.revision == "" {
			c.revision = m.version
		}
		return c.legacyStream.event(msg)
	}
	if m.response() {
		x := c.open[m.key]
		if x == nil {
			return fmt.Errorf("httpserve: no POSTed request with id %s is open to carry this response", m.key)
		}
		delete(c.open, m.key)
		method := x.methods[m.key]
		if method == "tools/list" {
			c.learnTools(msg)
		}
		if method == "initialize" && m.version != "" {
			c.revision = m.version
			c.initialized = true
		}
		if c.set.EndAfter != "" && method == c.set.EndAfter && !c.endedAfter && c.ID() != "" {
			// Retired before the answer goes out: the client may send
			// its next request as soon as it reads it.
			c.endedAfter = true
			c.retireDue = true
			c.retireWhenOwedNothing(x.stream)
		}
		err := x.answer(m.key, msg)
		if st := x.stream; st != nil && st.ended && !st.awaitingResume {
			// Nothing resumes a stream that ended whole: the session
			// need not keep it.
			delete(c.streams, st.id)
		}
		return err
	}
	if m.request() {
		c.owed[m.key] = true
	}
	return c.route(msg)
}

// answered notes a response of the client's to one of wirecheck's
// requests; c.mu held.
func (c *Session) answered(key string) {
	delete(c.owed, key)
	c.retireWhenOwedNothing(nil)
}

// retireWhenOwedNothing ends the session's id as EndAfter asked once the
// client owes wirecheck no answer; c.mu held (released while retiring).
// Its streams end but keep, which carries the answer still to go out.
func (c *Session) retireWhenOwedNothing(keep *stream) {
	if !c.retireDue || len(c.owed) > 0 {
		return
	}
	c.retireDue = false
	c.retired = true
	old, after := c.ID(), c.set.EndAfter
	for _, st := range c.streams {
		if st != keep {
			st.detach()
		}
	}
	c.mu.Unlock()
	c.note("wirecheck ends session " + old + " with its answer to " + after + ": the client's next request gets 404, and the new session it owes goes on in this connection")
	c.srv.retire(c, old)
	c.mu.Lock()
}

// SendOn writes a request or notification of wirecheck's on the stream
// of the open request keyed key (a progress notification, a request
// related to it); false when that request has no open stream.
func (c *Session) SendOn(key string, msg []byte) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	x := c.open[key]
	if x == nil || x.stream == nil || x.stream.ended {
		return false, nil
	}
	return true, x.stream.event(msg)
}

// WriteRaw sends bytes as they are as one event's data, routed as a
// notification of wirecheck's: HTTP has no byte stream, but an event can
// carry what no message is.
func (c *Session) WriteRaw(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return ErrClosed
	}
	if c.legacyStream != nil {
		return c.legacyStream.event(b)
	}
	return c.route(b)
}

// route puts a server message on a stream; c.mu held.
func (c *Session) route(msg []byte) error {
	if st := c.streamFor(); st != nil {
		return st.event(msg)
	}
	if len(c.waiting) >= 1024 {
		return errors.New("httpserve: 1024 messages wait for the client to open a stream")
	}
	c.waiting = append(c.waiting, append([]byte(nil), msg...))
	return nil
}

// streamFor is the stream a server message goes on: an attached GET
// stream, else the newest attached stream of an open request.
func (c *Session) streamFor() *stream {
	var best *stream
	for _, st := range c.streams {
		if st.ended || st.sink == nil {
			continue
		}
		if st.get {
			if best == nil || !best.get || st.seq > best.seq {
				best = st
			}
			continue
		}
		if best == nil || !best.get && st.seq > best.seq {
			best = st
		}
	}
	return best
}

// flushWaiting sends what waited for a stream; c.mu held.
func (c *Session) flushWaiting() {
	for len(c.waiting) > 0 {
		st := c.streamFor()
		if st == nil {
			return
		}
		msg := c.waiting[0]
		c.waiting = c.waiting[1:]
		_ = st.event(msg)
	}
}

// Drop breaks the connection of the open request keyed key without
// ending its stream (after a retry field when Settings.Retry is set), so
// the client must resume it with GET and Last-Event-ID; false when that
// request has no stream with an event id to resume from.
func (c *Session) Drop(key string) bool {
	c.mu.Lock()
	x := c.open[key]
	if x == nil || x.stream == nil || x.stream.sink == nil || x.stream.lastID == "" {
		c.mu.Unlock()
		return false
	}
	x.stream.drop(c.set.Retry)
	last := x.stream.lastID
	c.mu.Unlock()
	c.note(fmt.Sprintf("wirecheck broke the SSE stream of request %s before its response (last event id %s); the client should resume it", key, last))
	return true
}

func (c *Session) stamp() (int, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nexch++
	return c.nexch, time.Now()
}
