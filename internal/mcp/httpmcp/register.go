package httpmcp

import (
	"cmp"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The HTTP transports register with the engine: --transport and a spec's
// `transports:` and `endpoints:` know them from here, and a target reaches
// them through transport.Kind. Streamable HTTP is the one a URL alone is
// reached over, after Detect has asked the server.
func init() {
	transport.Register(transport.Kind{Name: KindHTTP, Title: "HTTP", Path: "/mcp", Dial: dialKind, Detect: detectKind, Listen: listenKind(false, "/mcp")})
	transport.Register(transport.Kind{Name: KindSSE, Title: "legacy HTTP+SSE", Path: "/sse", Dial: dialKind, Listen: listenKind(true, "/sse")})
}

// listenKind serves the transport with wirecheck as the server, for a
// client under test (--role client).
func listenKind(legacy bool, path string) func(transport.ListenOptions) (transport.Listener, error) {
	return func(o transport.ListenOptions) (transport.Listener, error) {
		return httpserve.Listen(o, legacy, path)
	}
}

func options(o transport.DialOptions) Options {
	return Options{URL: o.URL, Kind: o.Kind, Headers: o.Headers, Process: o.Process, Timeout: o.Timeout, MaxFrame: o.MaxFrame}
}

func dialKind(o transport.DialOptions) (transport.Transport, error) { return Dial(options(o)) }

// detectRevision is the revision Detect's initialize asks for when the run
// names none: the first with Streamable HTTP.
const detectRevision = "2025-03-26"

func detectKind(o transport.DialOptions, revision string) (string, string) {
	return Detect(options(o), cmp.Or(revision, detectRevision))
}

// Awaits is what Started waits for (transport.Starter).
func (c *client) Awaits() string {
	return "its SSE stream to name the endpoint to POST to (an endpoint event)"
}

// AnswersApart reports whether the server's messages come on a stream
// apart from the POSTs (transport.Apart): the legacy HTTP+SSE transport,
// where "Server messages are sent as SSE `message` events" (2024-11-05
// basic/transports, HTTP with SSE) and nothing ties them to a POST's
// status.
func (c *client) AnswersApart() bool { return c.o.Kind == KindSSE }
