package httpserve

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

const (
	hSession = "Mcp-Session-Id"
	hVersion = "Mcp-Protocol-Version"
)

// readBody reads at most limit bytes; over is set when there were more.
func readBody(r io.Reader, limit int) (b []byte, over bool, err error) {
	b, err = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if len(b) > limit {
		keep := min(limit, transport.OversizeEvidence)
		return b[:keep], true, err
	}
	return b, false, err
}

// lists reports whether an Accept header lists the media type (or a
// wildcard covering it: */* and text/* accept an event stream).
func lists(accept, typ string) bool {
	major, _, _ := strings.Cut(typ, "/")
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt == typ || mt == "*/*" || mt == major+"/*" {
			return true
		}
	}
	return false
}

func jsonError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, msg)
}

// where names a request for a counted check's actual value.
func where(r *http.Request, what string) string { return r.Method + " " + what }

// session finds the session a request (not an initialize without an id)
// belongs to, or answers the request itself and returns nil.
func (s *Server) session(w http.ResponseWriter, r *http.Request, what string, modern bool) *Session {
	c, _ := s.sessionOf(w, r, what, modern)
	return c
}

// sessionOf is session; begun is set when the request began the session
// (the first of a sessionless client).
func (s *Server) sessionOf(w http.ResponseWriter, r *http.Request, what string, modern bool) (c *Session, begun bool) {
	s.mu.Lock()
	sessionless := s.set.Sessionless
	anon := s.anon
	s.mu.Unlock()
	// A request of a revision without sessions (its _meta names one) is
	// served without one, as is all that follows from that client.
	if sessionless || modern && r.Header.Get(hSession) == "" || anon != nil && r.Header.Get(hSession) == "" {
		if anon != nil && r.Method != http.MethodPost && !sessionless {
			w.Header().Set("Allow", "POST")
			http.Error(w, "no sessions and no standalone stream here", http.StatusMethodNotAllowed)
			return nil, false
		}
		if anon == nil && r.Method == http.MethodPost {
			anon, begun = s.newSession(false), true
		}
		if anon == nil {
			http.Error(w, "no session", http.StatusNotFound)
		}
		return anon, begun
	}
	sid := r.Header.Get(hSession)
	if sid == "" && !s.issued.Load() {
		// "If an Mcp-Session-Id is returned by the server during
		// initialization": none was, so none is owed. So goes a client
		// whose initialize was refused (a session wirecheck ended before
		// answering it gets 404) when it tries the legacy transport with
		// a GET, as the revisions' Backwards Compatibility tells it to.
		s.note("wirecheck answered 400: " + strings.TrimSpace(where(r, what)) + " without Mcp-Session-Id, before wirecheck returned the client one")
		http.Error(w, "Mcp-Session-Id required", http.StatusBadRequest)
		return nil, false
	}
	if sid == "" {
		s.mu.Lock()
		owed := len(s.notFound) > 0
		s.mu.Unlock()
		if owed {
			s.check(CheckReinitialize, verdict.Fail, "after a 404 for its session the client sent a request other than initialize without a session id", "initialize without Mcp-Session-Id", where(r, what)+" without Mcp-Session-Id")
		}
		s.check(CheckSessionID, verdict.Fail, "had no Mcp-Session-Id after initialize", "Mcp-Session-Id: the id wirecheck assigned", where(r, what)+" without Mcp-Session-Id")
		http.Error(w, "Mcp-Session-Id required", http.StatusBadRequest)
		return nil, false
	}
	c, ended := s.lookup(sid)
	if c == nil {
		if ended {
			s.mu.Lock()
			s.notFound[sid] = true
			s.mu.Unlock()
			s.note("wirecheck answered 404: session " + sid + " is over")
		} else {
			s.check(CheckSessionID, verdict.Fail, "carried an Mcp-Session-Id wirecheck never assigned", "the id wirecheck assigned", where(r, what)+" with Mcp-Session-Id: "+sid)
		}
		http.Error(w, "no such session", http.StatusNotFound)
		return nil, false
	}
	return c, false
}

// headers judges the headers a request after initialize owes: the
// session id and MCP-Protocol-Version. meta is the body's _meta revision.
func (c *Session) headers(r *http.Request, what, meta string) {
	c.mu.Lock()
	initialized, rev := c.initialized, c.revision
	if meta != "" && mcprevisions.Has(meta, revtable.RequiredMeta) {
		c.revision, rev, initialized = meta, meta, true
	}
	c.mu.Unlock()
	if !initialized {
		return
	}
	if c.ID() != "" {
		c.check(CheckSessionID, verdict.Pass, "", "", "")
	}
	if !mcprevisions.Has(rev, revtable.VersionHeader) {
		return
	}
	got, has := r.Header[http.CanonicalHeaderKey(hVersion)]
	if !has || len(got) == 0 {
		c.check(CheckVersionHeader, verdict.Fail, "had no MCP-Protocol-Version header", "MCP-Protocol-Version: "+rev, where(r, what)+" without it")
		return
	}
	if meta != "" && got[0] != meta {
		c.check(CheckVersionHeader, verdict.Fail, "had an MCP-Protocol-Version other than its _meta revision", "MCP-Protocol-Version: "+meta, where(r, what)+" with MCP-Protocol-Version: "+got[0])
		return
	}
	c.check(CheckVersionHeader, verdict.Pass, "", "", "")
	if got[0] != rev {
		c.check(CheckVersionNegotiated, verdict.Fail, "named a revision other than the negotiated one", "MCP-Protocol-Version: "+rev, where(r, what)+" with MCP-Protocol-Version: "+got[0])
		return
	}
	c.check(CheckVersionNegotiated, verdict.Pass, "", "", "")
}

// metadata judges Mcp-Method and Mcp-Name where the revision asks for
// them (request metadata, 2026-07-28).
func (c *Session) metadata(r *http.Request, what string, body []byte, m message) {
	if !m.request() || m.meta == "" || !mcprevisions.Has(m.meta, revtable.RequiredMeta) {
		return
	}
	req, ok := mcpheader.Read(body)
	if !ok {
		return
	}
	if req.Method == "tools/call" && req.HasName {
		c.params(r, req)
	}
	if got := r.Header.Get("Mcp-Method"); got != req.Method {
		c.check(CheckMetadataHeaders, verdict.Fail, "had an Mcp-Method header other than its method", "Mcp-Method: "+req.Method, where(r, what)+fmt.Sprintf(" with Mcp-Method: %q", got))
		return
	}
	if req.NameRequired() && req.HasName {
		vals, has := r.Header[http.CanonicalHeaderKey("Mcp-Name")]
		if !has || len(vals) == 0 {
			c.check(CheckMetadataHeaders, verdict.Fail, "had no Mcp-Name header", "Mcp-Name: "+req.Name, where(r, what)+" without Mcp-Name")
			return
		}
		if dec, ok := mcpheader.Decode(vals[0]); !ok || dec != req.Name {
			c.check(CheckMetadataHeaders, verdict.Fail, "had an Mcp-Name header other than its name", "Mcp-Name: "+req.Name, where(r, what)+" with Mcp-Name: "+vals[0])
			return
		}
	}
	c.check(CheckMetadataHeaders, verdict.Pass, "", "", "")
}

// sent remembers the key of a request id the client POSTed (key as
// transport.IDKey makes it), delivered to its session or not: refused
// 401 by a protection, 404 once its session ended (a client may POST a
// request and its cancellation at once, and end its session before the
// request lands).
func (s *Server) sent(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sentIDs == nil {
		s.sentIDs = map[string]bool{}
	}
	if len(s.sentIDs) < maxSent {
		s.sentIDs[key] = true
	}
}

// maxSent bounds the ids kept: a hostile client may send any number.
const maxSent = 1 << 12

// Sent reports whether the client POSTed a request with the id whose key
// (transport.IDKey) is key, whether or not its session saw it (false on
// a nil Session: not over Streamable HTTP).
func (c *Session) Sent(key string) bool {
	if c == nil {
		return false
	}
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	return c.srv.sentIDs[key]
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	body, over, err := readBody(r.Body, s.maxFrame)
	if err != nil && !over {
		http.Error(w, "body not read", http.StatusBadRequest)
		return
	}
	msgs, ok := parseBody(body)
	for _, m := range msgs {
		if m.request() {
			s.sent(m.key)
		}
	}
	what := "POST"
	if ok && len(msgs) == 1 && msgs[0].method != "" {
		what = "POST " + msgs[0].method
	}
	if lists(r.Header.Get("Accept"), "application/json") && lists(r.Header.Get("Accept"), "text/event-stream") {
		s.check(CheckAcceptPost, verdict.Pass, "", "", "")
	} else {
		s.check(CheckAcceptPost, verdict.Fail, "had no Accept listing both application/json and text/event-stream", "Accept: application/json, text/event-stream", where(r, what)+" with Accept: "+r.Header.Get("Accept"))
	}
	init := ok && len(msgs) == 1 && msgs[0].method == "initialize" && msgs[0].request()
	var c *Session
	held := false
	if init && r.Header.Get(hSession) == "" && !s.Settings().Sessionless {
		if c = s.renew(); c == nil {
			c = s.adopt()
		}
		if c == nil {
			c = s.newSession(true)
		}
		s.reinitialized()
		if c == nil {
			http.Error(w, "wirecheck takes no more sessions", http.StatusServiceUnavailable)
			return
		}
	} else {
		if init && !s.Settings().Sessionless {
			if _, ended := s.lookup(r.Header.Get(hSession)); ended {
				s.check(CheckReinitialize, verdict.Fail, "the client started its new session with the ended session's id", "initialize without Mcp-Session-Id", "initialize with Mcp-Session-Id: "+r.Header.Get(hSession))
			}
		}
		modern := ok && len(msgs) == 1 && msgs[0].meta != "" && mcprevisions.Has(msgs[0].meta, revtable.RequiredMeta)
		var begun bool
		if c, begun = s.sessionOf(w, r, what, modern); c == nil {
			return
		}
		// A client's first request a server/discover: the probe of a
		// client of 2026-07-28 and earlier revisions, which a server of
		// an earlier revision answers as it may (Session.Refuse): its
		// status is not written before the scenario says which.
		held = begun && modern && msgs[0].method == probeMethod && msgs[0].request()
	}
	n, at := c.stamp()
	via := &transport.Via{Exchange: n, Verb: http.MethodPost, ContentType: r.Header.Get("Content-Type")}
	if ok && !init {
		meta := ""
		if len(msgs) == 1 {
			meta = msgs[0].meta
			c.metadata(r, what, body, msgs[0])
		}
		c.headers(r, what, meta)
	}
	f := transport.Frame{Raw: body, At: at, HTTP: via}
	switch {
	case over:
		f.Oversize, f.Limit = true, s.maxFrame
		c.deliver(f)
		http.Error(w, "body over wirecheck's cap", http.StatusRequestEntityTooLarge)
		return
	case !ok:
		c.deliver(f)
		jsonError(w, http.StatusBadRequest, -32700, "Parse error: the body is no JSON-RPC message")
		return
	}
	x := &exchange{methods: map[string]string{}, batch: len(msgs) > 1 || bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")), ready: make(chan struct{})}
	for _, m := range msgs {
		if m.request() {
			x.methods[m.key] = m.method
			if via.For == "" {
				via.For = m.key
			}
		}
	}
	if len(x.methods) == 0 {
		c.mu.Lock()
		for _, m := range msgs {
			if m.response() {
				c.answered(m.key)
			}
		}
		c.mu.Unlock()
		c.deliver(f)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	c.mu.Lock()
	for k := range x.methods {
		if c.open[k] != nil {
			c.mu.Unlock()
			c.deliver(f)
			jsonError(w, http.StatusBadRequest, -32600, "Invalid Request: id "+k+" is already open")
			return
		}
	}
	if c.ended {
		c.mu.Unlock()
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	for k := range x.methods {
		c.open[k] = x
	}
	x.json = c.set.JSON
	if held {
		x.held, x.json = true, true
		c.mu.Unlock()
		c.deliver(f)
		s.answerHeld(w, r, c, x)
		return
	}
	if x.json {
		c.mu.Unlock()
		c.deliver(f)
		s.answerJSON(w, r, c, x, init)
		return
	}
	st := c.newStream(false)
	x.stream = st
	k := newSink(w)
	streamHeaders(w)
	if init && c.ID() != "" {
		w.Header().Set(hSession, c.ID())
		s.issued.Store(true)
	}
	w.WriteHeader(http.StatusOK)
	st.attach(k, st.prime(c.primeRetry()))
	drop := ""
	if !init && len(msgs) == 1 && c.set.DropCall == msgs[0].method && !c.dropped && st.lastID != "" && st.sink != nil {
		c.dropped = true
		st.drop(c.set.Retry)
		drop = fmt.Sprintf("wirecheck broke the SSE stream of request %s (%s) after its priming event %s, before the response; the client should resume it", msgs[0].key, msgs[0].method, st.lastID)
	} else {
		c.flushWaiting()
	}
	c.mu.Unlock()
	if drop != "" {
		c.note(drop)
	}
	c.deliver(f)
	c.hold(r, st, k)
}

// primeRetry is the retry a new stream's priming event carries; c.mu
// held. A stream is primed when a retry is set or the revision primes.
func (c *Session) primeRetry() time.Duration { return c.set.Retry }

// answerJSON waits for the exchange's responses and writes them as one
// application/json body.
func (s *Server) answerJSON(w http.ResponseWriter, r *http.Request, c *Session, x *exchange, init bool) {
	select {
	case <-x.ready:
	case <-r.Context().Done():
	case <-s.done:
	}
	c.mu.Lock()
	out := x.out
	for k := range x.methods {
		if c.open[k] == x {
			delete(c.open, k)
		}
	}
	c.mu.Unlock()
	if len(out) == 0 {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if init && c.ID() != "" {
		w.Header().Set(hSession, c.ID())
		s.issued.Store(true)
	}
	w.WriteHeader(http.StatusOK)
	if x.batch {
		_, _ = w.Write([]byte("["))
		_, _ = w.Write(bytes.Join(out, []byte(",")))
		_, _ = w.Write([]byte("]"))
		return
	}
	_, _ = w.Write(out[0])
}

// hold keeps a stream's response open until the stream ends, is dropped,
// or the client or the listener goes.
func (c *Session) hold(r *http.Request, st *stream, k *sink) {
	c.srv.streaming.Add(1)
	defer c.srv.streaming.Add(-1)
	select {
	case <-k.gone:
	case <-r.Context().Done():
	case <-c.srv.done:
	}
	c.mu.Lock()
	if st.sink == k {
		st.sink = nil
	}
	k.close()
	c.mu.Unlock()
}

// reinitialized: a new initialize without a session id after a 404 is
// the new session the client owed.
func (s *Server) reinitialized() {
	s.mu.Lock()
	owed := len(s.notFound) > 0
	clear(s.notFound)
	s.mu.Unlock()
	if owed {
		s.check(CheckReinitialize, verdict.Pass, "", "", "")
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if lists(r.Header.Get("Accept"), "text/event-stream") {
		s.check(CheckAcceptGet, verdict.Pass, "", "", "")
	} else {
		s.check(CheckAcceptGet, verdict.Fail, "had no Accept listing text/event-stream", "Accept: text/event-stream", where(r, "")+"with Accept: "+r.Header.Get("Accept"))
	}
	c := s.session(w, r, "", false)
	if c == nil {
		return
	}
	c.headers(r, "GET", "")
	lastID := r.Header.Get("Last-Event-ID")
	c.mu.Lock()
	var st *stream
	if lastID != "" {
		id, _, _ := strings.Cut(lastID, "-")
		if old := c.streams[id]; old != nil && old.sink == nil && old.ids {
			st = old
		}
	}
	if st == nil && c.set.NoGet {
		c.mu.Unlock()
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "no standalone stream here", http.StatusMethodNotAllowed)
		return
	}
	var judged []func()
	text := ""
	if st != nil {
		if st.awaitingResume {
			waited, retry := time.Since(st.droppedAt), st.retry
			judged = append(judged, func() { c.check(CheckResumes, verdict.Pass, "", "", "") })
			if retry > 0 {
				judged = append(judged, func() {
					if waited >= retry {
						c.check(CheckRetry, verdict.Pass, "", "", "")
					} else {
						c.check(CheckRetry, verdict.Fail, "the client reconnected sooner than the retry field asked", fmt.Sprintf("at least %d ms after the stream broke", retry.Milliseconds()), fmt.Sprintf("GET with Last-Event-ID %s after %d ms", lastID, waited.Milliseconds()))
					}
				})
			}
			st.awaitingResume = false
		}
		text = st.replay(lastID)
	} else {
		st = c.newStream(true)
		text = st.prime(c.set.Retry)
	}
	k := newSink(w)
	streamHeaders(w)
	w.WriteHeader(http.StatusOK)
	st.attach(k, text)
	if st.ended {
		st.end()
	}
	c.flushWaiting()
	c.mu.Unlock()
	for _, j := range judged {
		j()
	}
	c.hold(r, st, k)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	c := s.session(w, r, "", false)
	if c == nil {
		return
	}
	c.headers(r, "DELETE", "")
	if c.Settings().NoDelete {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "sessions are not ended by the client here", http.StatusMethodNotAllowed)
		return
	}
	if c.ID() != "" {
		c.check(CheckDelete, verdict.Pass, "", "", "")
	}
	c.judgeUnresumed()
	c.end(true)
	w.WriteHeader(http.StatusOK)
}

// judgeUnresumed fails CheckResumes for every stream wirecheck broke
// that the client never resumed, now that the session is over.
func (c *Session) judgeUnresumed() {
	c.mu.Lock()
	var missed []string
	for _, st := range c.streams {
		if st.awaitingResume {
			missed = append(missed, st.lastID)
			st.awaitingResume = false
		}
	}
	c.mu.Unlock()
	for _, id := range missed {
		c.check(CheckResumes, verdict.Fail, "the client never resumed a stream wirecheck broke before its response", "GET with Last-Event-ID: "+id, "no such GET before the session ended")
	}
}
