package httpmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Exchange sends one probe: the session's headers, x.Set and x.Drop
// applied, bounded by Timeout from the start like every exchange, and
// cancelled by Close. Its frames never enter Recv. A URL beyond loopback
// named by a launched server is not sent: the error is then a
// *transport.OffLoopback (guard).
func (c *client) Exchange(ctx context.Context, x Exchange) (*Result, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	c.mu.Lock()
	u := c.endpoint
	if c.o.Kind == KindSSE && c.post != nil && x.Method == http.MethodPost {
		u = c.post
	}
	c.mu.Unlock()
	if x.URL != "" {
		ref, err := url.Parse(x.URL)
		if err != nil {
			return nil, fmt.Errorf("probe URL %q: %w", x.URL, err)
		}
		u = u.ResolveReference(ref)
	}
	method := x.Method
	if method == "" {
		method = http.MethodGet
		if x.Body != nil {
			method = http.MethodPost
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	req := c.request(ctx, method, u, x.Body)
	if x.URL != "" && method == http.MethodGet {
		req.Header.Set("Accept", "application/json")
	}
	for _, d := range x.Drop {
		for k := range req.Header {
			if strings.EqualFold(k, d) {
				delete(req.Header, k)
			}
		}
	}
	for k, v := range x.Set {
		for have := range req.Header {
			if strings.EqualFold(have, k) {
				delete(req.Header, have)
			}
		}
		req.Header[k] = []string{v} // the name as given, case kept
	}
	n := c.nextExchange()
	if method == http.MethodPost && x.Body != nil {
		// Its answer is the probe's own: a copy on the GET stream is no
		// stray.
		c.owe(x.Body, classify(x.Body), true, n)
	}
	resp, err := c.hc.Do(req)
	if off := (*transport.OffLoopback)(nil); errors.As(err, &off) {
		return nil, off
	}
	if err != nil {
		return nil, errors.New(failure(err, c.o.Timeout))
	}
	defer resp.Body.Close()
	c.noteResponse(n, method+" (probe)", resp)
	res := &Result{Status: resp.StatusCode, Header: resp.Header}
	if mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		// Within the budget of frames being read: every HTTP scenario
		// probes, and a server answering each with a gigabyte would
		// otherwise cost the cap per probe, lanes at once.
		b, _, over, release, err := transport.ReadFrame(resp.Body, c.o.MaxFrame, ctx.Done())
		release()
		res.Body = b
		if !over {
			res.Frames = messagesIn(b, resp.Header.Get("Content-Type"))
		}
		res.Closed = err == nil && !over
		return res, nil
	}
	if x.HeadersOnly {
		return res, nil // the deferred Close ends the stream unread
	}
	r := c.sseReader(resp)
	defer r.Close()
	until := x.Until
	if until == nil {
		until = answeredAll(x.Body)
	}
	for {
		ev, err := r.Next()
		if err != nil {
			res.Closed = errors.Is(err, io.EOF)
			return res, nil
		}
		res.Events = append(res.Events, ev)
		if strings.TrimSpace(ev.Data) != "" {
			res.Frames = append(res.Frames, []byte(ev.Data))
		}
		if until(ev) {
			return res, nil
		}
	}
}

// answeredAll is a probe's default end of an SSE answer: once every
// request of body has its response. A batch may be answered on one
// stream, one response an event (2025-03-26 basic/transports: "The SSE
// stream SHOULD eventually include one JSON-RPC response per each
// JSON-RPC request sent in the POST body"), so the first response is not
// the end. A body with no request (bad input) ends at the first response,
// and so does an error without id: the server could not tell what it
// refused, so no other answer is owed that a wait would bring.
func answeredAll(body []byte) func(sse.Event) bool {
	left := map[string]bool{}
	for _, k := range classify(body).keys {
		left[k] = true
	}
	return func(ev sse.Event) bool {
		seen := false
		for _, m := range parseMessages([]byte(ev.Data)) {
			if !m.response {
				continue
			}
			seen = true
			if m.isError && (!m.hasID || m.key == "null") {
				return true
			}
			delete(left, m.key)
		}
		return seen && len(left) == 0
	}
}
