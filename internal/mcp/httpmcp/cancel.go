package httpmcp

// CloseRequest closes the exchange that carries the request keyed key (the
// peer's key of its id) and reports whether it was still running. In
// 2026-07-28 that is how a client cancels a request: "Closing the SSE
// response stream MUST be treated by the server as cancellation of that
// request" (basic/transports/streamable-http.mdx, Cancellation). The
// client gave the request up, so nothing more of that exchange reaches
// Recv, not even the End frame an unanswered request otherwise gets, and
// nothing of it is judged.
func (c *client) CloseRequest(key string) bool {
	c.mu.Lock()
	x := c.inflight[key]
	c.mu.Unlock()
	if x == nil {
		return false
	}
	x.abandoned.Store(true)
	x.stop("closed by the client: the request is cancelled")
	return true
}

// track makes a request's exchange closable by CloseRequest while it runs.
// A batch or a raw body is no one request to close.
func (c *client) track(x *exchange) {
	if x.out.kind != kindRequest || x.raw || x.out.batch || x.out.key == "" {
		return
	}
	c.mu.Lock()
	c.inflight[x.out.key] = x
	c.mu.Unlock()
}

func (c *client) untrack(x *exchange) {
	c.mu.Lock()
	if c.inflight[x.out.key] == x {
		delete(c.inflight, x.out.key)
	}
	c.mu.Unlock()
}
