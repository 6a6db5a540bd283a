package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

func sseLegacy(e *scenario.Env) error {
	rules := []string{"MCP-SSE-1", "MCP-SSE-2", "MCP-SSE-3"}
	// The stream is probed whether or not a session could start on it.
	x, _ := exchanger(e, "sse", rules...)
	if x == nil {
		return nil
	}
	var first *sse.Event
	res, seq := exchange(e, x, "GET the SSE stream", httpmcp.Exchange{Method: http.MethodGet,
		Set: map[string]string{"Accept": "text/event-stream"},
		Until: func(ev sse.Event) bool {
			first = &ev
			return true
		}})
	if !served(res) || !isEventStream(res.Header.Get("Content-Type")) {
		e.Fail("MCP-SSE-1", seq, "a GET of the SSE endpoint did not open an event stream", "200 with Content-Type: text/event-stream", answered(res))
		skipAll(e, "no event stream to read the endpoint event from (MCP-SSE-1)", "MCP-SSE-2", "MCP-SSE-3")
		return nil
	}
	e.Pass("MCP-SSE-1", seq)
	if first == nil && len(res.Events) > 0 {
		first = &res.Events[0]
	}
	if first == nil || first.Type != "endpoint" {
		got := "no event"
		if first != nil {
			got = fmt.Sprintf("event %q: %s", first.Type, show(first.Data))
		}
		e.Fail("MCP-SSE-2", seq, "the stream's first event is not an endpoint event", "event: endpoint, data: a URI", got)
		e.Skip("MCP-SSE-3", "no endpoint event (MCP-SSE-2)")
		return nil
	}
	ref, err := url.Parse(strings.TrimSpace(first.Data))
	if err != nil || strings.TrimSpace(first.Data) == "" {
		e.Fail("MCP-SSE-2", seq, "the endpoint event's data is no URI", "a URI (relative or absolute)", show(first.Data))
		e.Skip("MCP-SSE-3", "the endpoint event names no URI (MCP-SSE-2)")
		return nil
	}
	e.Pass("MCP-SSE-2", seq)
	at := x.Endpoint().ResolveReference(ref)
	if sameOrigin(at, x.Endpoint()) {
		e.Pass("MCP-SSE-3", seq)
		return nil
	}
	e.Fail("MCP-SSE-3", seq, "the endpoint event points to another origin, where the client's messages (and credentials) would go",
		"a URI on "+origin(x.Endpoint()), at.Redacted())
	return nil
}
