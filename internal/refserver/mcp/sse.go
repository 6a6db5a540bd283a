package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// sseOut writes the events of one SSE response.
type sseOut struct {
	w         http.ResponseWriter
	multiline bool
}

func (o sseOut) flush() {
	if fl, ok := o.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// event writes one event; data is split over several data: lines with the
// variant multiline-data (the client joins them with a line feed, which is
// JSON whitespace).
func (o sseOut) event(id, typ string, retry int, data []byte) {
	var b bytes.Buffer
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	if typ != "" {
		b.WriteString("event: " + typ + "\n")
	}
	if retry > 0 {
		b.WriteString("retry: " + strconv.Itoa(retry) + "\n")
	}
	lines := []string{string(data)}
	if o.multiline && len(data) > 0 {
		var ind bytes.Buffer
		if json.Indent(&ind, data, "", " ") == nil {
			lines = strings.Split(ind.String(), "\n")
		}
	}
	for _, l := range lines {
		b.WriteString("data: " + l + "\n")
	}
	b.WriteString("\n")
	o.w.Write(b.Bytes())
	o.flush()
}

func (o sseOut) comment(text string) {
	io.WriteString(o.w, ": "+text+"\n\n")
	o.flush()
}

// startSSE sends the headers of an SSE response.
func (f *Front) startSSE(w http.ResponseWriter, s *session) sseOut {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if !f.faults["no-xaccel"] {
		h.Set("X-Accel-Buffering", "no")
	}
	w.WriteHeader(http.StatusOK)
	out := sseOut{w: w, multiline: f.variants["multiline-data"]}
	out.flush()
	return out
}

// ids reports whether the server numbers its events (and keeps them for
// replay).
func (f *Front) ids() bool {
	return f.variants["resumable"] || f.variants["polling"] || f.faults["event-id-per-stream"] || f.faults["resume-all-streams"]
}

// record numbers one event of ex and keeps it for replay. Called with s.mu
// held.
func (s *session) record(ex *exchange, data []byte, numbered bool) event {
	ex.seq++
	ev := event{seq: ex.seq, data: data}
	if numbered {
		ev.id = strconv.Itoa(ex.num) + "-" + strconv.Itoa(ex.seq)
		if s.f.faults["event-id-per-stream"] {
			ev.id = strconv.Itoa(ex.seq)
		}
	}
	if s.f.ids() {
		ex.log = append(ex.log, ev)
		if len(ex.log) > queueCap {
			ex.log = ex.log[1:]
		}
	}
	return ev
}

// emit writes one message of ex as an event.
func (s *session) emit(out sseOut, ex *exchange, line []byte) {
	s.mu.Lock()
	ev := s.record(ex, line, s.f.ids())
	s.mu.Unlock()
	out.event(ev.id, "message", 0, line)
}

// prime opens a stream as its revision asks: 2025-11-25 sends an event id
// and an empty data field first, with a retry. It returns false when the
// connection is to close now (the variant polling closes it before the
// answer).
func (f *Front) prime(out sseOut, s *session, ex *exchange) bool {
	if f.faults["sse-data-not-json"] {
		out.event("", "message", 0, []byte("ok"))
	}
	v := s.ver()
	if !mcprevisions.Has(v, revtable.PrimingEvents) || f.faults["sse-no-priming"] {
		return true
	}
	retry := 1000
	if f.variants["polling"] {
		retry = 50
	}
	s.mu.Lock()
	ev := s.record(ex, nil, true)
	s.mu.Unlock()
	out.event(ev.id, "", retry, nil)
	return !f.variants["polling"] || ex.get || ex.finished
}

// finish marks ex answered.
func (s *session) finish(ex *exchange) {
	s.mu.Lock()
	ex.finished = true
	s.mu.Unlock()
}

// pump writes ex's messages until its response (true), or until the client
// or the session goes (false). A GET stream has no response.
func (s *session) pump(ctx context.Context, out sseOut, ex *exchange) bool {
	s.mu.Lock()
	ex.live = true
	s.mu.Unlock()
	var tick <-chan time.Time
	if s.f.variants["keepalive-comments"] {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case line := <-ex.ch:
			s.emit(out, ex, line)
			if !ex.get && isResponse(line) {
				s.finish(ex)
				s.linger(ctx, out, tick)
				return true
			}
		case <-tick:
			out.comment("keepalive")
		case <-ctx.Done():
			return false
		case <-s.quit:
			return false
		}
	}
}

// linger keeps a stream open after its response (fault sse-stays-open)
// until the client or the session goes, with its keep-alive comments.
func (s *session) linger(ctx context.Context, out sseOut, tick <-chan time.Time) {
	if !s.f.faults["sse-stays-open"] {
		return
	}
	if tick == nil && s.f.variants["keepalive-comments"] {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			out.comment("keepalive")
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		}
	}
}

// resume answers a GET with Last-Event-ID: the events of that stream after
// the id, then the rest of the stream (variants resumable and polling).
func (f *Front) resume(w http.ResponseWriter, r *http.Request, s *session, last string) {
	s.mu.Lock()
	var ex *exchange
	at := 0
	for n := s.nstream; n > 0 && ex == nil; n-- {
		if s.streams[n] == nil {
			continue
		}
		for _, ev := range s.streams[n].log {
			if ev.id == last {
				ex, at = s.streams[n], ev.seq
				break
			}
		}
	}
	if ex == nil || ex.live {
		s.mu.Unlock()
		http.Error(w, "Bad Request: no stream to resume from event "+last, http.StatusBadRequest)
		return
	}
	ex.live = true
	if ex.get {
		s.getLive = true
	}
	var foreign, replay []event
	for n := 1; n <= s.nstream; n++ {
		if o := s.streams[n]; o != nil && o != ex && f.faults["resume-all-streams"] {
			foreign = append(foreign, o.log...)
		}
	}
	for _, ev := range ex.log {
		if ev.seq > at {
			replay = append(replay, ev)
		}
	}
	finished := ex.finished
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ex.live = false
		if ex.get {
			s.getLive = false
		}
		s.mu.Unlock()
	}()
	out := f.startSSE(w, s)
	// Another stream's answers leak first (resume-all-streams); only this
	// stream's own answer finishes it.
	for _, ev := range foreign {
		out.event(ev.id, "message", 0, ev.data)
	}
	for _, ev := range replay {
		out.event(ev.id, "message", 0, ev.data)
		if !ex.get && isResponse(ev.data) {
			finished = true
		}
	}
	if finished {
		s.finish(ex)
		return
	}
	if !s.pump(r.Context(), out, ex) {
		s.gone(ex)
	}
}

// sseOne answers a POST with a stream of one message (a batch's answer,
// variant batch-sse).
func (f *Front) sseOne(w http.ResponseWriter, s *session, line []byte) {
	f.sseEach(w, s, [][]byte{line})
}

// sseEach answers a POST with a stream of one event per message (a
// batch's responses one by one, variant batch-sse-events).
func (f *Front) sseEach(w http.ResponseWriter, s *session, lines [][]byte) {
	out := f.startSSE(w, s)
	ex := &exchange{}
	f.prime(out, s, ex)
	for _, line := range lines {
		out.event("", "message", 0, bytes.TrimSpace(line))
	}
}

// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream,
// whose first event names the endpoint to POST to; every message of the
// server is a message event on that stream.

func (f *Front) serveLegacy(w http.ResponseWriter, r *http.Request) {
	stream, post := f.path(), f.messagePath()
	switch r.URL.Path {
	case stream, post:
	default:
		if !f.wellKnown(w, r) {
			http.NotFound(w, r)
		}
		return
	}
	if !f.originOK(w, r) || !f.authorized(w, r) {
		return
	}
	switch {
	case r.URL.Path == stream && r.Method == http.MethodGet:
		f.legacyStream(w, r)
	case r.URL.Path == post && r.Method == http.MethodPost:
		f.legacyPost(w, r)
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// messagePath is where the legacy transport's POSTs go.
func (f *Front) messagePath() string {
	if f.ext != nil {
		return f.ext.Paths.Message
	}
	return "/message"
}

func (f *Front) legacyStream(w http.ResponseWriter, r *http.Request) {
	if f.faults["sse-get-json"] {
		f.writeJSON(w, http.StatusOK, []byte(`{}`))
		return
	}
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		http.Error(w, "Service Unavailable: the server is stopping", http.StatusServiceUnavailable)
		return
	}
	s := f.newSession("")
	f.mu.Lock()
	f.sessions[s.id] = s
	f.mu.Unlock()
	defer f.drop(s, false)
	out := f.startSSE(w, s)
	if !f.faults["sse-no-endpoint"] {
		uri := f.messagePath() + "?sessionId=" + s.id
		switch {
		case f.faults["endpoint-foreign-origin"]:
			_, port, _ := net.SplitHostPort(r.Host)
			uri = "http://" + net.JoinHostPort("127.0.0.2", port) + uri
		case f.variants["endpoint-absolute"]:
			uri = "http://" + r.Host + uri
		}
		out.event("", "endpoint", 0, []byte(uri))
	}
	if f.faults["sse-data-not-json"] {
		// The legacy stream is the session's only one: its messages go
		// there, so the fault's bad event does too (MCP-SSE-4).
		out.event("", "message", 0, []byte("ok"))
	}
	s.mu.Lock()
	s.getLive = true
	s.mu.Unlock()
	s.pump(r.Context(), out, s.get)
}

func (f *Front) legacyPost(w http.ResponseWriter, r *http.Request) {
	s := f.live(w, r.URL.Query().Get("sessionId"))
	if s == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "Bad Request: body unreadable or over 4 MiB", http.StatusBadRequest)
		return
	}
	msg := readMessage(body)
	if !f.before(w, r, msg) {
		return
	}
	if msg.kind == "raw" && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		// Bad input is refused in the POST's answer, the core's error
		// (if it gives one) its body.
		got, ok := s.take(r.Context().Done(), msg.line)
		switch {
		case !ok:
			http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		case len(got) > 0:
			f.writeJSON(w, http.StatusBadRequest, got[0])
		default:
			http.Error(w, "Bad Request: not a JSON-RPC message", http.StatusBadRequest)
		}
		return
	}
	if f.faults["sse-batch-refused"] && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		http.Error(w, "Bad Request: batches are not supported", http.StatusBadRequest)
		return
	}
	var ex *exchange
	if msg.kind == "request" && f.faults["response-in-post-body"] {
		ex = s.open(msg.key, msg.method, msg.token)
	}
	if _, ok := s.feed(r.Context().Done(), msg.line, ex); !ok {
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	switch {
	case ex != nil:
		select {
		case line := <-ex.ch:
			f.writeJSON(w, http.StatusOK, line)
		case <-r.Context().Done():
		case <-s.quit:
		}
	case msg.kind == "raw" && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		// Bad input is refused; the core's error (if it gives one) is a
		// message like any other, on the stream.
		http.Error(w, "Bad Request: not a JSON-RPC message", http.StatusBadRequest)
	case f.faults["sse-post-500"]:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// legacyRoute is where a legacy session's core output goes: the response
// a POST waits for (fault response-in-post-body), else the stream. Called
// with s.mu held.
func (s *session) legacyRoute(line []byte) {
	if s.f.variants["legacy-bad-input-plain-400"] && isResponse(line) && nullID(line) {
		// Its POST's plain-text 400 was the only answer.
		return
	}
	if s.f.variants["legacy-bad-input-json-400"] && isResponse(line) && nullID(line) && s.current != nil && !s.current.closed {
		// The error is its POST's 400 body (legacyPost takes it).
		s.send(s.current, line)
		return
	}
	if isResponse(line) {
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) == nil {
			if ex := s.byKey[string(bytes.TrimSpace(m["id"]))]; ex != nil && !ex.closed {
				s.send(ex, line)
				s.closeEx(ex)
				return
			}
		}
	}
	s.send(s.get, line)
}

// nullID reports whether a message's id is null or absent: the core's
// error for input it could not read.
func nullID(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	id := bytes.TrimSpace(m["id"])
	return len(id) == 0 || string(id) == "null"
}
