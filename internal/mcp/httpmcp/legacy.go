package httpmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The legacy HTTP+SSE transport (2024-11-05): one GET stream carries the
// server's messages; its first event names the URI the client POSTs to.

// legacySend POSTs one message to the endpoint the stream named, once it
// did; a request waits for its response on the stream.
func (c *client) legacySend(body []byte, out outgoing, raw bool) error {
	c.openLegacy()
	select {
	case <-c.endpointSet:
	case <-c.ctx.Done():
		return ErrClosed
	}
	x := &exchange{c: c, n: c.nextExchange(), body: body, out: out, raw: raw, headers: make(chan struct{})}
	c.mu.Lock()
	why, post, overCap := c.endedWhy, c.post, c.endedOverCap
	if why == "" {
		for _, k := range out.keys {
			c.pending[k] = true
		}
	}
	c.mu.Unlock()
	if why != "" {
		x.cancel = func() {}
		// Ended by wirecheck's cap, the session judges nothing more.
		x.endAs(nil, why, false, overCap)
		if x.wantsAnswer() {
			return nil
		}
		return errors.New("the SSE session has ended: " + why)
	}
	return c.launch(x, func() { x.legacyPost(post) })
}

// openLegacy opens the stream once, on the first send or Started.
func (c *client) openLegacy() {
	c.legacyOnce.Do(func() {
		ctx, cancel := context.WithCancel(c.ctx)
		c.mu.Lock()
		c.legacyCancel = cancel
		c.mu.Unlock()
		if !c.start(func() { defer cancel(); c.legacyStream(ctx) }) {
			cancel()
			c.endpointOnce.Do(func() { close(c.endpointSet) })
		}
	})
}

// Started waits until the session can begin, and says why not when it
// cannot: over the legacy transport, until the stream named the endpoint
// to POST to (at most --timeout, the stream's own bound). A stream that
// fails first (answered with no event stream, or no endpoint event) is a
// server that never started, not one whose every scenario errs. Streamable
// HTTP begins with the first POST, so nothing is awaited there.
func (c *client) Started() error {
	if c.o.Kind != KindSSE {
		return nil
	}
	c.openLegacy()
	select {
	case <-c.endpointSet:
	case <-c.ctx.Done():
		return ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.post != nil:
		return nil
	case c.endedWhy != "":
		return errors.New(c.endedWhy)
	}
	return ErrClosed
}

func (c *client) endpointKnown() {
	c.endpointOnce.Do(func() { close(c.endpointSet) })
}

// legacyEnd ends the session: no more POSTs, and every request still
// waiting ends now rather than at its timeout.
func (c *client) legacyEnd(why string) { c.legacyEndAs(why, false) }

// legacyEndAs is legacyEnd, saying whether an event over wirecheck's cap
// ended the stream (Via.OverCap).
func (c *client) legacyEndAs(why string, overCap bool) {
	c.mu.Lock()
	if c.endedWhy == "" {
		c.endedWhy, c.endedOverCap = why, overCap
	}
	keys := make([]string, 0, len(c.pending))
	for k := range c.pending {
		keys = append(keys, k)
	}
	clear(c.pending)
	c.mu.Unlock()
	c.endpointKnown()
	if c.closed.Load() {
		return
	}
	for _, k := range keys {
		c.q.Offer(nil, transport.Frame{HTTP: &transport.Via{Verb: http.MethodGet, For: k, End: why, OverCap: overCap}})
	}
}

func (c *client) legacyStop() {
	c.mu.Lock()
	cancel := c.legacyCancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// legacyPost sends one message and judges the POST's answer: a 2xx, and
// no message in its body (they belong on the stream).
func (x *exchange) legacyPost(post *url.URL) {
	c := x.c
	defer x.gotHeaders()
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	x.cancel = cancel
	resp, err := c.hc.Do(c.request(ctx, http.MethodPost, post, x.body))
	x.gotHeaders()
	if err != nil {
		x.legacyEnd(nil, failure(err, c.o.Timeout))
		return
	}
	defer resp.Body.Close()
	c.noteResponse(x.n, http.MethodPost, resp)
	b, _, _, release, _ := x.readBody(resp, c.o.MaxFrame)
	defer release()
	if c.closed.Load() {
		return
	}
	switch {
	case !valid(x.out, x.body):
		// A body that is no JSON-RPC message (the bad-input scenarios' on
		// purpose) may be refused: BADBODY-1 judges its answer, not this.
	case resp.StatusCode/100 == 2:
		c.pass(CheckSSEPostAccepted, fmt.Sprintf("POST to the endpoint answered HTTP %d", resp.StatusCode))
	case authRefusal(resp):
		// Authorization's answer, not the transport's: see legacyStream.
	default:
		c.fail(CheckSSEPostAccepted, fmt.Sprintf("a valid message POSTed to the endpoint was answered HTTP %d", resp.StatusCode),
			"a 2xx status", answered(resp, b))
	}
	// A body that is no JSON-RPC message may be refused with a 4xx: the
	// 2024-11-05 page says nothing of such a POST, so a JSON-RPC error in
	// the refusal is its body (as later revisions allow it), not a server
	// message that missed the stream.
	refusal := !valid(x.out, x.body) && resp.StatusCode/100 == 4
	got := false
	for _, f := range messagesIn(b, resp.Header.Get("Content-Type")) {
		if len(parseMessages(f)) == 0 {
			continue
		}
		if !refusal {
			c.fail(CheckSSEMessageEvent, "a JSON-RPC message came in the POST's HTTP response body, not as an SSE message event",
				"server messages as SSE message events on the stream", answered(resp, b))
		}
		for _, m := range x.deliver(f, resp, http.MethodPost, false, "") {
			if x.answers(m) {
				got = true
				c.answered(m.key)
			}
		}
	}
	if resp.StatusCode/100 != 2 && !got {
		x.legacyEnd(resp, answered(resp, b)+c.authHint(resp))
	}
}

// legacyEnd ends this exchange's requests without an answer.
func (x *exchange) legacyEnd(resp *http.Response, why string) {
	x.end(resp, why)
	x.c.mu.Lock()
	for _, k := range x.out.keys {
		delete(x.c.pending, k)
	}
	x.c.mu.Unlock()
}

func (c *client) answered(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

// legacyStream opens the stream, waits for the endpoint event at most
// Timeout, and delivers the server's messages.
func (c *client) legacyStream(ctx context.Context) {
	n := c.nextExchange()
	u := c.endpoint
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := time.AfterFunc(c.o.Timeout, func() {
		c.mu.Lock()
		known := c.post != nil
		c.mu.Unlock()
		if !known {
			c.fail(CheckSSEEndpoint, fmt.Sprintf("no endpoint event within %v (--timeout) of the stream opening", c.o.Timeout),
				"an endpoint event first", "none")
			c.legacyEnd(fmt.Sprintf("the SSE stream sent no endpoint event within %v", c.o.Timeout))
			cancel()
		}
	})
	defer timer.Stop()
	resp, err := c.hc.Do(c.request(ctx, http.MethodGet, u, nil))
	if err != nil {
		c.legacyEnd("the SSE stream could not be opened: " + failure(err, c.o.Timeout))
		return
	}
	defer resp.Body.Close()
	c.noteResponse(n, http.MethodGet, resp)
	if resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, evidence+1))
		// Refused by authorization, the stream was not the server's to
		// open: the run lacks credentials, the server breaks nothing.
		if !authRefusal(resp) {
			c.fail(CheckSSEStream, "GET on the SSE endpoint did not open an event stream",
				"HTTP 2xx, Content-Type: text/event-stream", answered(resp, b))
		}
		c.legacyEnd("the SSE stream's GET was answered " + answered(resp, b) + c.authHint(resp))
		return
	}
	c.pass(CheckSSEStream, "GET on the SSE endpoint opened an event stream")
	x := &exchange{c: c, n: n, out: outgoing{kind: kindNotification}}
	r := c.sseReader(resp)
	defer r.Close()
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				c.overCap([]byte(ev.Data), x.streamVia(resp, http.MethodGet, ""))
				c.legacyEndAs("the SSE stream stopped at an event over wirecheck's --max-frame "+transport.SizeString(c.o.MaxFrame), true)
				return
			}
			why := "the SSE stream ended"
			if !errors.Is(err, io.EOF) {
				why = "the SSE stream broke: " + err.Error()
			}
			c.legacyEnd(why)
			return
		}
		if ev.Type == "endpoint" {
			if !c.legacyEndpoint(ev.Data, u) {
				return
			}
			continue
		}
		if strings.TrimSpace(ev.Data) == "" {
			continue
		}
		raw := []byte(ev.Data)
		msgs := parseMessages(raw)
		ok := len(msgs) > 0
		switch {
		case ok && ev.Type != "" && ev.Type != "message":
			c.fail(CheckSSEMessageEvent, fmt.Sprintf("a JSON-RPC message came in an SSE event of type %q, not message", ev.Type),
				"server messages as SSE message events", fmt.Sprintf("event: %s, data %s", ev.Type, quote([]byte(ev.Data))))
		case ok:
			c.pass(CheckSSEMessageEvent, "a server message came as an SSE message event")
		case ev.Type != "" && ev.Type != "message":
			c.note(fmt.Sprintf("SSE event of type %q ignored: %s", ev.Type, quote([]byte(ev.Data))))
			continue
		}
		for _, m := range x.deliverParsed(raw, msgs, resp, http.MethodGet, true, ev.ID) {
			if m.response {
				c.answered(m.key)
			}
		}
	}
}

// legacyEndpoint judges the endpoint event and learns where to POST; it
// reports whether the session goes on.
func (c *client) legacyEndpoint(data string, stream *url.URL) bool {
	c.mu.Lock()
	known := c.post != nil
	c.mu.Unlock()
	if known {
		c.note("a second endpoint event ignored: " + quote([]byte(data)))
		return true
	}
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil || strings.TrimSpace(data) == "" {
		c.fail(CheckSSEEndpoint, "the endpoint event's data is not a URI", "a URI reference", quote([]byte(data)))
		c.legacyEnd("the endpoint event's data is not a URI: " + quote([]byte(data)))
		return false
	}
	post := stream.ResolveReference(ref)
	if origin(post) != origin(stream) {
		// Still "an endpoint event containing a URI" (MCP-SSE-2's MUST);
		// where it points is the SHOULD drawn from silence (MCP-SSE-3).
		// Not followed, --url or not: every message of the session would
		// go to a host the user never named (beyond a launched server's
		// loopback, packets nobody asked for).
		c.pass(CheckSSEEndpoint, "endpoint event names "+post.Redacted())
		c.fail(CheckSSEEndpointOrigin, fmt.Sprintf("the endpoint event points to another origin (%s); wirecheck does not POST there", post.Redacted()),
			"a URI on the stream's origin "+origin(stream), post.Redacted())
		c.legacyEnd("the endpoint event points to another origin (" + post.Redacted() + "), not followed")
		return false
	}
	c.pass(CheckSSEEndpoint, "endpoint event names "+post.Redacted())
	c.mu.Lock()
	c.post = post
	c.mu.Unlock()
	c.endpointKnown()
	return true
}
