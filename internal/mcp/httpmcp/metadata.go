package httpmcp

import (
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
)

// metadata sets what a 2026-07-28 client MUST send with a request beside
// its body (streamable-http.mdx, Request Metadata): MCP-Protocol-Version
// as the body's _meta names it, Mcp-Method, Mcp-Name for tools/call,
// resources/read and prompts/get, and an Mcp-Param header for each
// x-mcp-header argument the call carries, values encoded as Value
// Encoding says. Earlier revisions get none of them. It returns why the
// request cannot be sent as the revision requires ("" when it can): a
// method or revision no header value carries as it is, where the text
// gives that header no encoding (see unsent).
func (c *client) metadata(h http.Header, body []byte) string {
	out := classify(body)
	if out.method == "initialize" {
		// The handshake negotiates the revision of a session of the
		// initialize era: it names none in a header, not even the
		// 2026-07-28 one a server that declined it was asked for before
		// (a client falling back, streamable-http.mdx, Backward
		// Compatibility), which it would refuse with -32022.
		h.Del("MCP-Protocol-Version")
		return ""
	}
	if out.batch || out.method == "" {
		return ""
	}
	c.mu.Lock()
	modern := namesRevisionInMeta(c.revision)
	c.mu.Unlock()
	if out.revision != "" {
		// Only 2026-07-28 and later name the revision in _meta: whatever
		// it names (an unknown one included), the request is of that era.
		modern = true
		if !mcpheader.Literal(out.revision) {
			return unsent("revision", out.revision, "MCP-Protocol-Version")
		}
		h.Set("MCP-Protocol-Version", out.revision)
	}
	if !modern {
		return ""
	}
	if !mcpheader.Literal(out.method) {
		return unsent("method", out.method, "Mcp-Method")
	}
	h.Set("Mcp-Method", out.method)
	r, ok := mcpheader.Read(body)
	if !ok || !r.NameRequired() || !r.HasName {
		return ""
	}
	h.Set("Mcp-Name", mcpheader.Encode(r.Name))
	if r.Method != "tools/call" {
		return ""
	}
	c.mu.Lock()
	params := c.params[r.Name]
	c.mu.Unlock()
	for _, p := range params {
		if v, ok := p.Value(r.Arguments); ok {
			h.Set(p.Header(), v)
		}
	}
	return ""
}

// unsent says why a message is not sent: its header must mirror the
// body's value, a header field cannot hold it (a control character, a
// byte beyond ASCII, a space at either end), and only Mcp-Name and
// Mcp-Param values may be Base64-encoded (streamable-http.mdx, Standard
// Request Headers, Value Encoding). No server could be sent it, so
// whatever follows is no verdict on the server (transport.Via.Unsent).
func unsent(what, v, header string) string {
	return fmt.Sprintf("its %s %q cannot be a %s header value (visible ASCII, no space at either end), and the revision gives that header no encoding", what, v, header)
}

// maxParamTools bounds the tools whose annotations a session keeps: a
// server listing new tools for ever must not grow it without end.
const maxParamTools = 4096

// learnParams records the x-mcp-header annotations of the tools a
// tools/list answer lists; a tool whose annotations are invalid is one a
// client MUST reject (server/tools.mdx § x-mcp-header), so it gets none.
// Called with c.mu held.
func (c *client) learnParams(raw []byte) {
	tools, _ := mcpheader.Listed(raw)
	for _, t := range tools {
		ps := t.Params
		if t.Err != nil || len(ps) == 0 {
			delete(c.params, t.Name)
			continue
		}
		if c.params == nil {
			c.params = map[string][]mcpheader.Param{}
		}
		if _, known := c.params[t.Name]; known || len(c.params) < maxParamTools {
			c.params[t.Name] = ps
		}
	}
}
