package mcp

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
)

func jsonrpcErrors(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	// An unknown method, with an integer id (its type must come back).
	req := map[string]any{"jsonrpc": "2.0", "id": 4242, "method": "wirecheck/no-such-method"}
	if s.modern {
		// Unknown or not, a 2026-07-28 request carries the _meta every
		// request needs: without it a server rightly answers -32602.
		req["params"] = map[string]any{"_meta": meta(s.requested)}
	}
	in, _, err := e.Call(req)
	switch {
	case err != nil:
		if !errors.Is(err, scenario.ErrNoAnswer) || e.Hung {
			return err
		}
		// Refused at the HTTP level with no JSON-RPC message: the missing
		// response is MCP-JSONRPC-5's, judged already; there is no error
		// code to judge, and the server is still there for the
		// notification.
		e.Skip("MCP-JSONRPC-9", "no JSON-RPC answer to the unknown method to judge (its absence is MCP-JSONRPC-5's): "+err.Error())
	default:
		if c, ok := errorCode(in); ok && c == -32601 {
			e.Pass("MCP-JSONRPC-9", in.Seq)
		} else {
			e.Fail("MCP-JSONRPC-9", in.Seq, "an unknown method was not answered with error -32601", "error code -32601", string(in.Raw))
		}
	}
	// A notification nobody defined: no answer may come.
	if in := unanswered(e, s, "notifications/wirecheck/unknown", map[string]any{}); in != nil {
		e.Fail("MCP-JSONRPC-6", in.Seq, "a notification was answered", "no response to a notification", string(in.Raw))
	} else {
		e.Pass("MCP-JSONRPC-6", -1)
	}
	return nil
}

// badInput sends one line to an initialized server, judges its answer by
// rule, then checks that the server still answers ping. A barrier request
// follows the line, so a server that does not answer bad input costs one
// round trip, not a timeout.
func badInput(e *scenario.Env, rule, line string, code int64, idOK func(any) bool) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	// Over HTTP MCP-HTTP-BADBODY-1 judges the refusal and that the server
	// goes on, as MCP-STDIO-3 does on stdio (the spec's transports: skip
	// the other one).
	survives := "MCP-STDIO-3"
	switch httpKind(e) {
	case "":
	case "http":
		// The POST's own answer is the answer: a probe reads it.
		return badBody(e, rule, line, code, idOK)
	default:
		// The legacy transport answers on the stream, as stdio does: the
		// line goes as the session's own POST, owed an answer there.
		survives = "MCP-HTTP-BADBODY-1"
	}
	in, refusal := answerTo(e, s, []byte(line+"\n"))
	if in == nil && refusal != nil && refusal.HTTP.Status/100 == 4 {
		// The legacy transport refused the line's POST and sent no error
		// on the stream: as a bare 4xx over Streamable HTTP.
		passBareRefusal(e, rule, refusal.Seq, refusal.HTTP.End)
	} else {
		judgeBadAnswer(e, rule, line, code, idOK, in)
	}
	pin, err := e.Probe()
	if err != nil {
		e.FailUnanswered(survives, "the server did not answer ping after bad input: "+err.Error(), "an answer")
		return err
	}
	if survives != "MCP-STDIO-3" {
		e.Pass(survives, pin.Seq)
	}
	return nil
}

// judgeBadAnswer judges the answer to bad input by rule: an error with
// code, its id as idOK says.
func judgeBadAnswer(e *scenario.Env, rule, line string, code int64, idOK func(any) bool, in *peer.Inbound) {
	c, isErr := errorCode(in)
	switch {
	case in == nil:
		e.Fail(rule, -1, "no answer to "+line, fmt.Sprintf("an error response with code %d", code), "nothing")
	case !isErr || c != code:
		e.Fail(rule, in.Seq, "the answer is not error "+fmt.Sprint(code), fmt.Sprintf("an error response with code %d", code), string(in.Raw))
	case !idOK(field(in, "/id")):
		e.Fail(rule, in.Seq, "the error carries the wrong id", "id null (or the request's id where it could be read)", string(in.Raw))
	default:
		e.Pass(rule, in.Seq)
	}
}

func parseError(e *scenario.Env) error {
	// Invalid at once (a trailing comma), so a server reading a stream of
	// JSON values does not wait for more input.
	return badInput(e, "MCP-JSONRPC-7", `{"jsonrpc": "2.0", "id": 1, "method": "ping",}`, -32700, func(v any) bool { return v == nil })
}

func invalidRequest(e *scenario.Env) error {
	return badInput(e, "MCP-JSONRPC-8", `{"jsonrpc": "2.0", "id": "wc-invalid-1", "method": 42}`, -32600,
		func(v any) bool { return v == nil || v == "wc-invalid-1" })
}

func batch(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if r := e.Protocol.Rule("MCP-JSONRPC-10"); r != nil && !e.Protocol.Applies(r) {
		// No batch to send: the runner skips the rule with the spec's
		// reason (versions:).
		return nil
	}
	if !e.Protocol.Has(s.version, revtable.Batches) {
		// The session speaks what the server negotiated: a server that
		// answered another revision owes no batch support.
		e.Skip("MCP-JSONRPC-10", "batches belong to revision 2025-03-26 only; the server negotiated "+s.version)
		return nil
	}
	a, b := scenario.NextID("wc-batch"), scenario.NextID("wc-batch")
	line := fmt.Sprintf(`[{"jsonrpc":"2.0","id":%q,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/wirecheck/batched"},{"jsonrpc":"2.0","id":%q,"method":"ping"}]`, a, b)
	if httpKind(e) == "http" {
		batchPost(e, line, a, b)
		return nil
	}
	if err := e.SendRaw([]byte(line+"\n"), true); err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in := nextResponse(e, s, e.Timeout)
	if in == nil {
		e.Fail("MCP-JSONRPC-10", -1, "a batch of two pings and a notification was not answered", "an array of two responses", "nothing")
		return nil
	}
	arr, ok := in.Value.([]any)
	ids := map[string]bool{}
	for _, it := range arr {
		if m, isObj := it.(map[string]any); isObj {
			if _, res := m["result"]; res {
				ids[fmt.Sprint(m["id"])] = true
			}
		}
	}
	if !ok || len(arr) != 2 || !ids[a] || !ids[b] {
		e.Fail("MCP-JSONRPC-10", in.Seq, "the batch was not answered with the results of its two pings", "an array of two results, ids "+a+" and "+b, string(in.Raw))
		return nil
	}
	if err := e.SendRaw([]byte(invalidBatch(scenario.NextID("wc-batch"))+"\n"), true); err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	judgeInvalidElement(e, nextResponse(e, s, e.Timeout), nil)
	return nil
}

// invalidBatch is a batch of a ping and an element that is no request
// (nor a notification: it has no method), which JSON-RPC 2.0 §6 answers
// with an Invalid Request error of id null in the batch's answer.
func invalidBatch(id string) string {
	return fmt.Sprintf(`[{"jsonrpc":"2.0","id":%q,"method":"ping"},{}]`, id)
}

// judgeInvalidElement passes MCP-JSONRPC-10 when the batch's element that
// is no request drew an error: one of id null in the answer's array, or
// the whole batch refused with an error (or, over HTTP, a 4xx status),
// as a server that checks a batch whole does. Silence fails: to the
// client it is a request never answered. refusal is the line of an HTTP
// refusal of the batch.
func judgeInvalidElement(e *scenario.Env, in *peer.Inbound, refusal *int) {
	switch {
	case refusal != nil:
		e.Pass("MCP-JSONRPC-10", *refusal)
		return
	case in == nil:
		e.Fail("MCP-JSONRPC-10", -1, "the batch "+invalidBatch("…")+" drew no error for its element {}, which is no request",
			"an Invalid Request error with id null among the answers (JSON-RPC 2.0 §6)", "nothing")
		return
	}
	items, isArr := in.Value.([]any)
	if !isArr {
		items = []any{in.Value}
	}
	for _, it := range items {
		if m, isObj := it.(map[string]any); isObj && m["error"] != nil && (m["id"] == nil || !isArr) {
			e.Pass("MCP-JSONRPC-10", in.Seq)
			return
		}
	}
	e.Fail("MCP-JSONRPC-10", in.Seq, "the batch "+invalidBatch("…")+" drew no error for its element {}, which is no request",
		"an Invalid Request error with id null among the answers (JSON-RPC 2.0 §6)", string(in.Raw))
}

// batchPost (2025-03-26 over Streamable HTTP): the batch is one POST,
// answered by a JSON array body or by an SSE stream carrying the
// responses (in one event or several).
func batchPost(e *scenario.Env, line, a, b string) {
	res, seq := post(e, "POST a batch of two pings and a notification", []byte(line))
	ids := map[string]bool{}
	for _, m := range messages(res, seq) {
		items, isArr := m.Value.([]any)
		if !isArr {
			items = []any{m.Value}
		}
		for _, it := range items {
			if o, isObj := it.(map[string]any); isObj {
				if _, ok := o["result"]; ok {
					ids[fmt.Sprint(o["id"])] = true
				}
			}
		}
	}
	if !ids[a] || !ids[b] {
		e.Fail("MCP-JSONRPC-10", seq, "the batch was not answered with the results of its two pings",
			"a JSON array of two results, ids "+a+" and "+b+" (or an SSE stream carrying them)", answered(res))
		return
	}
	id := scenario.NextID("wc-batch")
	x, _ := exchangerOf(e)
	res, iseq := exchange(e, x, "POST a batch of a ping and {}, which is no request", httpmcp.Exchange{Method: http.MethodPost,
		Body: []byte(invalidBatch(id)), Until: bothAnswered(id)})
	if refused(res) {
		judgeInvalidElement(e, nil, &iseq)
		return
	}
	var in *peer.Inbound
	for _, m := range messages(res, iseq) {
		if in == nil || judgesError(m) {
			in = m
		}
	}
	if in == nil && res != nil {
		// No message (202, say): what came back is the evidence.
		in = &peer.Inbound{Raw: []byte(answered(res)), Seq: iseq, Value: nil}
	}
	judgeInvalidElement(e, in, nil)
}

// bothAnswered ends the SSE answer to invalidBatch(id) once it carried
// the ping's response and an error, in one event or two, in either order
// (the {} has no id to wait for, so the probe's default ends at the
// first response).
func bothAnswered(id string) func(sse.Event) bool {
	ping, refused := false, false
	return func(ev sse.Event) bool {
		v, err := schema.Decode([]byte(ev.Data))
		if err != nil {
			return false
		}
		items, isArr := v.([]any)
		if !isArr {
			items = []any{v}
		}
		for _, it := range items {
			m, _ := it.(map[string]any)
			ping = ping || (m["id"] == id && m["result"] != nil)
			refused = refused || m["error"] != nil
		}
		return ping && refused
	}
}

// judgesError reports whether a message is an error or carries one (a
// batch answer).
func judgesError(m *peer.Inbound) bool {
	items, isArr := m.Value.([]any)
	if !isArr {
		items = []any{m.Value}
	}
	for _, it := range items {
		if o, isObj := it.(map[string]any); isObj && o["error"] != nil {
			return true
		}
	}
	return false
}
