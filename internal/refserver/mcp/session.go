package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// A session of the HTTP fronts: one core (the stdio server, unchanged)
// fed one line per POST body, and a demultiplexer that routes each line
// the core writes to the HTTP exchange it belongs to.
type session struct {
	f   *Front
	id  string
	srv *server
	// lines feeds the core; quit ends the session (DELETE, expiry, the
	// server stopping); done closes when the core's goroutine has ended.
	lines    chan input
	quit     chan struct{}
	quitOnce sync.Once
	done     chan struct{}

	mu sync.Mutex
	// version is the revision negotiated (the initialize answer), or
	// discoverRev for the shared core of 2026-07-28 requests.
	version string
	// byKey are the open request exchanges by the JSON text of their id;
	// byToken the same by progress token; calls the open tools/call
	// exchanges, oldest first (server requests and logs ride on the last).
	byKey   map[string]*exchange
	byToken map[string]*exchange
	calls   []*exchange
	// current is the exchange of the line the core is reading now: it
	// takes the answers that name no request (null ids).
	current *exchange
	// get is the GET stream (the legacy stream in the legacy front); it
	// queues what it is given until a client opens it.
	get     *exchange
	getLive bool
	// streams are every SSE stream by number, for resumption.
	streams map[int]*exchange
	nstream int
	// asked are the ids of the requests the server sent, so a client
	// response to another id is known stray.
	asked map[string]bool
	idle  *time.Timer
}

// input is one line for the core, with the exchange it came from.
type input struct {
	line []byte
	ex   *exchange
	done chan struct{}
}

// exchange is one POST waiting for what the core writes for it, or an SSE
// stream (a POST's, the GET stream) that outlives its connection when the
// server is resumable.
type exchange struct {
	key, token, method string
	call, get          bool
	num                int
	ch                 chan []byte
	// closed: it takes no more messages (its response is queued, or its
	// connection is gone for good).
	closed bool
	// finished: its response has been written; live: a connection is
	// reading it now.
	finished, live bool
	log            []event
	seq            int
}

// event is one SSE event sent, kept for replay.
type event struct {
	id   string
	seq  int
	data []byte
}

// The bounds of a session: messages queued on the GET stream (and kept
// for replay on any stream), on a POST's stream, and the streams a
// resumable server remembers.
const (
	queueCap    = 1024
	postCap     = 64
	keptStreams = 256
)

func (f *Front) newSession(version string) *session {
	s := &session{f: f, lines: make(chan input), quit: make(chan struct{}), done: make(chan struct{}), version: version,
		byKey: map[string]*exchange{}, byToken: map[string]*exchange{}, streams: map[int]*exchange{}, asked: map[string]bool{}}
	s.get = s.stream(&exchange{get: true})
	s.srv = newServer(f.o, s, s.quit)
	s.srv.ext = f.ext
	// The 2026-07-28 core has no session: every client's requests meet
	// in it.
	s.srv.perExchange = discovers(version)
	if version != "" && !discovers(version) {
		s.srv.version = version
	}
	f.mu.Lock()
	f.nsess++
	s.id = f.sessionID()
	f.mu.Unlock()
	f.wg.Add(1)
	go s.run()
	return s
}

// sessionID is a fresh session id: 128 random bits, or "sess N" with the
// fault session-id-space (a space is no visible ASCII). Called under f.mu.
func (f *Front) sessionID() string {
	if f.faults["session-id-space"] {
		return "sess " + strconv.Itoa(f.nsess)
	}
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// stream numbers ex as a new SSE stream of s; a resumable server keeps
// the last keptStreams for replay. Called with s.mu held or before s is
// shared.
func (s *session) stream(ex *exchange) *exchange {
	s.nstream++
	ex.num = s.nstream
	if ex.get {
		ex.ch = make(chan []byte, queueCap)
	} else {
		ex.ch = make(chan []byte, postCap)
	}
	if s.f.ids() || ex.get {
		s.streams[ex.num] = ex
		if old := s.streams[ex.num-keptStreams]; old != nil && !old.get {
			delete(s.streams, old.num)
		}
	}
	return ex
}

// run is the core's goroutine: one line at a time, as on stdio.
func (s *session) run() {
	defer s.f.wg.Done()
	defer close(s.done)
	var wg sync.WaitGroup
	for {
		select {
		case in := <-s.lines:
			s.mu.Lock()
			s.current = in.ex
			s.mu.Unlock()
			fatal := s.srv.from(in.ex).handleLine(in.line, &wg)
			s.mu.Lock()
			s.current = nil
			s.mu.Unlock()
			close(in.done)
			if fatal {
				s.f.die()
			}
		case <-s.quit:
			wg.Wait()
			return
		}
	}
}

// end ends the session: its core, its waits and its streams.
func (s *session) end() {
	s.quitOnce.Do(func() {
		close(s.quit)
		s.mu.Lock()
		if s.idle != nil {
			s.idle.Stop()
		}
		s.mu.Unlock()
	})
}

// touch restarts the idle clock (variant idle-expiry).
func (s *session) touch() {
	if !s.f.variants["idle-expiry"] {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle == nil {
		s.idle = time.AfterFunc(idleExpiry, func() { s.f.drop(s, false) })
		return
	}
	s.idle.Reset(idleExpiry)
}

const idleExpiry = 3 * time.Second

// feed hands line to the core; it returns once the core has taken it (so
// lines keep the order of their POSTs), or false when the session or the
// client went away first.
func (s *session) feed(stop <-chan struct{}, line []byte, ex *exchange) (chan struct{}, bool) {
	in := input{line: line, ex: ex, done: make(chan struct{})}
	select {
	case s.lines <- in:
		return in.done, true
	case <-s.quit:
	case <-stop:
	}
	return nil, false
}

// open registers the exchange of a request POST before its line reaches
// the core, so its answer finds it.
func (s *session) open(key, method, token string) *exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex := s.stream(&exchange{key: key, method: method, token: token, call: method == "tools/call"})
	s.byKey[key] = ex
	if token != "" {
		s.byToken[token] = ex
	}
	if ex.call {
		s.calls = append(s.calls, ex)
	}
	return ex
}

// closeEx stops ex taking messages. Called with s.mu held.
func (s *session) closeEx(ex *exchange) {
	if ex.closed {
		return
	}
	ex.closed = true
	if s.byKey[ex.key] == ex {
		delete(s.byKey, ex.key)
	}
	if ex.token != "" && s.byToken[ex.token] == ex {
		delete(s.byToken, ex.token)
	}
	for i, c := range s.calls {
		if c == ex {
			s.calls = append(s.calls[:i:i], s.calls[i+1:]...)
			break
		}
	}
}

// Write is output of the core that names no input it handles.
func (s *session) Write(p []byte) (int, error) {
	s.writeFrom(nil, p)
	return len(p), nil
}

// writeFrom is the core's output: one message per call (server.write),
// written while handling the input of origin (nil: none).
func (s *session) writeFrom(origin *exchange, p []byte) {
	line := bytes.TrimSpace(p)
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		// Not a message (stdout-text): over HTTP stdout is a log.
		s.f.stdout(p)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.quit:
		return
	default:
	}
	if s.f.legacy {
		s.legacyRoute(line)
		return
	}
	if origin != nil {
		s.routeFrom(origin, v, line)
		return
	}
	s.route(v, line)
}

// routeFrom sends one message of the core to the stream of the input whose
// handling wrote it, as the transport asks of messages related to a
// request: never to another request's stream, however many requests
// (of however many clients sharing a sessionless core) are open. What
// its own stream no longer takes goes to the GET stream, as a message
// related to no open request. Called with s.mu held.
func (s *session) routeFrom(origin *exchange, v any, line []byte) {
	m, isObj := v.(obj)
	if !isObj { // a batch answer
		s.sendFirst(line, origin, s.get)
		return
	}
	method, hasMethod := m["method"].(string)
	id, hasID := m["id"]
	params, _ := m["params"].(obj)
	// own is the request exchange of origin; a notification or a body
	// that is no message has none (take reads what it gets at once).
	var own *exchange
	if origin.key != "" {
		own = origin
	}
	switch {
	case !hasMethod && hasID && own == nil && s.srv.perExchange:
		// An answer read with a notification, on a core clients share:
		// its id names no other client's request, whatever its text.
		s.sendFirst(line, origin, s.get)
	case !hasMethod && hasID && own == nil:
		// An answer read with a notification (a parse error, a fault
		// answering notifications, a cancelled subscription answered) goes
		// where the session's routing puts answers.
		s.route(v, line)
	case !hasMethod && hasID: // the response
		s.deliverResponse(own, m, line)
	case hasID: // a request of the server
		s.asked[show(id)] = true
		to := s.sendFirst(line, own, s.get)
		if s.f.faults["broadcast-requests"] && to != s.get {
			s.send(s.get, line)
		}
	case method == "notifications/progress":
		s.sendFirst(line, own, s.orphans())
	case subscriptionOf(params) != nil:
		// A subscription's messages are written from its own exchange
		// (lateUpdate included); by id only where one client owns the
		// ids.
		var sub *exchange
		if !s.srv.perExchange {
			sub = s.byKey[show(subscriptionOf(params))]
		}
		if own != nil && own.key == show(subscriptionOf(params)) {
			sub = own
		}
		s.sendFirst(line, sub, s.get)
	case method == "notifications/message":
		s.sendFirst(line, own, s.get)
	default:
		var get *exchange
		if s.getLive {
			get = s.get
		}
		s.sendFirst(line, get, own, s.get)
	}
}

// route sends one message of the core that names no request it relates
// to where plan §3.1 says. Called with s.mu held.
func (s *session) route(v any, line []byte) {
	m, isObj := v.(obj)
	if !isObj { // a batch answer
		s.sendFirst(line, s.current, s.get)
		return
	}
	method, hasMethod := m["method"].(string)
	id, hasID := m["id"]
	params, _ := m["params"].(obj)
	lastCall := s.lastCall()
	switch {
	case !hasMethod && hasID: // a response
		ex := s.byKey[show(id)]
		if ex == nil || ex.closed {
			ex = s.current
		}
		s.deliverResponse(ex, m, line)
	case hasID: // a request of the server
		s.asked[show(id)] = true
		to := s.sendFirst(line, lastCall, s.openCurrent(), s.get)
		if s.f.faults["broadcast-requests"] && to != s.get {
			s.send(s.get, line)
		}
	case method == "notifications/progress":
		s.sendFirst(line, s.byToken[show(params["progressToken"])], s.orphans())
	case subscriptionOf(params) != nil:
		s.sendFirst(line, s.byKey[show(subscriptionOf(params))], s.get)
	case method == "notifications/message":
		s.sendFirst(line, lastCall, s.openCurrent(), s.get)
	default:
		var get *exchange
		if s.getLive {
			get = s.get
		}
		s.sendFirst(line, get, lastCall, s.openCurrent(), s.get)
	}
}

// deliverResponse sends the response m (its text line) on ex, the
// exchange of the request it answers, and closes ex. When ex is nil or
// closed (its client left, or the server answered twice:
// double-response) nobody waits for it: it is a stray, sent on the GET
// stream where a client sees it. Called with s.mu held.
func (s *session) deliverResponse(ex *exchange, m obj, line []byte) {
	if ex == nil || ex.closed {
		s.send(s.get, line)
		return
	}
	if ex.method == "initialize" {
		s.initialized(m)
	}
	s.send(ex, line)
	if s.f.faults["get-response"] && s.getLive {
		s.send(s.get, line)
	}
	s.closeEx(ex)
}

func subscriptionOf(p obj) any {
	meta, _ := p["_meta"].(obj)
	return meta[metaSubscription]
}

// orphans is where progress of a request no stream takes goes: the GET
// stream; with the fault cancel-ignored (2026-07-28) an open
// subscriptions/listen stream, so a cancelled call is seen going on.
// Called with s.mu held.
func (s *session) orphans() *exchange {
	if s.f.faults["cancel-ignored"] {
		for _, ex := range s.byKey {
			if ex.method == "subscriptions/listen" && !ex.closed {
				return ex
			}
		}
	}
	return s.get
}

// lastCall is the newest open tools/call exchange.
func (s *session) lastCall() *exchange {
	if n := len(s.calls); n > 0 {
		return s.calls[n-1]
	}
	return nil
}

// openCurrent is the exchange of the request the core reads now, if it
// still takes messages.
func (s *session) openCurrent() *exchange {
	if c := s.current; c != nil && c.key != "" && !c.closed {
		return c
	}
	return nil
}

// sendFirst sends line to the first exchange of xs that takes it.
func (s *session) sendFirst(line []byte, xs ...*exchange) *exchange {
	for _, ex := range xs {
		if s.send(ex, line) {
			return ex
		}
	}
	fmt.Fprintf(s.f.o.Log, "dropped (no stream takes it): %.200s\n", line)
	return nil
}

// send queues line on ex; false when ex takes no messages.
func (s *session) send(ex *exchange, line []byte) bool {
	if ex == nil || ex.closed {
		return false
	}
	select {
	case ex.ch <- append([]byte(nil), line...):
		return true
	default:
		fmt.Fprintf(s.f.o.Log, "dropped (stream %d full): %.200s\n", ex.num, line)
		return true
	}
}

// initialized notes the revision an initialize answer negotiated; a
// sessionless server keeps the core by it. Called with s.mu held.
func (s *session) initialized(m obj) {
	res, _ := m["result"].(obj)
	v, _ := res["protocolVersion"].(string)
	if v == "" {
		return
	}
	s.version = v
	if s.f.variants["no-sessions"] {
		s.f.mu.Lock()
		if old := s.f.shared[v]; old != nil && old != s {
			s.f.retired = append(s.f.retired, old)
		}
		s.f.shared[v] = s
		s.f.mu.Unlock()
	}
}

// ver is the session's revision.
func (s *session) ver() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// isResponse reports whether a line the core wrote answers a request (a
// batch answer included).
func isResponse(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] == '[' {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return false
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	return !hasMethod && hasID
}
