package httpmcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

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

// Describe says in a few words what an exchange got, for a finding's
// evidence: "no answer", else its status, its Content-Type and, when it
// has one, its body as body renders it (each suite bounds it, and masks
// what it must).
func (r *Result) Describe(body func([]byte) string) string {
	if r == nil || r.Status == 0 {
		return "no answer"
	}
	s := fmt.Sprintf("HTTP %d", r.Status)
	if ct := r.Header.Get("Content-Type"); ct != "" {
		s += " " + ct
	}
	if len(r.Body) > 0 {
		s += ": " + body(r.Body)
	}
	return s
}
