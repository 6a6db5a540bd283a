package httpserve

import (
	"net/http"
)

// A client of 2026-07-28 that also speaks an earlier revision may open
// with a request of 2026-07-28 to learn the server's era (2026-07-28
// basic/transports/streamable-http, Backward Compatibility), commonly
// server/discover. wirecheck playing a server of an earlier revision
// answers it as such a server may: a 400, or an error in a 200
// (Refuse). Its initialize then goes on in the session the probe began,
// the one connection the engine has for the client (adopt).

// probeMethod is the request a client probes with whose answer is held
// until the scenario refuses or answers it. Other first requests are
// answered at once: a stream may carry events before its response, and
// holding its headers would change what a client of 2026-07-28 sees.
const probeMethod = "server/discover"

// Refusal is an HTTP answer other than a JSON-RPC response in a 200: a
// status, and a body of its type (none when Body is empty).
type Refusal struct {
	Status      int
	ContentType string
	Body        []byte
}

// Refuse answers the held request keyed key (a client's first request, a
// server/discover probe) with r instead of a response; false when that
// request is not held (its answer's status is written already).
func (c *Session) Refuse(key string, r Refusal) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	x := c.open[key]
	if x == nil || !x.held {
		return false
	}
	delete(c.open, key)
	delete(x.methods, key)
	x.refusal = &r
	x.finish()
	return true
}

// answerHeld waits for the held request's answer: a refusal, or the
// response, written as the settings say (an application/json body or an
// SSE stream carrying it).
func (s *Server) answerHeld(w http.ResponseWriter, r *http.Request, c *Session, x *exchange) {
	select {
	case <-x.ready:
	case <-r.Context().Done():
	case <-s.done:
	}
	c.mu.Lock()
	out, refusal, asJSON := x.out, x.refusal, c.set.JSON
	for k := range x.methods {
		if c.open[k] == x {
			delete(c.open, k)
		}
	}
	if refusal == nil && len(out) > 0 && !asJSON {
		st := c.newStream(false)
		k := newSink(w)
		streamHeaders(w)
		w.WriteHeader(http.StatusOK)
		st.attach(k, st.prime(c.primeRetry()))
		for _, m := range out {
			_ = st.event(m)
		}
		st.end()
		delete(c.streams, st.id)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	switch {
	case refusal != nil:
		if refusal.ContentType != "" {
			w.Header().Set("Content-Type", refusal.ContentType)
		}
		w.WriteHeader(refusal.Status)
		_, _ = w.Write(refusal.Body)
	case len(out) == 0:
		http.Error(w, "no such session", http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out[0])
	}
}

// adopt gives the sessionless session an id for the client's initialize
// without one: a client that probed, was answered as by a server of an
// earlier revision and falls back to initialize goes on in the
// connection its probe began. nil when there is none.
func (s *Server) adopt() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.anon
	if c == nil || s.closed {
		return nil
	}
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil
	}
	s.nsession++
	c.setID(sessionID(s.nsession))
	c.initialized = false
	c.mu.Unlock()
	s.anon = nil
	delete(s.sessions, "")
	s.sessions[c.ID()] = c
	return c
}
