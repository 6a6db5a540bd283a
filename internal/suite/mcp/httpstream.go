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
// request (MCP-HTTP-STREAM-5): those go on listen streams. j.mu is held.
func (j *judge) judgeUnrelated(in *peer.Inbound, method string, v peer.Verdicts) {
	via := in.HTTP
	switch method {
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated":
	default:
		return
	}
	if via == nil || via.Verb != http.MethodPost || via.For == "" || j.subs[via.For] != nil {
		return
	}
	v.Fail("MCP-HTTP-STREAM-5", in.Seq, method+" on the response stream of request "+via.For+", which is no subscriptions/listen",
		"notifications relating to the request the stream answers (change notifications on listen streams)", string(in.Raw))
}

// skipUnstreamed skips the stream rules no frame decided.
func (s *session) skipUnstreamed(e *scenario.Env) {
	j := judgeOf(e)
	for _, r := range streamRules {
		if j.judged(r).total() == 0 {
			e.Skip(r, "no progress notification came over a stream this rule judges (a POST's stream in its revision, or the GET stream)")
		}
	}
}
