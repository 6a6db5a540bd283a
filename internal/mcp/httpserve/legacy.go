package httpserve

import (
	"net/http"
	"net/url"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// The legacy HTTP+SSE transport (2024-11-05 basic/transports, HTTP with
// SSE): GET on the endpoint opens the session's one event stream, whose
// first event, `endpoint`, names where the client POSTs; every message of
// wirecheck's is a `message` event on that stream, and each POST is
// answered 202 at once.

// messagePath is where a legacy session's POSTs go, under the SSE path.
func (s *Server) messagePath() string { return s.path + "/message" }

func (s *Server) serveLegacy(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == s.path && r.Method == http.MethodGet:
		s.legacyStream(w, r)
	case r.URL.Path == s.messagePath() && r.Method == http.MethodPost:
		s.legacyPost(w, r)
	case r.URL.Path == s.path || r.URL.Path == s.messagePath():
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	default:
		http.Error(w, "not an MCP endpoint", http.StatusNotFound)
	}
}

func (s *Server) legacyStream(w http.ResponseWriter, r *http.Request) {
	k := newSink(w)
	c := s.newSessionWith(func(c *Session) {
		st := &stream{id: "s0", legacy: true}
		c.legacyStream = st
		streamHeaders(w)
		w.WriteHeader(http.StatusOK)
		endpoint := s.messagePath() + "?session=" + url.QueryEscape(c.ID())
		st.attach(k, "event: endpoint\ndata: "+endpoint+"\n\n")
	})
	if c == nil {
		http.Error(w, "wirecheck takes no more sessions", http.StatusServiceUnavailable)
		return
	}
	c.hold(r, c.legacyStream, k)
	// The stream is the session: once it is gone, so is the client.
	c.end(true)
}

func (s *Server) legacyPost(w http.ResponseWriter, r *http.Request) {
	c, _ := s.lookup(r.URL.Query().Get("session"))
	if c == nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	body, over, err := readBody(r.Body, s.maxFrame)
	if err != nil && !over {
		http.Error(w, "body not read", http.StatusBadRequest)
		return
	}
	n, at := c.stamp()
	f := transport.Frame{Raw: body, At: at, HTTP: &transport.Via{Exchange: n, Verb: http.MethodPost, ContentType: r.Header.Get("Content-Type")}}
	if over {
		f.Oversize, f.Limit = true, s.maxFrame
		c.deliver(f)
		http.Error(w, "body over wirecheck's cap", http.StatusRequestEntityTooLarge)
		return
	}
	if ms, ok := parseBody(body); ok && len(ms) == 1 && ms[0].request() {
		f.HTTP.For = ms[0].key
	}
	c.deliver(f)
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("Accepted"))
}
