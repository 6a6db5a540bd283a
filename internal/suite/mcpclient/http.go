package mcpclient

import (
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The HTTP transports' own scenarios: the conversation of client-session,
// with the server breaking a stream or ending the session on the way, as
// the revisions let a server do. Over stdio they skip.

// retryMs is the retry field the resumption scenario sends: long enough
// that a client ignoring it is seen, short enough for a suite.
const retryMs = 200 * time.Millisecond

// httpHeaderRules are decided on every request the client makes over
// HTTP, in whichever scenario.
var httpHeaderRules = []string{"MCP-CLIENT-HTTP-1", "MCP-CLIENT-HTTP-2", "MCP-CLIENT-HTTP-3", "MCP-CLIENT-HTTP-4", "MCP-CLIENT-HTTP-5", "MCP-CLIENT-HTTP-6", "MCP-CLIENT-HTTP-10"}

func httpScenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "client-http-resume",
		Title: "over HTTP, break the SSE stream of the client's first tools/call after its priming event (retry 200 ms), before the response: the client resumes it with GET and Last-Event-ID, no sooner than retry asks",
		Rules: append([]string{"MCP-CLIENT-HTTP-7", "MCP-CLIENT-HTTP-8"}, httpHeaderRules...),
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{Retry: retryMs, DropCall: "tools/call"}, []string{"MCP-CLIENT-HTTP-7", "MCP-CLIENT-HTTP-8"})
		},
	}, {
		Name:  "client-http-session-ends",
		Title: "over HTTP, end the client's session once tools/list is answered: its next request gets 404, and it begins a new session with an initialize without the old id",
		Rules: append([]string{"MCP-CLIENT-HTTP-9"}, httpHeaderRules...),
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{EndAfter: "tools/list"}, []string{"MCP-CLIENT-HTTP-9"})
		},
	}}
}

// overHTTP sets the session's settings, then converses as client-session
// does; over another transport its rules skip.
func overHTTP(env *scenario.Env, set httpserve.Settings, rules []string) error {
	var sv interface{ Conn() transport.Conn }
	var s *httpserve.Session
	if env.Ability(&sv) {
		s, _ = sv.Conn().(*httpserve.Session)
	}
	if s == nil {
		for _, r := range rules {
			env.Skip(r, "the client is reached over stdio: the scenario is one of Streamable HTTP")
		}
		return nil
	}
	s.Set(set)
	return converse(env, false)
}
