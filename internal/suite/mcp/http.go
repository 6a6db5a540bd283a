package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The HTTP scenarios probe what only HTTP has (session ids, methods,
// headers, origins, credentials) with Exchanger probes sent beside the
// session. Every negative probe is judged next to its twin, the same
// request with nothing changed, which must have been served: a refusal is
// charged to the one thing that differs (docs/plans/mcp-http.md §0.5).

// httpScenarios are the scenarios of the HTTP transports; on stdio they
// skip their rules.
func httpScenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "http-transport",
		Title: "HTTP: requests without a session id, with an id never issued, with an unsupported MCP-Protocol-Version; a response to an id never used is accepted or refused, not answered success with an error; a second session's id, that session deleted and then refused",
		Rules: transportRules,
		Run:   httpTransport,
	}, headersScenario(), {
		Name:  "http-origin",
		Title: "HTTP: a request with a foreign Origin is refused (403 from 2025-11-25); a launched server listens on loopback only",
		Rules: []string{"MCP-ORIGIN-1", "MCP-ORIGIN-2", "MCP-BIND-1"},
		Run:   httpOrigin,
	}, {
		Name:  "http-auth",
		Title: "HTTP: a server that requires authorization refuses missing, invalid and malformed credentials as the revision says, and names its protected resource metadata",
		Rules: authRules,
		Run:   httpAuth,
	}, {
		Name:  "http-resume",
		Title: "HTTP, resumable servers: a slow call's stream dropped after an event id is resumed with Last-Event-ID, which brings its response and nothing of another stream",
		Rules: resumeRules,
		Idle:  slowTarget + resumeGrace,
		Run:   httpResume,
	}, {
		Name:  "sse-legacy",
		Title: "legacy HTTP+SSE: the stream URL answers an event stream whose first event names a same-origin endpoint",
		Rules: []string{"MCP-SSE-1", "MCP-SSE-2", "MCP-SSE-3"},
		Run:   sseLegacy,
	}}
}

// MCP-HTTP-GET-1 is the transport's (http.get-stream): it opens the
// session's GET stream, and a probe beside it would race it for the one
// stream a server may allow per session.
var transportRules = []string{"MCP-HTTP-ENDPOINT-1", "MCP-HTTP-ACCEPT-2", "MCP-SESSION-2", "MCP-SESSION-3", "MCP-SESSION-4", "MCP-SESSION-5", "MCP-SESSION-6", "MCP-HTTP-VERSION-1", "MCP-HTTP-VERSION-2"}

// exchanger returns the transport's probe interface, or skips rules and
// returns nil on stdio. kind ("http" or "sse") limits it to one of the two
// HTTP transports ("" for both). The process gets its session first
// either way: over HTTP a server may refuse any request outside one, the
// liveness ping after the scenario included.
func exchanger(e *scenario.Env, kind string, rules ...string) (httpmcp.Exchanger, error) {
	x, ok := exchangerOf(e)
	if !ok {
		skipAll(e, "HTTP only: this run speaks stdio", applying(e, rules)...)
		return nil, nil
	}
	_, err := ensure(e)
	switch {
	case kind == "http" && x.Kind() != "http":
		skipAll(e, "Streamable HTTP only: this run speaks the legacy HTTP+SSE transport", applying(e, rules)...)
		return nil, err
	case kind == "sse" && x.Kind() != "sse":
		skipAll(e, "legacy HTTP+SSE only: this run speaks Streamable HTTP", applying(e, rules)...)
		return nil, err
	}
	return x, err
}

// applying are the rules the spec gives to the run (its revision and
// transport): a scenario skips only those by its own reasons, the runner
// the others by the spec's.
func applying(e *scenario.Env, rules []string) []string {
	in := holding(e, rules)
	var out []string
	for _, id := range rules {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}

// holding returns the rules that hold in the run (its revision and
// transport, as the spec says): the scenario judges only those, and the
// runner skips the others with the spec's reason.
func holding(e *scenario.Env, rules []string) map[string]bool {
	in := map[string]bool{}
	for _, id := range rules {
		if r := e.Protocol.Rule(id); r == nil || e.Protocol.Applies(r) {
			in[id] = true
		}
	}
	return in
}

// probeWait bounds one probe: its answer's headers, or its first events.
func probeWait(e *scenario.Env) time.Duration { return max(e.Timeout, time.Second) }

// exchange sends one probe and notes what it was and what came back in the
// transcript, returning the note's line as the evidence of a verdict. A
// probe that got no answer at all returns a nil Result.
func exchange(e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	return exchangeWithin(e, x, what, ex, probeWait(e))
}

// exchangeWithin is exchange bounded by d.
func exchangeWithin(e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange, d time.Duration) (*httpmcp.Result, int) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return exchangeCtx(ctx, e, x, what, ex)
}

// exchangeCtx is exchange bounded by ctx.
func exchangeCtx(ctx context.Context, e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	res, seq, _ := exchangeErr(ctx, e, x, what, ex)
	return res, seq
}

// exchangeErr is exchangeCtx with the transport's error: a
// *transport.OffLoopback says the probe was not sent at all, which no
// check may hold against the server.
func exchangeErr(ctx context.Context, e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int, error) {
	res, err := x.Exchange(ctx, ex)
	text := "probe: " + what + " → " + answered(res)
	if err != nil {
		text += " (" + err.Error() + ")"
	}
	seq := e.Annotate(text)
	if res != nil && res.Status == 0 {
		return nil, seq, err
	}
	return res, seq, err
}

// answered says in a few words what a probe got.
func answered(res *httpmcp.Result) string {
	return res.Describe(func(b []byte) string { return show(string(b)) })
}

func served(res *httpmcp.Result) bool { return res != nil && res.Status >= 200 && res.Status < 300 }

func refused(res *httpmcp.Result) bool { return res != nil && res.Status >= 400 && res.Status < 500 }

// twinBody is the request the probes vary: tools/list, a request of every
// revision (a server without tools answers it -32601, which is served).
func twinBody(s *session) []byte {
	params := map[string]any{}
	if s != nil && s.modern {
		params["_meta"] = meta(s.requested)
	}
	return rawJSON(request("tools/list", params))
}

// twin sends the positive twin and says why the negative probes cannot be
// judged when it was not served ("" when it was).
func twin(e *scenario.Env, x httpmcp.Exchanger, body []byte) (*httpmcp.Result, string) {
	res, seq := exchange(e, x, "the twin request, as the session sends it", httpmcp.Exchange{Method: http.MethodPost, Body: body})
	if !served(res) {
		return res, fmt.Sprintf("the twin request (transcript line %d) was not served (%s): nothing to compare a probe with", seq, answered(res))
	}
	return res, ""
}

func httpTransport(e *scenario.Env) error {
	x, err := exchanger(e, "http", transportRules...)
	if x == nil || err != nil {
		return err
	}
	rules := holding(e, transportRules)
	if len(rules) == 0 {
		return nil
	}
	body := twinBody(current(e))
	res, why := twin(e, x, body)
	if why != "" {
		if res != nil && rules["MCP-HTTP-ENDPOINT-1"] && (res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed || res.Status == http.StatusNotImplemented) {
			delete(rules, "MCP-HTTP-ENDPOINT-1")
			e.Fail("MCP-HTTP-ENDPOINT-1", -1, "a request of the session was refused at the endpoint that served its initialize", "the one MCP endpoint serves the session's POSTs", answered(res))
		}
		for r := range rules {
			e.Skip(r, why)
		}
		return nil
	}
	if rules["MCP-HTTP-ENDPOINT-1"] {
		// The session's initialize and this request were served at one path.
		e.Pass("MCP-HTTP-ENDPOINT-1", -1)
	}
	if rules["MCP-HTTP-VERSION-1"] {
		judgeVersionHeader(e, x, body)
	}
	if rules["MCP-HTTP-ACCEPT-2"] {
		judgeStrayResponse(e, x)
	}
	judgeSessions(e, x, body)
	return nil
}

// judgeStrayResponse is MCP-HTTP-ACCEPT-2's probe: a JSON-RPC response to
// an id the server never used. Ignoring it (202) and refusing it (an
// error status) both keep the sentence; a success status carrying a
// JSON-RPC error refused it while saying it was accepted. A 2xx without
// an error accepted it: ACCEPT-1 judges the status of what is accepted,
// and the transport does so on the session's own notifications.
func judgeStrayResponse(e *scenario.Env, x httpmcp.Exchanger) {
	probe := rawJSON(map[string]any{"jsonrpc": "2.0", "id": scenario.NextID("wirecheck-never-used"), "result": map[string]any{}})
	res, seq := exchange(e, x, "a JSON-RPC response to an id the server never used", httpmcp.Exchange{Method: http.MethodPost, Body: probe})
	switch {
	case res == nil:
		e.Skip("MCP-HTTP-ACCEPT-2", "the response to an id never used got no HTTP answer (transcript line "+fmt.Sprint(seq)+"): no status to judge")
	case served(res) && carriesError(res):
		e.Fail("MCP-HTTP-ACCEPT-2", seq, fmt.Sprintf("a response to an id the server never used was refused with a JSON-RPC error under HTTP %d, a success status", res.Status),
			"202 Accepted, or an HTTP error status (e.g. 400) for input not accepted", answered(res))
	case res.Status/100 == 3:
		e.Skip("MCP-HTTP-ACCEPT-2", "the response to an id never used was answered "+answered(res)+": neither accepted nor refused")
	default:
		e.Pass("MCP-HTTP-ACCEPT-2", seq)
	}
}

// carriesError says whether a probe's answer holds a JSON-RPC error.
func carriesError(res *httpmcp.Result) bool {
	for _, in := range messages(res, 0) {
		if field(in, "/error") != nil {
			return true
		}
	}
	return false
}

func isEventStream(ct string) bool {
	return strings.EqualFold(strings.TrimSpace(strings.Split(ct, ";")[0]), "text/event-stream")
}

// judgeVersionHeader: an unsupported MCP-Protocol-Version is refused 400
// (VERSION-1); a request without one is served (VERSION-2).
func judgeVersionHeader(e *scenario.Env, x httpmcp.Exchanger, body []byte) {
	ok := true
	for _, v := range []string{"1999-01-01", "not-a-version"} {
		res, seq := exchange(e, x, "the twin with MCP-Protocol-Version: "+v, httpmcp.Exchange{
			Method: http.MethodPost, Body: body, Set: map[string]string{"Mcp-Protocol-Version": v}})
		if res == nil || res.Status != http.StatusBadRequest {
			ok = false
			e.Fail("MCP-HTTP-VERSION-1", seq, "a request with the unsupported MCP-Protocol-Version "+v+" was not refused 400, while its twin with the negotiated one was served",
				"400 Bad Request", answered(res))
			continue
		}
		if ok {
			e.Pass("MCP-HTTP-VERSION-1", seq)
		}
	}
	res, seq := exchange(e, x, "the twin without MCP-Protocol-Version", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Drop: []string{"Mcp-Protocol-Version"}})
	if served(res) {
		e.Pass("MCP-HTTP-VERSION-2", seq)
		return
	}
	e.Fail("MCP-HTTP-VERSION-2", seq, "a request without MCP-Protocol-Version was not served, while its twin with the header was",
		"served, assuming revision 2025-03-26 (or the session's)", answered(res))
}

// jsonObject decodes a body that must be one JSON object.
func jsonObject(b []byte) (map[string]any, bool) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// exchangerOf is the run's HTTP transport, when it speaks HTTP: the
// exchanges the probes make beside the session's messages.
func exchangerOf(e *scenario.Env) (httpmcp.Exchanger, bool) {
	var x httpmcp.Exchanger
	ok := e.Ability(&x)
	return x, ok
}
