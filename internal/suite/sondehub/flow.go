package sondehub

import (
	"net/http"
	"slices"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

// flow follows the page's connection flow in a session of its own, as its
// curl example does: initialize (the session id from the answer's
// headers), then tools/list and tools/call with that id; and the same
// requests without the token.
func flow(e *scenario.Env) error {
	x, err := exchanger(e, flowRules...)
	if x == nil || err != nil {
		return err
	}
	noSession := map[string]string{}
	res, seq := post(e, x, "initialize, as step 1 of the connection flow sends it (no session id)", mcpsuite.InitRequest(e.Protocol.Version), noSession, "Mcp-Session-Id")
	without, wseq := post(e, x, "the same initialize without Authorization", mcpsuite.InitRequest(e.Protocol.Version), noSession, "Mcp-Session-Id", "Authorization")
	judgeRefused(e, "SONDE-HUB-AUTH-1", without, wseq, "initialize without the Bearer token was served")
	if !hasResult(res, seq) {
		skipAll(e, "initialize with the run's credentials was not served with a result ("+mcpsuite.Answered(res)+"): give the hub's token with --header 'Authorization: Bearer …'",
			"SONDE-HUB-TRANSPORT-1", "SONDE-HUB-FLOW-1", "SONDE-HUB-FLOW-2", "SONDE-HUB-FLOW-3", "SONDE-HUB-AUTH-2")
		return nil
	}
	if mt := mediaType(res.Header); mt == "application/json" || mt == "text/event-stream" {
		e.Pass("SONDE-HUB-TRANSPORT-1", seq)
	} else {
		e.Fail("SONDE-HUB-TRANSPORT-1", seq, "initialize was answered with neither JSON nor an SSE stream", "Content-Type application/json or text/event-stream", mcpsuite.Answered(res))
	}
	sid := res.Header.Get("Mcp-Session-Id")
	if sid == "" {
		e.Fail("SONDE-HUB-FLOW-1", seq, "the answer to initialize carries no mcp-session-id header", "an Mcp-Session-Id response header", mcpsuite.Answered(res))
		skipAll(e, "no session id to send (SONDE-HUB-FLOW-1)", "SONDE-HUB-FLOW-2", "SONDE-HUB-FLOW-3", "SONDE-HUB-AUTH-2")
		return nil
	}
	e.Pass("SONDE-HUB-FLOW-1", seq)
	session := map[string]string{"Mcp-Session-Id": sid}
	defer mcpsuite.Probe(e, x, "DELETE the flow's session", httpmcp.Exchange{Method: http.MethodDelete, Set: session})
	post(e, x, "notifications/initialized in the flow's session", map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
	list, lseq := post(e, x, "tools/list with the session id (step 4)", mcpsuite.Request("tools/list", nil), session)
	listed := listedNames(list, lseq)
	if listed == nil {
		e.Fail("SONDE-HUB-FLOW-2", lseq, "tools/list with the session id was not answered with the tools", "a result with tools", mcpsuite.Answered(list))
	} else {
		e.Pass("SONDE-HUB-FLOW-2", lseq)
	}
	bare, bseq := post(e, x, "tools/list with the session id but without Authorization", mcpsuite.Request("tools/list", nil), session, "Authorization")
	judgeRefused(e, "SONDE-HUB-AUTH-2", bare, bseq, "a request of the session without the Bearer token was served")
	name := ""
	for _, t := range []string{"list_agents", "list_capabilities", "health_check"} {
		if slices.Contains(listed, t) {
			name = t
			break
		}
	}
	if name == "" {
		e.Skip("SONDE-HUB-FLOW-3", "no documented tool without required parameters is listed (list_agents, list_capabilities, health_check): nothing to call with arguments wirecheck knows valid")
		return nil
	}
	call, cseq := post(e, x, "tools/call "+name+" with the session id (step 5)", mcpsuite.Request("tools/call", map[string]any{"name": name, "arguments": map[string]any{}}), session)
	if hasResult(call, cseq) {
		e.Pass("SONDE-HUB-FLOW-3", cseq)
	} else {
		e.Fail("SONDE-HUB-FLOW-3", cseq, "tools/call of "+name+" was not answered with a tool result", "a CallToolResult", mcpsuite.Answered(call))
	}
	return nil
}

// judgeRefused decides a rule that a request without the token is not
// served: any answer but a result passes (MCP-AUTH-2 judges its status).
func judgeRefused(e *scenario.Env, rule string, res *httpmcp.Result, seq int, msg string) {
	if hasResult(res, seq) {
		e.Fail(rule, seq, msg, "a refusal (MCP asks 401)", mcpsuite.Answered(res))
		return
	}
	e.Pass(rule, seq)
}

// listedNames are the tool names of a tools/list answer (its first page);
// nil when it carried no tools list.
func listedNames(res *httpmcp.Result, seq int) []string {
	if !hasResult(res, seq) {
		return nil
	}
	v, _ := answer(res, seq).Field("/result/tools")
	ts, ok := v.([]any)
	if !ok {
		return nil
	}
	names := []string{}
	for _, t := range ts {
		if m, ok := t.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return names
}
