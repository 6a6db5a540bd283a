package mcp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// What 2026-07-28 asks of a server that supports only that revision when
// an older Streamable HTTP client reaches it (basic/transports/
// streamable-http.mdx, Earlier Streamable HTTP Revisions): "A server that
// supports only this revision and receives such traffic from an older
// client **SHOULD** respond as follows: HTTP GET or DELETE to the MCP
// endpoint: respond with `405 Method Not Allowed`. An `Mcp-Session-Id`
// header on a request: ignore it, and do not mint or echo session IDs. A
// `Last-Event-ID` header: ignore it; streams are not resumable." A server
// that supports an earlier revision too (dual-era, basic/versioning)
// serves those clients as their revision says, so it is not judged: one
// that lists an earlier revision in server/discover, and one that answers
// an older client's initialize, whatever it lists (supportedVersions is
// "Protocol versions the server supports", which binds nothing: a server
// may list only the revision it would have a modern client use). And the
// HTTP status of two errors
// (basic/index.mdx, _meta): "On HTTP, the response status **MUST** be
// `400 Bad Request`."

var eraRules = []string{"MCP-HTTP-LEGACY-1", "MCP-HTTP-LEGACY-2", "MCP-HTTP-LEGACY-3"}

func httpEraScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "http-era",
		Title: "2026-07-28 over HTTP, a server of that revision only: GET and DELETE are answered 405, an Mcp-Session-Id is ignored and none issued, Last-Event-ID on a POST is ignored",
		Rules: eraRules,
		Run:   httpEra,
	}
}

func httpEra(e *scenario.Env) error {
	x, err := exchanger(e, "http", eraRules...)
	if x == nil || err != nil {
		return err
	}
	if len(holding(e, eraRules)) == 0 {
		return nil
	}
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), eraRules...)
		return nil
	}
	in, err := s.call(e, "server/discover", nil)
	if err != nil {
		return err
	}
	if why := notModernOnly(in, modernVersion(e)); why != "" {
		skipAll(e, why, eraRules...)
		return nil
	}
	if why := servesInitialize(e, x); why != "" {
		skipAll(e, why, eraRules...)
		return nil
	}
	judgeVerbs(e, x)
	body := twinBody(s)
	tw, why := twin(e, x, body)
	if why != "" {
		skipAll(e, why, "MCP-HTTP-LEGACY-2", "MCP-HTTP-LEGACY-3")
		return nil
	}
	judgeSessionIgnored(e, x, body, tw)
	judgeLastEventIDIgnored(e, x, body, tw)
	return nil
}

// notModernOnly says why the sentences do not apply to the server that
// answered server/discover with in ("" when they do): it lists a revision
// besides rev (2026-07-28), or none can be read.
func notModernOnly(in *peer.Inbound, rev string) string {
	vs, _ := field(in, "/result/supportedVersions").([]any)
	if len(vs) == 0 {
		return "server/discover named no supportedVersions: whether the server supports only revision " + rev + " cannot be told"
	}
	var others []string
	for _, v := range vs {
		if s := fmt.Sprint(v); s != rev {
			others = append(others, s)
		}
	}
	if len(others) == 0 {
		return ""
	}
	slices.Sort(others)
	return fmt.Sprintf("the server lists %s besides %s in server/discover: these are sentences for \"a server that supports only this revision\", and a server speaking an earlier one serves its clients as that revision says", strings.Join(others, ", "), rev)
}

// servesInitialize says why the server is dual-era though its
// server/discover lists 2026-07-28 alone ("" when it is not): it answers
// the initialize of an older client (revision legacyLatest, no session, no
// version header) with a result on the same endpoint. A refusal, an error
// or no answer leaves it a server of 2026-07-28 only.
func servesInitialize(e *scenario.Env, x httpmcp.Exchanger) string {
	negotiated, seq := olderInitialize(e, x, legacyLatest(e))
	if negotiated == nil {
		return ""
	}
	return fmt.Sprintf("the server answered an older client's initialize (%s) with a result negotiating %v (transcript line %d): it serves earlier revisions too (dual-era, basic/versioning), whatever its server/discover lists, and these are sentences for \"a server that supports only this revision\"",
		legacyLatest(e), negotiated, seq)
}

// olderInitialize sends the initialize of a client of revision version, as
// it opens (no session, no version header), and returns the protocolVersion
// of the result it is answered with (nil for a refusal, an error or no
// answer) and the probe's transcript line. What a server does with that
// client, not what its server/discover lists ("Protocol versions the
// server supports", which binds nothing), tells whether it supports it.
// The session such an initialize may have opened is deleted, as that
// client would at its end.
func olderInitialize(e *scenario.Env, x httpmcp.Exchanger, version string) (any, int) {
	res, seq := exchange(e, x, "initialize at "+version+", as an older client opens", httpmcp.Exchange{
		Method: http.MethodPost, Body: rawJSON(initRequest(version)), Drop: []string{"Mcp-Session-Id"}})
	if !served(res) {
		return nil, seq
	}
	var negotiated any
	for _, f := range res.Frames {
		if m, ok := jsonObject(f); ok {
			if r, ok := m["result"].(map[string]any); ok {
				negotiated = r["protocolVersion"]
			}
		}
	}
	if negotiated == nil {
		return nil, seq
	}
	if sid := header(res, "Mcp-Session-Id"); sid != "" {
		exchange(e, x, "DELETE the session that initialize opened", httpmcp.Exchange{Method: http.MethodDelete,
			Set: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": fmt.Sprint(negotiated)}})
	}
	return negotiated, seq
}

// judgeVerbs is MCP-HTTP-LEGACY-1: GET (an older client's stream) and
// DELETE (its session's end) on the endpoint are answered 405.
func judgeVerbs(e *scenario.Env, x httpmcp.Exchanger) {
	ok, seq := true, -1
	for _, ex := range []httpmcp.Exchange{
		{Method: http.MethodGet, Set: map[string]string{"Accept": "text/event-stream"}, HeadersOnly: true},
		{Method: http.MethodDelete},
	} {
		res, n := exchange(e, x, ex.Method+" the endpoint, as an older client does", ex)
		if res != nil && res.Status == http.StatusMethodNotAllowed {
			seq = max(seq, n)
			continue
		}
		ok = false
		e.Fail("MCP-HTTP-LEGACY-1", n, ex.Method+" on the MCP endpoint of a server that supports only revision "+modernVersion(e)+" was not answered 405",
			"405 Method Not Allowed", answered(res))
	}
	if ok {
		e.Pass("MCP-HTTP-LEGACY-1", seq)
	}
}

// judgeSessionIgnored is MCP-HTTP-LEGACY-2: the twin carrying an
// Mcp-Session-Id no server issued is served like the twin, and no answer
// carries a session id.
func judgeSessionIgnored(e *scenario.Env, x httpmcp.Exchanger, body []byte, tw *httpmcp.Result) {
	const rule = "MCP-HTTP-LEGACY-2"
	if sid := tw.Header.Get("Mcp-Session-Id"); sid != "" {
		e.Fail(rule, -1, "the server issued an Mcp-Session-Id with a 2026-07-28 answer", "no Mcp-Session-Id header", "Mcp-Session-Id: "+sid)
		return
	}
	sent := neverIssued()
	res, seq := exchange(e, x, "the twin with an Mcp-Session-Id: "+sent, httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Set: map[string]string{"Mcp-Session-Id": sent}})
	switch sid := header(res, "Mcp-Session-Id"); {
	case !served(res):
		e.Fail(rule, seq, "a request carrying an Mcp-Session-Id was not served, while its twin without one was",
			"the header ignored: served as the twin", answered(res))
	case sid != "":
		e.Fail(rule, seq, "the answer to a request carrying an Mcp-Session-Id carries one", "no Mcp-Session-Id echoed or minted", "Mcp-Session-Id: "+sid)
	default:
		e.Pass(rule, seq)
	}
}

// judgeLastEventIDIgnored is MCP-HTTP-LEGACY-3: the twin carrying a
// Last-Event-ID is served like the twin (a result where it got a result).
func judgeLastEventIDIgnored(e *scenario.Env, x httpmcp.Exchanger, body []byte, tw *httpmcp.Result) {
	const rule = "MCP-HTTP-LEGACY-3"
	res, seq := exchange(e, x, "the twin with Last-Event-ID: 1", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Set: map[string]string{"Last-Event-ID": "1"}})
	if served(res) && carriesError(res) == carriesError(tw) {
		e.Pass(rule, seq)
		return
	}
	e.Fail(rule, seq, "a request carrying Last-Event-ID was not served as its twin without it was ("+answered(tw)+")",
		"the header ignored: served as the twin", answered(res))
}

func header(res *httpmcp.Result, name string) string {
	if res == nil {
		return ""
	}
	return res.Header.Get(name)
}
