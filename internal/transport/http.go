package transport

import (
	"context"
	"net/http"
	"net/url"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Via says how a frame came over HTTP. It is nil on stdio.
type Via struct {
	// Exchange numbers the HTTP exchanges of one transport, from 1.
	Exchange int
	// Verb is the request's method: POST, GET, DELETE.
	Verb        string
	Status      int
	ContentType string
	// Stream is set when the frame came as an SSE event; EventID is its id.
	Stream  bool
	EventID string
	// For is the key (peer's id key) of the JSON-RPC request the POST
	// carried, "" when it carried none (a notification, a raw body).
	For string
	// End is set on a frame with no Raw: why the exchange ended without a
	// JSON-RPC answer ("HTTP 500 text/html", "stream closed before the
	// response", "redirect loop"), so a pending call ends at once instead
	// of waiting out its timeout.
	End string
	// Dropped is set with End when the request's SSE stream closed or
	// broke before its response: "Disconnection MAY occur at any time", so
	// the transport's http.stream-has-response judges it, not the
	// response rules above it.
	Dropped bool
	// Authorization is set with End when authorization refused the
	// request: HTTP 401, or 403 with a WWW-Authenticate challenge
	// (insufficient scope). The authorization pages ask exactly that
	// answer of a server, so it owes the request no JSON-RPC response.
	Authorization bool
	// OverCap is set with End when the answer was a body or an SSE event
	// over wirecheck's cap (MaxFrame): the server may well have answered,
	// wirecheck could not read it, so no rule of the server is judged.
	OverCap bool
	// TimedOut is set with End when wirecheck's --timeout ended the
	// exchange (no response headers, no answer in time).
	TimedOut bool
}

// Exchanger is a transport that can send one HTTP request outside the
// session's flow: the HTTP scenarios' probes (a request without the
// session id, with a foreign Origin, without credentials). Stdio does not
// implement it; scenarios type-assert and skip without it.
type Exchanger interface {
	Exchange(ctx context.Context, x Exchange) (*Result, error)
	// Session is the current Mcp-Session-Id, "" when none.
	Session() string
	// Endpoint is the MCP endpoint (for sse: the stream's URL).
	Endpoint() *url.URL
	// Kind is "http" (Streamable HTTP) or "sse" (legacy HTTP+SSE).
	Kind() string
	// Credentialed reports whether the run sends credentials (an
	// Authorization header, --header): only then does a server that
	// serves a request without them show it authenticates no connection.
	Credentialed() bool
	// Launched reports whether wirecheck launched the server (a command),
	// not only reached it (--url alone): how a launched server listens
	// (MCP-BIND-1) can be judged, a running one's cannot.
	Launched() bool
}

// Launcher is a transport to a server wirecheck launched as a process
// (the leader of its own process group): PID is its process id, 0 when
// it was reached by URL alone or runs in wirecheck's own process. Where a
// launched server listens is read from the machine by it (MCP-BIND-1).
type Launcher interface {
	PID() int
}

// RequestCloser is a transport that can close the exchange of one request
// in flight, by the peer's key of its id: over Streamable HTTP in
// 2026-07-28 closing a request's stream is its cancellation. It reports
// whether the request's exchange was still running; once closed, nothing
// more of it reaches Recv.
type RequestCloser interface {
	CloseRequest(key string) bool
}

// Exchange is one probe request.
type Exchange struct {
	// Method is the HTTP method; Body the POST body as sent.
	Method string
	Body   []byte
	// Set overrides or adds headers under these exact names (case kept).
	Set map[string]string
	// Drop leaves these headers out ("Mcp-Session-Id", "Authorization").
	Drop []string
	// URL is "" for the endpoint, else an absolute or endpoint-relative
	// URL (a metadata document). Credentials go to the endpoint's origin
	// only.
	URL string
	// Until stops reading an SSE answer when it returns true (default:
	// after the first JSON-RPC response).
	Until func(sse.Event) bool
	// HeadersOnly ends an SSE answer once its headers are in, its stream
	// closed unread: for a probe whose verdict is the status and
	// Content-Type alone, a stream that stays open without an event would
	// otherwise hold it to the timeout. Another body is read as usual (it
	// ends, and is the evidence quoted).
	HeadersOnly bool
}

// Result is what a probe got back, capped like every exchange.
type Result struct {
	Status int
	Header http.Header
	Body   []byte
	// Events are the SSE events read (when the answer was a stream);
	// Frames the JSON-RPC messages found in the body or the events.
	Events []sse.Event
	Frames [][]byte
	// Closed is set when the server ended the stream itself.
	Closed bool
}

// Hooks let a transport judge what it sees below the peer (a status code,
// a content type) and note it in the transcript. The session wires them
// to the peer once both exist.
type Hooks struct {
	// Check reports a built-in check's outcome (verdict.Check* names).
	Check func(check string, v verdict.Verdict, msg, expected, actual string)
	// Note adds a line to the transcript and returns its sequence number.
	Note func(text string) int
}

// Hooked is a transport that takes Hooks.
type Hooked interface {
	SetHooks(Hooks)
}

// OffLoopback is the error of a request the HTTP transport did not send:
// to a host beyond loopback, named by a server wirecheck launched (a
// metadata document elsewhere). A launched server is the user's program
// on this machine, not an address they named: wirecheck sends nothing
// beyond loopback for it (DESIGN.md, "What done means" 8). A check that
// wanted the answer skips with Named, never blames the server.
type OffLoopback struct {
	// URL is where the request would have gone, credentials masked.
	URL string
}

const offLoopbackWhy = "wirecheck sends nothing beyond loopback to a server it launched; run the server yourself and name it with --url to follow it"

func (e *OffLoopback) Error() string {
	return "not sent to " + e.URL + ", off this machine: " + offLoopbackWhy
}

// Named is what a check skipped for it says.
func (e *OffLoopback) Named() string {
	return "the server names " + e.URL + ", off this machine: " + offLoopbackWhy
}
