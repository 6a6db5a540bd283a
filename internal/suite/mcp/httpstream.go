package mcp

import (
	"net/http"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// streamRules are the rules judgeHTTPStream decides.
var streamRules = []string{"MCP-HTTP-STREAM-4", "MCP-HTTP-STREAM-5", "MCP-HTTP-GET-2"}

// judgeUnrelated (2026-07-28): a change notification on the response
// stream of a request other than subscriptions/listen relates to no
// request (MCP-HTTP-STREAM-5): those go on listen streams.
func (s *session) judgeUnrelated(e *scenario.Env, in *peer.Inbound, method string) {
	v := in.HTTP
	switch method {
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated":
	default:
		return
	}
	if v == nil || v.Verb != http.MethodPost || v.For == "" {
		return
	}
	for _, c := range e.InFlight() {
		if c.Key == v.For && c.Method == "subscriptions/listen" {
			return
		}
	}
	s.mu.Lock()
	if s.streamed == nil {
		s.streamed = map[string]bool{}
	}
	s.streamed["MCP-HTTP-STREAM-5"] = true
	s.mu.Unlock()
	e.Fail("MCP-HTTP-STREAM-5", in.Seq, method+" on the response stream of request "+v.For+", which is no subscriptions/listen",
		"notifications relating to the request the stream answers (change notifications on listen streams)", string(in.Raw))
}

// skipUnstreamed skips the stream rules no progress notification decided.
func (s *session) skipUnstreamed(e *scenario.Env) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range streamRules {
		if !s.streamed[r] && !judgeOf(e).streamedRule(r) {
			e.Skip(r, "no progress notification came over a stream this rule judges (a POST's stream in its revision, or the GET stream)")
		}
	}
}
