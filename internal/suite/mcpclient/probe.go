package mcpclient

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// Over HTTP a client of 2026-07-28 and an earlier revision probes with a
// request of 2026-07-28 (commonly server/discover) carrying
// MCP-Protocol-Version: 2026-07-28 and no Mcp-Session-Id. A server of
// 2025-11-25 "MUST respond with 400 Bad Request" to "an invalid or
// unsupported MCP-Protocol-Version", and one that requires sessions
// "SHOULD respond to requests without an Mcp-Session-Id header (other
// than initialization) with HTTP 400 Bad Request" (2025-11-25
// basic/transports); neither says what the body holds. A server of
// 2025-03-26 (no version header) without sessions answers the unknown
// method, commonly -32601 in a 200. wirecheck answers as the likeliest
// (400 with a JSON-RPC error of no modern code, as the TypeScript SDK's
// server does) and, in client-http-probe-fallback, each of the others.

// probeAnswer is one way a server of an earlier revision answers the
// probe: a refusal the transport writes, or (refusal nil) -32601 in a 200.
type probeAnswer struct {
	name, what string
	refusal    *httpserve.Refusal
}

// probeAnswers: the 400s first, the first the default.
var probeAnswers = []probeAnswer{
	{name: "400 with a JSON-RPC error", what: "HTTP 400 with a JSON-RPC error -32000 \"Bad Request: Server not initialized\" (no modern error's code)",
		refusal: &httpserve.Refusal{Status: http.StatusBadRequest, ContentType: "application/json", Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)}},
	{name: "400 with an empty body", what: "HTTP 400 with an empty body",
		refusal: &httpserve.Refusal{Status: http.StatusBadRequest}},
	{name: "400 with a text body", what: "HTTP 400 text/plain \"Bad Request: Mcp-Session-Id required\"",
		refusal: &httpserve.Refusal{Status: http.StatusBadRequest, ContentType: "text/plain; charset=utf-8", Body: []byte("Bad Request: Mcp-Session-Id required\n")}},
	{name: "-32601 in a 200", what: "-32601 in an HTTP 200 (a server that requires no session and reads no version header)"},
}

// refusals are the 400s of probeAnswers, which LIFECYCLE-6 judges.
const refusals = 3

func httpProbeScenario() *scenario.Scenario {
	var names []string
	for _, a := range probeAnswers[:refusals] {
		names = append(names, a.what)
	}
	return &scenario.Scenario{
		Name: "client-http-probe-fallback",
		Title: "over HTTP, play a server of " + legacyRevision + " that refuses the client's server/discover probe (2026-07-28, no session id) with each 400 such a server may send, the client launched afresh for each: " +
			strings.Join(names, "; ") + ". None is a recognized modern error: a client of both eras falls back to initialize after each (one that falls back after none is launched once more, its probe answered -32601 in a 200)",
		Rules: []string{"MCP-CLIENT-LIFECYCLE-6"},
		Fresh: true,
		Run:   httpProbeFallback,
	}
}

// probeOutcome is what one launch of the client did after its probe's
// answer.
type probeOutcome struct {
	probed       bool
	first        string // the method of its first request of 2026-07-28 that was not held
	fellBack     int    // line of its initialize, -1: none
	stayedModern int    // line of another request of 2026-07-28, -1: none
}

// probeLaunch serves one launch of the client as a server of
// legacyRevision answering its probe with a.
func probeLaunch(env *scenario.Env, a probeAnswer) (probeOutcome, error) {
	code := probeCode
	if a.refusal == nil {
		code = -32601
	}
	c := conv{probeCode: code, probeAnswer: &a, fellBack: -1, stayedModern: -1}
	if err := c.serve(env); err != nil {
		return probeOutcome{}, err
	}
	return probeOutcome{probed: c.probed, first: c.probeFirst, fellBack: c.fellBack, stayedModern: c.stayedModern}, nil
}

// httpProbeFallback judges MCP-CLIENT-LIFECYCLE-6: 2026-07-28
// basic/transports/streamable-http, Backward Compatibility, "If the body
// is empty or is not a recognized modern JSON-RPC error, fall back to
// initialize" under "On 400 Bad Request, the client SHOULD inspect the
// response body before falling back". A client that stops after a 400 is
// a client of 2026-07-28 alone, which has no initialize to fall back to,
// unless it falls back after another answer: then what decided was the
// answer's form.
func httpProbeFallback(env *scenario.Env) error {
	const rule = "MCP-CLIENT-LIFECYCLE-6"
	if !applies(env, rule) || httpSession(env) == nil {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	var fell, stopped []string
	for i, a := range probeAnswers[:refusals] {
		if i > 0 {
			if err := relaunch(env, "launched again, its probe is answered "+a.what); err != nil {
				return err
			}
		}
		o, err := probeLaunch(env, a)
		if err != nil {
			return err
		}
		switch {
		case !o.probed:
			env.Skip(rule, "the client sent no request of 2026-07-28 before initialize (it opened with initialize, or sent nothing): no probe, no fallback")
			return nil
		case o.first != "":
			env.Skip(rule, "the client's first request of 2026-07-28 is "+o.first+", not server/discover: wirecheck refuses only a server/discover probe with a 400 (it answered an error in a 200)")
			return nil
		case o.fellBack >= 0:
			fell = append(fell, a.name)
		case o.stayedModern >= 0:
			env.Fail(rule, o.stayedModern, fmt.Sprintf("answered %s to its probe, no recognized modern error, the client went on with requests of 2026-07-28 instead of falling back to initialize: it took the server for a modern one", a.what), "initialize (\"fall back to initialize\")", "another request of 2026-07-28")
			return nil
		default:
			stopped = append(stopped, a.name)
		}
	}
	switch {
	case len(stopped) == 0:
		env.Pass(rule, -1)
	case len(fell) > 0:
		env.Fail(rule, -1, fmt.Sprintf("the client fell back to initialize after its probe was answered %s, but stopped after %s: its fallback is keyed to the body's form, where any 400 without a recognized modern error is a legacy server's", strings.Join(fell, ", "), strings.Join(stopped, ", ")), "initialize after each 400", "a stop after "+strings.Join(stopped, ", "))
	default:
		control := probeAnswers[refusals]
		if err := relaunch(env, "the client stopped after each 400: launched again, its probe is answered "+control.what); err != nil {
			return err
		}
		o, err := probeLaunch(env, control)
		if err != nil {
			return err
		}
		if o.fellBack >= 0 {
			env.Fail(rule, o.fellBack, "the client stopped after each 400 answering its probe, yet fell back to initialize after -32601 in a 200: it falls back on a JSON-RPC error alone, where the text falls back on a 400 whose body is no recognized modern error", "initialize after each 400", "initialize after -32601 in a 200 alone")
		} else {
			env.Skip(rule, "the client fell back to initialize after no answer to its probe (three 400s, -32601 in a 200): a client of 2026-07-28 alone, which has no initialize to fall back to")
		}
	}
	return nil
}

// relaunch launches the client afresh for another answer to its probe.
func relaunch(env *scenario.Env, why string) error {
	env.Notef("%s", why)
	if err := env.Restart(); err != nil {
		return err
	}
	env.Closed = false
	return nil
}
