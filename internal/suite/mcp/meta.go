package mcp

import (
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// judgeStatus400 decides rule (MCP-META-3, MCP-META-4) on an error answer
// whose HTTP status the text fixes at 400; on stdio there is no status.
func judgeStatus400(e *scenario.Env, rule string, in *peer.Inbound, what string) {
	if in.HTTP == nil {
		e.Skip(rule, "no HTTP status: this run does not speak Streamable HTTP")
		return
	}
	if in.HTTP.Status == http.StatusBadRequest {
		e.Pass(rule, in.Seq)
		return
	}
	e.Fail(rule, in.Seq, fmt.Sprintf("%s came with HTTP status %d", what, in.HTTP.Status), "400 Bad Request",
		fmt.Sprintf("HTTP %d %s: %s", in.HTTP.Status, in.HTTP.ContentType, show(string(in.Raw))))
}

// judgeCapabilityError is MCP-META-4 on every answer of a 2026-07-28
// session: "the server **MUST** return a `MissingRequiredClientCapabilityError`
// (`-32021`) … On HTTP, the response status **MUST** be `400 Bad Request`."
func (s *session) judgeCapabilityError(e *scenario.Env, in *peer.Inbound) {
	if c, ok := errorCode(in); !ok || c != -32021 || in.HTTP == nil {
		return
	}
	s.mu.Lock()
	s.capErrors++
	s.mu.Unlock()
	judgeStatus400(e, "MCP-META-4", in, "a MissingRequiredClientCapabilityError (-32021)")
}

// capabilityErrors counts the -32021 answers judged so far.
func (s *session) capabilityErrors() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capErrors
}

// metaRequired sends tools/list whose _meta names the revision but lacks
// io.modelcontextprotocol/clientCapabilities, a field every request must
// carry: the server must refuse it with -32602 (MCP-META-1). The revision
// stays, so a dual-era server knows the request is a modern one.
func metaRequired(e *scenario.Env, s *session) error {
	m := meta(s.requested)
	delete(m, "io.modelcontextprotocol/clientCapabilities")
	c, err := e.Send(request("tools/list", map[string]any{"_meta": m}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in, err := e.Await(c, 0)
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-META-1", in.Seq)
		judgeStatus400(e, "MCP-META-3", in, "the -32602 refusing a request whose _meta lacks a required field")
		return nil
	}
	e.Fail("MCP-META-1", in.Seq, "a request whose _meta lacks io.modelcontextprotocol/clientCapabilities was not answered with error -32602",
		"error code -32602 (Invalid params): the request is malformed", string(in.Raw))
	e.Skip("MCP-META-3", "the request missing a required _meta field was not refused -32602 (MCP-META-1): no such refusal whose status to judge")
	return nil
}

// judgeServerInfo decides MCP-META-2 on the answer to a 2026-07-28 request
// wirecheck sent with its full _meta (not the liveness ping, nor a request
// naming an unknown revision): a result names the server.
func (s *session) judgeServerInfo(e *scenario.Env, in *peer.Inbound) {
	if !isResult(in) {
		return
	}
	info, _ := field(in, "/result/_meta/io.modelcontextprotocol~1serverInfo").(map[string]any)
	// Implementation requires both as strings; the schema does not forbid
	// an empty version (the Go SDK sends one).
	name, _ := info["name"].(string)
	_, hasVersion := info["version"].(string)
	if name != "" && hasVersion {
		e.Pass("MCP-META-2", in.Seq)
		return
	}
	e.Fail("MCP-META-2", in.Seq, "a result without io.modelcontextprotocol/serverInfo (name and version) in its _meta",
		`"_meta": {"io.modelcontextprotocol/serverInfo": {"name": …, "version": …}}`, string(in.Raw))
}
