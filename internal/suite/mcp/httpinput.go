package mcp

import (
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
)

// The existing scenarios over HTTP: where a raw line's answer on stdio is
// the next line the server writes, over Streamable HTTP it is the answer
// to the POST that carried it, and an HTTP refusal is an answer too.

// httpKind is "" on stdio, else the HTTP transport's kind ("http", "sse").
func httpKind(e *scenario.Env) string {
	if x, ok := exchangerOf(e); ok {
		return x.Kind()
	}
	return ""
}

// post sends body as its own POST of the session and returns what came
// back, noted in the transcript.
func post(e *scenario.Env, what string, body []byte, drop ...string) (*httpmcp.Result, int) {
	x, _ := exchangerOf(e)
	return exchange(e, x, what, httpmcp.Exchange{Method: http.MethodPost, Body: body, Drop: drop})
}

// messages are the JSON-RPC messages a POST's answer carried (its JSON
// body or its events), as frames of the transcript line seq.
func messages(res *httpmcp.Result, seq int) []*peer.Inbound {
	if res == nil {
		return nil
	}
	raws := res.Frames
	if len(raws) == 0 && len(res.Body) > 0 {
		raws = [][]byte{res.Body}
	}
	var out []*peer.Inbound
	for _, raw := range raws {
		v, err := schema.Decode(raw)
		if err != nil {
			continue
		}
		out = append(out, &peer.Inbound{Raw: raw, Seq: seq, Value: v})
	}
	return out
}

// badBody POSTs bad input on its own: refused with a 4xx status
// (MCP-HTTP-BADBODY-1), with a JSON-RPC error (rule) when the body is
// JSON-RPC, and the server goes on answering.
func badBody(e *scenario.Env, rule, line string, code int64, idOK func(any) bool) error {
	res, seq := post(e, "POST the body "+line, []byte(line))
	bad := false
	switch {
	case refused(res):
	case res == nil:
		bad = true
		e.Fail("MCP-HTTP-BADBODY-1", seq, "a body that is no JSON-RPC message got no answer", "a 4xx refusal (400, 406, 415, 422)", "nothing")
	default:
		bad = true
		e.Fail("MCP-HTTP-BADBODY-1", seq, "a body that is no JSON-RPC message was not refused with a 4xx status", "a 4xx refusal (400, 406, 415, 422)", answered(res))
	}
	judgeBodyAnswer(e, rule, line, code, idOK, res, seq)
	pin, err := e.Probe()
	if err != nil {
		e.FailUnanswered("MCP-HTTP-BADBODY-1", "the server did not answer ping after bad input: "+err.Error(), "an answer")
		return err
	}
	if !bad {
		e.Pass("MCP-HTTP-BADBODY-1", pin.Seq)
	}
	return nil
}

// judgeBodyAnswer judges rule on what the POST of a bad body got back
// (transcript line seq): its JSON-RPC error, or a 4xx without one.
func judgeBodyAnswer(e *scenario.Env, rule, line string, code int64, idOK func(any) bool, res *httpmcp.Result, seq int) {
	var in *peer.Inbound
	for _, m := range messages(res, seq) {
		if _, ok := m.Field("/error"); ok {
			in = m
			break
		}
		if in == nil {
			in = m
		}
	}
	switch {
	case in == nil && refused(res):
		passBareRefusal(e, rule, seq, answered(res))
	case in == nil && res != nil:
		e.Fail(rule, seq, "the answer to "+line+" carries no JSON-RPC error", fmt.Sprintf("an error response with code %d, or a 4xx refusal", code), answered(res))
	default:
		judgeBadAnswer(e, rule, line, code, idOK, in)
	}
}

// passBareRefusal passes MCP-JSONRPC-7/8 on a 4xx whose body is no
// JSON-RPC message, over http and sse, saying on which reading: of input
// a server cannot accept the Streamable HTTP page asks an HTTP error
// status and makes the JSON-RPC error optional. It is written for
// responses and notifications, but a server author may read it for any
// body it cannot parse (docs/silence.md); a 2xx, or a JSON-RPC error with
// another code, still fails.
func passBareRefusal(e *scenario.Env, rule string, seq int, how string) {
	e.PassNote(rule, seq,
		"refused with "+how+" and no JSON-RPC error: of input a server cannot accept, \"The HTTP response body **MAY** comprise a JSON-RPC _error response_\" (2025-03-26 basic/transports § Sending Messages to the Server), read for any body the server cannot parse")
}
