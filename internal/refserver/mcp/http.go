package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/refserver"
)

// Front is the reference server over Streamable HTTP (endpoint /mcp) or
// the legacy HTTP+SSE transport (/sse and /message): each session runs the
// stdio server's core unchanged (session.go), so every core fault and
// variant works over HTTP; the faults and variants of the transport itself
// live here, in sse.go and in httpfaults.go.
type Front struct {
	o                refserver.Options
	legacy           bool
	faults, variants map[string]bool

	mu       sync.Mutex
	sessions map[string]*session
	// shared are the sessionless cores: discoverRev for 2026-07-28 requests;
	// by revision under the variant no-sessions. retired are the ones a
	// newer initialize replaced, ended with the front.
	shared  map[string]*session
	retired []*session
	nsess   int
	closed  bool
	wg      sync.WaitGroup
	outMu   sync.Mutex

	fatal     chan struct{}
	fatalOnce sync.Once
	// ext is a profile's extension (extension.go), nil for plain MCP.
	ext *Extension
}

// NewFront is the HTTP front of the reference server with o's faults and
// variants: Streamable HTTP, or the legacy transport when legacy is set.
func NewFront(o refserver.Options, legacy bool) *Front {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return &Front{o: o, legacy: legacy, faults: refserver.Set(o.Faults), variants: refserver.Set(o.Variants),
		sessions: map[string]*session{}, shared: map[string]*session{}, fatal: make(chan struct{})}
}

// Fatal closes when a core fault asks the server to die (crash-on-garbage).
func (f *Front) Fatal() <-chan struct{} { return f.fatal }

func (f *Front) die() { f.fatalOnce.Do(func() { close(f.fatal) }) }

// Close ends every session and waits for their cores.
func (f *Front) Close() {
	f.mu.Lock()
	f.closed = true
	var all []*session
	for _, s := range f.sessions {
		all = append(all, s)
	}
	for _, s := range f.shared {
		all = append(all, s)
	}
	all = append(all, f.retired...)
	f.mu.Unlock()
	for _, s := range all {
		s.end()
	}
	f.wg.Wait()
}

// stdout writes what a core prints that is no message: over HTTP the
// process's stdout is a log.
func (f *Front) stdout(p []byte) {
	f.outMu.Lock()
	defer f.outMu.Unlock()
	f.o.Out.Write(p)
}

// drop ends a session; deleted or expired, its id is answered 404 from
// then on (unless the fault deleted-session-served keeps it serving).
func (f *Front) drop(s *session, deleted bool) {
	if deleted && f.faults["deleted-session-served"] {
		return
	}
	f.mu.Lock()
	if f.sessions[s.id] == s {
		delete(f.sessions, s.id)
	}
	f.mu.Unlock()
	s.end()
}

const endpoint = "/mcp"

// maxBody caps a POST body.
const maxBody = 4 << 20

func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.legacy {
		f.serveLegacy(w, r)
		return
	}
	if f.wellKnown(w, r) {
		return
	}
	path := f.path()
	if f.variants["trailing-slash-redirect"] {
		path = f.path() + "/"
		if r.URL.Path == f.path() {
			to := path
			if r.URL.RawQuery != "" {
				to += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
	}
	moved := f.faults["endpoint-moves"]
	if r.URL.Path != path && !(moved && r.URL.Path == f.path()+"/rpc") {
		http.NotFound(w, r)
		return
	}
	if !f.originOK(w, r) || !f.authorized(w, r) || (r.Method != http.MethodPost && !f.versionOK(w, r)) || f.modernVerbRefused(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		f.post(w, r, moved && r.URL.Path == path)
	case http.MethodGet:
		if moved && r.URL.Path == path {
			http.NotFound(w, r)
			return
		}
		f.getStream(w, r)
	case http.MethodDelete:
		f.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// lingerOnStop is what ending takes the server with slow-exit or
// ignore-eof, as on stdio when its input ends.
func (f *Front) lingerOnStop() {
	if f.variants["slow-exit"] {
		time.Sleep(1500 * time.Millisecond)
	}
	if f.faults["ignore-eof"] {
		time.Sleep(time.Hour)
	}
}

// versionOK refuses an MCP-Protocol-Version the server does not speak.
func (f *Front) versionOK(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get("MCP-Protocol-Version")
	// older-revisions and newer-revision-only do not speak 2026-07-28:
	// a request of the initialize era naming it in the header is refused.
	declined := discovers(v) && (f.variants["older-revisions"] || f.variants["newer-revision-only"])
	if v == "" || f.faults["version-header-ignored"] || (slices.Contains(mcprevisions.IDs(), v) && f.ext.speaks(v) && !declined) {
		return true
	}
	http.Error(w, "Bad Request: unsupported MCP-Protocol-Version "+v, http.StatusBadRequest)
	return false
}

// message is what the front reads of a POST body.
type message struct {
	kind   string // request, notification, response, raw
	key    string // the JSON text of the id
	method string
	token  string // the progress token's JSON text, "" when none
	modern bool   // it names a revision in _meta (2026-07-28)
	line   []byte // the body as one line
}

func readMessage(body []byte) message {
	msg := message{kind: "raw", line: oneLine(body)}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil || dec.More() {
		return msg
	}
	m, isObj := v.(obj)
	if !isObj {
		return msg
	}
	method, hasMethod := m["method"].(string)
	id, hasID := m["id"]
	_, badMethod := m["method"]
	params, _ := m["params"].(obj)
	meta, _ := params["_meta"].(obj)
	msg.key, msg.method = show(id), method
	msg.modern = meta[metaVersion] != nil
	if tok, has := meta["progressToken"]; has {
		msg.token = show(tok)
	}
	switch {
	case hasMethod && hasID && readableID(m) == nil:
		// An id that is no string or integer: bad input, answered as such.
	case hasMethod && hasID:
		msg.kind = "request"
	case hasMethod:
		msg.kind = "notification"
	case hasID && !badMethod && (m["result"] != nil || m["error"] != nil):
		msg.kind = "response"
	}
	return msg
}

// oneLine is a body as one line for the core: compacted when it is JSON,
// its line breaks blanked otherwise (garbage stays garbage).
func oneLine(body []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, body) == nil {
		return append(b.Bytes(), '\n')
	}
	return append(bytes.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, body), '\n')
}

func (f *Front) post(w http.ResponseWriter, r *http.Request, initOnly bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxBody {
		http.Error(w, "Request Entity Too Large", http.StatusRequestEntityTooLarge)
		return
	}
	msg := readMessage(body)
	if !f.ext.speaks(discoverRev()) {
		msg.modern = false // _meta names no revision to it
	}
	if initOnly && msg.method != "initialize" {
		http.NotFound(w, r)
		return
	}
	// A 2026-07-28 request names its revision in _meta: an unsupported
	// one is the core's error (-32022), with 400.
	if !msg.modern && !f.versionOK(w, r) {
		return
	}
	if msg.modern && msg.kind == "request" {
		if why := f.headerMismatch(r, body); why != "" {
			f.refuseHeaders(w, msg.key, why)
			return
		}
	}
	if f.lastEventIDRefused(w, r, msg) || f.versionRefusedPlain(w, msg, body) || f.initializeRefused(w, msg, body) {
		return
	}
	s := f.sessionOf(w, r, msg)
	if s == nil || !f.before(w, r, msg) {
		return
	}
	s.touch()
	if msg.kind != "request" {
		f.accept(w, r, s, msg)
		return
	}
	ex := s.open(msg.key, msg.method, msg.token)
	if f.faults["sse-notification-unrelated"] && msg.modern && msg.method == "tools/call" {
		s.mu.Lock()
		s.send(ex, []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
		s.mu.Unlock()
	}
	if msg.method == "initialize" && !f.variants["no-sessions"] {
		w.Header().Set("Mcp-Session-Id", s.id)
	}
	if _, ok := s.feed(r.Context().Done(), msg.line, ex); !ok {
		s.mu.Lock()
		s.closeEx(ex)
		s.mu.Unlock()
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	f.answer(w, r, s, ex, msg)
}

// sessionOf finds the session a POST belongs to, or answers the POST
// itself (400 without a session id, 404 for an unknown one) and returns
// nil.
func (f *Front) sessionOf(w http.ResponseWriter, r *http.Request, msg message) *session {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		http.Error(w, "Service Unavailable: the server is stopping", http.StatusServiceUnavailable)
		return nil
	}
	if msg.method == "initialize" && msg.kind == "request" {
		s := f.newSession("")
		if !f.variants["no-sessions"] {
			f.mu.Lock()
			f.sessions[s.id] = s
			f.mu.Unlock()
		} else {
			f.mu.Lock()
			f.retired = append(f.retired, s)
			f.mu.Unlock()
		}
		return s
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" && !f.variants["no-sessions"] && !f.ignoresSession(msg) {
		return f.live(w, id)
	}
	switch {
	case msg.modern || (discovers(r.Header.Get("MCP-Protocol-Version")) && f.ext.speaks(discoverRev())):
		return f.sharedCore(discoverRev())
	case f.variants["no-sessions"]:
		v := r.Header.Get("MCP-Protocol-Version")
		if v == "" {
			v = headerless()
		}
		return f.sharedCore(v)
	}
	if f.faults["missing-session-404"] {
		http.Error(w, "Not Found: no session", http.StatusNotFound)
		return nil
	}
	http.Error(w, "Bad Request: Mcp-Session-Id header is required", http.StatusBadRequest)
	return nil
}

// live is the session of id, or nil once it has answered 404 (never
// issued, deleted or expired).
func (f *Front) live(w http.ResponseWriter, id string) *session {
	f.mu.Lock()
	s := f.sessions[id]
	f.mu.Unlock()
	if s == nil {
		http.Error(w, "Not Found: no session "+id, http.StatusNotFound)
	}
	return s
}

// sharedCore is the sessionless core of revision v, made on first use.
func (f *Front) sharedCore(v string) *session {
	f.mu.Lock()
	s := f.shared[v]
	f.mu.Unlock()
	if s != nil {
		return s
	}
	s = f.newSession(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	if old := f.shared[v]; old != nil {
		f.retired = append(f.retired, s)
		return old
	}
	f.shared[v] = s
	return s
}

// accept answers a notification, a client response or a body that is no
// message: the core reads it, and what it answers at once (null ids: a
// parse error, or a fault answering notifications) becomes the HTTP answer.
func (f *Front) accept(w http.ResponseWriter, r *http.Request, s *session, msg message) {
	stray := false
	if msg.kind == "response" {
		// On a core clients share a response answers nothing: the server
		// asked its question on one exchange's stream, and "the client
		// MUST NOT send JSON-RPC responses" in 2026-07-28 to tie a POST
		// to it.
		s.mu.Lock()
		stray = !s.asked[msg.key] || s.srv.perExchange
		delete(s.asked, msg.key)
		s.mu.Unlock()
	}
	unknown := msg.kind == "notification" && !slices.Contains(clientNotifications, msg.method)
	if (stray || unknown) && f.variants["reject-stray-input"] {
		f.writeJSON(w, http.StatusBadRequest, []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: nothing here expects this message"}}`))
		return
	}
	got, ok := s.take(r.Context().Done(), msg.line)
	if !ok {
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	batch := msg.kind == "raw" && bytes.HasPrefix(bytes.TrimSpace(msg.line), []byte("["))
	switch {
	case len(got) > 0 && batch && bytes.HasPrefix(bytes.TrimSpace(got[0]), []byte("[")):
		if f.variants["batch-sse"] {
			f.sseOne(w, s, got[0])
			return
		}
		var each []json.RawMessage
		if f.variants["batch-sse-events"] && json.Unmarshal(got[0], &each) == nil {
			lines := make([][]byte, len(each))
			for i, m := range each {
				lines[i] = m
			}
			f.sseEach(w, s, lines)
			return
		}
		f.writeJSON(w, http.StatusOK, got[0])
	case msg.kind == "raw" && f.faults["bad-json-500"]:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	case msg.kind == "raw" && f.variants["bad-input-plain-400"]:
		http.Error(w, "Bad Request: not a JSON-RPC message", http.StatusBadRequest)
	case len(got) > 0 && msg.kind == "raw":
		f.writeJSON(w, http.StatusBadRequest, got[0])
	case len(got) > 0:
		// A fault answers what needs no answer.
		f.writeJSON(w, http.StatusOK, got[0])
	case batch && json.Valid(msg.line):
		w.WriteHeader(http.StatusAccepted) // notifications only
	case msg.kind == "raw":
		http.Error(w, "Bad Request: not a JSON-RPC message", http.StatusBadRequest)
	case stray && f.faults["stray-response-200-error"]:
		f.writeJSON(w, http.StatusOK, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: no request has this id"}}`))
	case f.faults["notification-200"]:
		f.writeJSON(w, http.StatusOK, []byte(`{}`))
	case f.faults["notification-202-body"]:
		f.writeJSON(w, http.StatusAccepted, []byte(`{"ok":true}`))
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// take has the core read a line that asks no answer and returns what the
// core answered at once all the same (null ids: bad input; faults that
// answer notifications); false when the session or the client went first.
func (s *session) take(stop <-chan struct{}, line []byte) ([][]byte, bool) {
	ex := &exchange{ch: make(chan []byte, 16)}
	done, ok := s.feed(stop, line, ex)
	if !ok {
		return nil, false
	}
	select {
	case <-done:
	case <-s.quit:
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ex.closed = true
	var got [][]byte
	for len(ex.ch) > 0 {
		got = append(got, <-ex.ch)
	}
	return got, true
}

// clientNotifications are the notifications a client sends (the variant
// reject-stray-input refuses others).
var clientNotifications = []string{"notifications/initialized", "notifications/cancelled", "notifications/progress",
	"notifications/roots/list_changed", "notifications/tasks/status"}

// writeJSON writes one JSON answer (text/plain with the fault json-as-text).
func (f *Front) writeJSON(w http.ResponseWriter, status int, body []byte) {
	ct := "application/json"
	if f.faults["json-as-text"] {
		ct = "text/plain"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	w.Write(bytes.TrimSpace(body))
	w.Write([]byte("\n"))
}

// answer writes what the core writes for a request: JSON when its answer
// comes alone, an SSE stream when messages come before it (or always,
// with the variant sse-answers).
func (f *Front) answer(w http.ResponseWriter, r *http.Request, s *session, ex *exchange, msg message) {
	if f.variants["task-slow"] && msg.method == "tasks/result" {
		f.streamAtOnce(w, r, s, ex)
		return
	}
	var first []byte
	select {
	case first = <-ex.ch:
	case <-r.Context().Done():
		s.gone(ex)
		return
	case <-s.quit:
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	// resume-all-streams answers on streams too: a stream answered at
	// once is one whose events another stream's resumption can leak.
	stream := f.variants["sse-answers"] || f.faults["resume-all-streams"] || msg.method == "subscriptions/listen" || !isResponse(first)
	if !stream {
		s.mu.Lock()
		ex.finished = true
		s.mu.Unlock()
		body := first
		if f.faults["body-two-objects"] && msg.method == "tools/list" {
			body = append(bytes.TrimSpace(first), []byte("\n"+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a second object"}}`)...)
		}
		if f.faults["unknown-method-400-plain"] && bytes.Contains(first, []byte(`"code":-32601`)) {
			// What a server whose HTTP layer knows no such method writes:
			// no JSON-RPC message at all.
			http.Error(w, "JSON RPC not handled: "+strconv.Quote(msg.method)+" unsupported", http.StatusBadRequest)
			return
		}
		status := http.StatusOK
		if discovers(s.ver()) {
			status = f.modernStatus(first)
		}
		f.writeJSON(w, status, body)
		return
	}
	out := f.startSSE(w, s)
	if !f.prime(out, s, ex) {
		// polling: the connection closes before the answer, which waits
		// for the GET that resumes the stream.
		s.mu.Lock()
		s.record(ex, first, true)
		s.mu.Unlock()
		s.gone(ex)
		return
	}
	s.emit(out, ex, first)
	if isResponse(first) {
		s.finish(ex)
		s.linger(r.Context(), out, nil)
		return
	}
	if f.faults["sse-closes-early"] {
		s.gone(ex)
		return
	}
	if !s.pump(r.Context(), out, ex) {
		s.gone(ex)
	}
}

// streamAtOnce answers on an SSE stream opened before the core answers
// (the variant task-slow's tasks/result, which waits for a task longer
// than a client's response timeout): as a server streaming its answers
// does, so the wait for the answer is the client's to bound, not its
// wait for response headers.
func (f *Front) streamAtOnce(w http.ResponseWriter, r *http.Request, s *session, ex *exchange) {
	out := f.startSSE(w, s)
	f.prime(out, s, ex)
	var first []byte
	select {
	case first = <-ex.ch:
	case <-r.Context().Done():
		// The client gave up its stream: the answer, when the task ends,
		// goes nowhere (a response belongs on its request's stream, never
		// the GET stream, where gone would send it).
		return
	case <-s.quit:
		return
	}
	s.emit(out, ex, first)
	if isResponse(first) {
		s.finish(ex)
		s.linger(r.Context(), out, nil)
		return
	}
	if !s.pump(r.Context(), out, ex) {
		s.gone(ex)
	}
}

// gone is a client that left before its answer: the stream waits for a
// resumption when the server is resumable; otherwise what comes for it is
// sent elsewhere, and in 2026-07-28 the request is cancelled.
func (s *session) gone(ex *exchange) {
	s.mu.Lock()
	ex.live = false
	keep := s.f.ids() && !discovers(s.version)
	if !keep {
		s.closeEx(ex)
	}
	modern := discovers(s.version) && !ex.finished && !s.f.faults["cancel-ignored"]
	s.mu.Unlock()
	if modern {
		// Read as from ex itself: it cancels ex's request, never another
		// client's that has the same id.
		line, _ := json.Marshal(obj{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": obj{"requestId": json.RawMessage(ex.key), "reason": "the client closed the stream"}})
		s.feed(nil, append(line, '\n'), ex)
	}
}

func (f *Front) getStream(w http.ResponseWriter, r *http.Request) {
	if f.variants["get-405"] {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed: no stream here", http.StatusMethodNotAllowed)
		return
	}
	s := f.sessionOf(w, r, message{kind: "get"})
	if s == nil {
		return
	}
	s.touch()
	if f.faults["get-json"] {
		f.writeJSON(w, http.StatusOK, []byte(`{}`))
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" && f.ids() {
		f.resume(w, r, s, last)
		return
	}
	s.mu.Lock()
	busy := s.getLive
	s.getLive = true
	s.get.live = true
	s.mu.Unlock()
	if busy {
		http.Error(w, "Conflict: the session's GET stream is open", http.StatusConflict)
		return
	}
	defer func() {
		s.mu.Lock()
		s.getLive = false
		s.get.live = false
		s.mu.Unlock()
	}()
	out := f.startSSE(w, s)
	if f.prime(out, s, s.get) {
		s.pump(r.Context(), out, s.get)
	}
}

func (f *Front) delete(w http.ResponseWriter, r *http.Request) {
	if f.variants["delete-405"] {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method Not Allowed: sessions end when the server does", http.StatusMethodNotAllowed)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		http.Error(w, "Bad Request: Mcp-Session-Id header is required", http.StatusBadRequest)
		return
	}
	s := f.live(w, id)
	if s == nil {
		return
	}
	f.drop(s, true)
	w.WriteHeader(http.StatusNoContent)
}

// serveHTTP runs the front on o.HTTP (or o.SSE) until o.Stop closes;
// with a profile's extension, both fronts and its routes (Handler).
func serveHTTP(o refserver.Options, ext *Extension) int {
	addr, legacy, path := o.HTTP, false, endpoint
	if addr == "" {
		addr, legacy, path = o.SSE, true, "/sse"
	}
	if ext != nil {
		path = ext.Paths.HTTP
		if legacy {
			path = ext.Paths.SSE
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference MCP server: address %q: %v (want host:port)\n", addr, err)
		return 2
	}
	if host == "" {
		host = "127.0.0.1" // local unless told (MCP-BIND-1)
	}
	if slices.Contains(o.Faults, "bind-all") {
		host = "0.0.0.0" // whatever it was told
	}
	if slices.Contains(o.Variants, "throwaway-listener") {
		if code := throwaway(o, net.JoinHostPort(host, port)); code != 0 {
			return code
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference MCP server: %v\n", err)
		return 1
	}
	// loopback-dual: localhost is both loopback addresses, as a server
	// listening on "localhost" binds them; the second on the same port
	// (where the machine has it: without IPv6 there is one).
	var ln6 net.Listener
	if slices.Contains(o.Variants, "loopback-dual") {
		_, p, _ := net.SplitHostPort(ln.Addr().String())
		other := "::1"
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			other = "127.0.0.1"
		}
		if ln6, err = net.Listen("tcp", net.JoinHostPort(other, p)); err != nil {
			fmt.Fprintf(o.Log, "wirecheck reference MCP server: not listening on %s too: %v\n", other, err)
			ln6 = nil
		}
	}
	var h interface {
		http.Handler
		Fatal() <-chan struct{}
		Close()
		lingerOnStop()
	}
	front := NewFront(o, legacy)
	h = front
	if ext != nil {
		h = NewHandler(o, ext)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if front.faults["header-names-exact"] {
		ln = RecordHeaderNames(srv, ln)
	}
	fmt.Fprintf(o.Log, "listening on http://%s%s\n", ln.Addr(), path)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if ln6 != nil {
		fmt.Fprintf(o.Log, "listening on http://%s%s\n", ln6.Addr(), path)
		go func() { errc <- srv.Serve(ln6) }()
	}
	code := 0
	select {
	case <-o.Stop:
	case <-h.Fatal():
		fmt.Fprintln(o.Log, "fatal: bad input")
		code = 3
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(o.Log, "wirecheck reference MCP server: %v\n", err)
			code = 1
		}
	}
	if code == 0 {
		// The core's way of ending slowly (slow-exit) or never
		// (ignore-eof) holds when SIGTERM asks it to end.
		h.lingerOnStop()
	}
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		srv.Close()
	}
	return code
}

// throwaway listens on addr without accepting, closes the listener and
// pauses (variant throwaway-listener), as a server does that checks its
// port is free by binding it, or whose framework binds twice: connections
// made meanwhile are accepted by the kernel and then reset.
func throwaway(o refserver.Options, addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference MCP server: %v\n", err)
		return 1
	}
	time.Sleep(throwawayOpen)
	ln.Close()
	time.Sleep(throwawayGap)
	return 0
}

// How long the throwaway listener is open, and the pause after it: long
// enough for a readiness check to see the port open, short enough to
// cost each launch little.
const (
	throwawayOpen = 500 * time.Millisecond
	throwawayGap  = 300 * time.Millisecond
)
