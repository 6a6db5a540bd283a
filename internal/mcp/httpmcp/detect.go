package httpmcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Detect names the transport of a running server reached by URL alone, as
// a client supporting both is told to find it (2025-03-26
// basic/transports.mdx § Backwards Compatibility): POST an
// InitializeRequest; if that "fails with an HTTP 4xx status code", GET the
// URL, "expecting that this will open an SSE stream and return an
// endpoint event as the first event" — then it is the legacy HTTP+SSE
// transport (KindSSE). Anything else is Streamable HTTP (KindHTTP), which
// the run then judges: a server that cannot be reached, or that refuses
// initialize and names no endpoint, is reported by the run, not here.
// why says what decided it. o.Timeout bounds each of the two exchanges;
// a session either opens is ended at once (DELETE; the stream closed).
func Detect(o Options, revision string) (kind, why string) {
	o.Kind = KindHTTP
	t, err := Dial(o)
	if err != nil {
		return KindHTTP, ""
	}
	c := t.(*client)
	defer c.Close()
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wirecheck","version":"detect"}}}`, revision)
	status, sid := c.detectPost([]byte(init))
	switch {
	case status == 0:
		return KindHTTP, ""
	case status/100 != 4:
		if sid != "" {
			c.detectDelete(sid)
		}
		return KindHTTP, fmt.Sprintf("POST initialize answered HTTP %d: Streamable HTTP", status)
	}
	if ev, ok := c.detectGet(); ok {
		return KindSSE, fmt.Sprintf("POST initialize answered HTTP %d and GET opened an event stream whose first event is endpoint (%s): the legacy HTTP+SSE transport", status, quote([]byte(ev)))
	}
	return KindHTTP, fmt.Sprintf("POST initialize answered HTTP %d, but GET opened no event stream beginning with an endpoint event: judged as Streamable HTTP", status)
}

// detectPost POSTs body and returns the status (0: no answer) and the
// session id the answer assigned.
func (c *client) detectPost(body []byte) (int, string) {
	ctx, cancel := context.WithTimeout(c.ctx, c.o.Timeout)
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, http.MethodPost, c.endpoint, body))
	if err != nil {
		return 0, ""
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// detectDelete ends the session the detecting initialize opened, so the
// server does not keep it for the rest of the run.
func (c *client) detectDelete(sid string) {
	ctx, cancel := context.WithTimeout(c.ctx, c.o.Timeout)
	defer cancel()
	req := c.request(ctx, http.MethodDelete, c.endpoint, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := c.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// detectGet opens a stream on the URL and reports whether its first event
// is an endpoint event (and its data), then closes it.
func (c *client) detectGet() (string, bool) {
	ctx, cancel := context.WithTimeout(c.ctx, c.o.Timeout)
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, http.MethodGet, c.endpoint, nil))
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, evidence))
		return "", false
	}
	r := c.sseReader(resp)
	defer r.Close()
	ev, err := r.Next()
	if err != nil || ev.Type != "endpoint" {
		return "", false
	}
	return strings.TrimSpace(ev.Data), true
}
