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

// resumeRetry is the retry field the resumption scenario sends: long enough
// that a client ignoring it is seen, short enough for a suite.
const resumeRetry = 200 * time.Millisecond

func httpScenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "client-http-resume",
		Title: "over HTTP, break the SSE stream of the client's first tools/call after its priming event (retry 200 ms), before the response: the client resumes it with GET and Last-Event-ID, no sooner than retry asks",
		Rules: []string{"MCP-CLIENT-HTTP-7", "MCP-CLIENT-HTTP-8"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{Retry: resumeRetry, DropCall: "tools/call"}, []judged{
				{"MCP-CLIENT-HTTP-7", httpserve.CheckResumes, "the client made no tools/call: wirecheck broke no stream"},
				{"MCP-CLIENT-HTTP-8", httpserve.CheckRetry, "the client did not reconnect to the stream wirecheck broke (MCP-CLIENT-HTTP-7 judges that)"},
			})
		},
	}, {
		Name:  "client-http-session-ends",
		Title: "over HTTP, end the client's session once tools/list is answered: its next request gets 404, and it begins a new session with an initialize without the old id",
		Rules: []string{"MCP-CLIENT-HTTP-9"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{EndAfter: "tools/list"}, []judged{
				{"MCP-CLIENT-HTTP-9", httpserve.CheckReinitialize, "the client sent nothing after wirecheck ended its session (or made no tools/list, after which it ends)"},
			})
		},
	}, {
		Name:  "client-http-custom-headers",
		Title: "over HTTP under 2026-07-28, list besides echo and fail a tool route whose inputSchema marks parameters with x-mcp-header (a string, an integer, a boolean, a nested string, a nullable one; its defaults include values that need Base64 and a null) and six tools whose annotations are invalid (empty, no token, repeated but for case, on an object, on a number, under items): a call of route mirrors its arguments into Mcp-Param headers, Base64 where a value cannot travel plain, none for a null, and the client calls none of the six",
		Rules: []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"},
		Fresh: true,
		Run:   customHeaders,
	}}
}

// customHeaders serves client-http-custom-headers: the transport judges
// the headers of the call of route (httpserve's CheckParam*), the
// scenario which tools the client called.
func customHeaders(env *scenario.Env) error {
	if !applies(env, "MCP-CLIENT-HTTP-11") {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	c := conv{headers: true, calledRoute: -1, calledInvalid: -1}
	var judge []judged
	err := overHTTPWith(env, httpserve.Settings{}, nil, &c)
	s := httpSession(env)
	if s == nil {
		for _, r := range []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"} {
			env.Skip(r, "the client is not reached over Streamable HTTP: the scenario is one of that transport")
		}
		return err
	}
	if c.legacy {
		for _, r := range []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"} {
			env.Skip(r, "the client opened with initialize: its session is of "+legacyRevision+", which has no x-mcp-header")
		}
		return err
	}
	notCalled := "the client never called tool route (a client calls the tools its user asks for): no Mcp-Param header to judge"
	judge = append(judge,
		judged{"MCP-CLIENT-HTTP-11", httpserve.CheckParamHeaders, notCalled},
		judged{"MCP-CLIENT-HTTP-12", httpserve.CheckParamEncoding, notCalled},
		judged{"MCP-CLIENT-HTTP-13", httpserve.CheckParamNull, notCalled})
	if c.calledRoute >= 0 {
		judge[0].unobserved = "the client's call of route gave no annotated parameter a value"
		judge[1].unobserved = "no Mcp-Param header of the client's call of route carried a value that needs Base64 (non-ASCII, control characters, spaces at either end)"
		judge[2].unobserved = "the client's call of route gave no annotated parameter null"
	}
	for _, r := range judge {
		if !s.Reported(r.check) {
			env.Skip(r.rule, r.unobserved)
		}
	}
	switch {
	case c.calledInvalid >= 0:
		env.Fail("MCP-CLIENT-HTTP-14", c.calledInvalid, "the client called tool "+c.invalidName+", whose x-mcp-header annotation is invalid: it did not reject the definition", "no call of a tool with an invalid x-mcp-header (left out of the client's tools)", "tools/call "+c.invalidName)
	case c.calledRoute >= 0:
		env.Pass("MCP-CLIENT-HTTP-14", c.calledRoute)
	default:
		env.Skip("MCP-CLIENT-HTTP-14", "the client called neither route nor any tool with an invalid x-mcp-header: nothing shows whether it would call a tool it should have rejected")
	}
	return err
}

// judged is a rule a scenario declares, the transport's check that
// decides it, and why it is skipped when the check never came up.
type judged struct{ rule, check, unobserved string }

// overHTTP sets the session's settings, then converses as client-session
// does; over another transport its rules skip.
func overHTTP(env *scenario.Env, set httpserve.Settings, rules []judged) error {
	return overHTTPWith(env, set, rules, nil)
}

// httpSession is the Streamable HTTP session the scenario serves, nil
// over another transport.
func httpSession(env *scenario.Env) *httpserve.Session {
	var sv interface{ Conn() transport.Conn }
	var s *httpserve.Session
	if env.Ability(&sv) {
		s, _ = sv.Conn().(*httpserve.Session)
	}
	return s
}

// overHTTPWith is overHTTP conversing as c says (nil: as client-session).
func overHTTPWith(env *scenario.Env, set httpserve.Settings, rules []judged, c *conv) error {
	s := httpSession(env)
	if s == nil {
		for _, r := range rules {
			env.Skip(r.rule, "the client is not reached over Streamable HTTP: the scenario is one of that transport")
		}
		return nil
	}
	s.Set(set)
	var err error
	if c != nil {
		err = c.serve(env)
	} else {
		err = converse(env, false)
	}
	for _, r := range rules {
		if !s.Reported(r.check) {
			env.Skip(r.rule, r.unobserved)
		}
	}
	return err
}
