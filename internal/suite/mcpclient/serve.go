package mcpclient

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// The server wirecheck plays: one tool that answers, one whose call is an
// error result, a resource, a prompt.
var tools = []any{
	map[string]any{"name": "echo", "description": "returns its text", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
	map[string]any{"name": "fail", "description": "always fails (an error result)", "inputSchema": map[string]any{"type": "object"}},
}

// refTool is a tool whose inputSchema resolves one $ref in the document
// and names another by a network URI, which 2026-07-28 basic/index says
// implementations must not dereference automatically.
func refTool(url string) map[string]any {
	return map[string]any{"name": "profile", "description": "a profile, its schema by reference", "inputSchema": map[string]any{
		"type":       "object",
		"$defs":      map[string]any{"userId": map[string]any{"type": "string"}},
		"properties": map[string]any{"id": map[string]any{"$ref": "#/$defs/userId"}, "profile": map[string]any{"$ref": url}},
	}}
}

func result(id any, r any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "result": r}
}

func rpcError(id any, code int, msg string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}}
}

func text(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

// answer is wirecheck's answer as the server to a request of the client
// (nil for initialize, which the scenario answers itself).
func answer(in *peer.Inbound, method string, id any) map[string]any {
	switch method {
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return result(id, map[string]any{})
	case "tools/list":
		return result(id, map[string]any{"tools": tools})
	case "tools/call":
		name, _ := in.Field("/params/name")
		switch name {
		case "echo":
			t, _ := in.Field("/params/arguments/text")
			s, _ := t.(string)
			return result(id, map[string]any{"content": text(s)})
		case "fail":
			return result(id, map[string]any{"content": text("the tool failed, as it always does"), "isError": true})
		}
		return rpcError(id, -32602, "unknown tool")
	case "resources/list":
		return result(id, map[string]any{"resources": []any{map[string]any{"uri": "file:///wirecheck/readme.txt", "name": "readme", "mimeType": "text/plain"}}})
	case "resources/templates/list":
		return result(id, map[string]any{"resourceTemplates": []any{}})
	case "resources/read":
		uri, _ := in.Field("/params/uri")
		if uri != "file:///wirecheck/readme.txt" {
			return rpcError(id, -32002, "resource not found")
		}
		return result(id, map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/plain", "text": "wirecheck plays this server"}}})
	case "prompts/list":
		return result(id, map[string]any{"prompts": []any{map[string]any{"name": "greet", "description": "a greeting"}}})
	case "prompts/get":
		return result(id, map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello"}}}})
	case "server/discover":
		return result(id, map[string]any{"supportedVersions": []any{"2026-07-28"}, "capabilities": serverCaps(), "serverInfo": map[string]any{"name": "wirecheck", "version": "0.1.0"}})
	case "completion/complete":
		return result(id, map[string]any{"completion": map[string]any{"values": []any{}}})
	}
	return rpcError(id, -32601, "method not found")
}

// serverCaps are the capabilities wirecheck declares as the server.
func serverCaps() map[string]any {
	return map[string]any{
		"tools":     map[string]any{"listChanged": true},
		"resources": map[string]any{"listChanged": true, "subscribe": true},
		"prompts":   map[string]any{"listChanged": true},
		"logging":   map[string]any{},
	}
}

// modernize makes a result one of 2026-07-28, which says what kind of
// result it is and how long it may be cached.
func modernize(resp map[string]any, method string) {
	r, ok := resp["result"].(map[string]any)
	if !ok {
		return
	}
	r["resultType"] = "complete"
	switch method {
	case "server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		r["cacheScope"], r["ttlMs"] = "private", 0
	}
}

// StepHandler answers, as the MCP server of revision p, every request a
// client under test sends in a scenario of steps (a fuzz campaign's
// sequences, a reproducer replay runs): initialize with p's revision and
// wirecheck's capabilities, the rest as the suite's server does. The Go
// scenarios answer for themselves and run without it. A revision with
// no handshake gets its results in that revision's form.
func StepHandler(p *spec.Protocol) peer.Handler {
	rev := p.Version
	handshake := rev == "" || p.Has(rev, revtable.Handshake)
	return func(in *peer.Inbound) []byte {
		mv, _ := in.Field("/method")
		method, _ := mv.(string)
		id, hasID := in.Field("/id")
		if !hasID || method == "" {
			return nil
		}
		var resp map[string]any
		if method == "initialize" {
			v := rev
			if !handshake {
				v = legacyRevision
			}
			resp = result(id, map[string]any{"protocolVersion": v, "capabilities": serverCaps(), "serverInfo": map[string]any{"name": "wirecheck", "version": "0.1.0"}})
		} else {
			resp = answer(in, method, id)
			if !handshake {
				modernize(resp, method)
			}
		}
		b, _ := json.Marshal(resp)
		return b
	}
}

// routeTool is a tool whose inputSchema marks parameters with
// x-mcp-header (2026-07-28 basic/transports/streamable-http, Custom
// Headers from Tool Parameters): a string, an integer, a boolean, a
// string nested in an object, and a nullable one. The defaults are the
// arguments a client without others may take: one is null (its header is
// omitted), two cannot travel plain (Base64).
var routeTool = map[string]any{"name": "route", "description": "routes a query; its annotated arguments travel in Mcp-Param headers too", "inputSchema": map[string]any{
	"type": "object",
	"properties": map[string]any{
		"region":   map[string]any{"type": "string", "x-mcp-header": "Region", "default": "us-west1"},
		"priority": map[string]any{"type": "integer", "x-mcp-header": "Priority", "default": 42},
		"verbose":  map[string]any{"type": "boolean", "x-mcp-header": "Verbose", "default": false},
		"greeting": map[string]any{"type": "string", "x-mcp-header": "Greeting", "default": "Hello, 世界"},
		"tag":      map[string]any{"type": []any{"string", "null"}, "x-mcp-header": "Tag", "default": nil},
		"target": map[string]any{"type": "object", "properties": map[string]any{
			"zone": map[string]any{"type": "string", "x-mcp-header": "Zone", "default": " padded "},
		}},
		"query": map[string]any{"type": "string", "default": "SELECT 1"},
	},
}}

// invalidTools break one constraint each on x-mcp-header values, which a
// client over Streamable HTTP rejects (leaves out of its tools); each is
// invalid on every reading of the text.
var invalidTools = []any{
	badTool("bad_empty", "an empty x-mcp-header", map[string]any{"v": map[string]any{"type": "string", "x-mcp-header": ""}}),
	badTool("bad_token", "an x-mcp-header that is no HTTP token (a space)", map[string]any{"v": map[string]any{"type": "string", "x-mcp-header": "Bad Name"}}),
	badTool("bad_duplicate", "two x-mcp-header values equal but for case", map[string]any{
		"a": map[string]any{"type": "string", "x-mcp-header": "Tenant"},
		"b": map[string]any{"type": "string", "x-mcp-header": "tenant"}}),
	badTool("bad_object", "an x-mcp-header on an object", map[string]any{"v": map[string]any{"type": "object", "x-mcp-header": "Data"}}),
	badTool("bad_number", "an x-mcp-header on a number", map[string]any{"v": map[string]any{"type": "number", "x-mcp-header": "Ratio"}}),
	badTool("bad_items", "an x-mcp-header under items, not reachable by properties alone", map[string]any{"v": map[string]any{"type": "array", "items": map[string]any{"type": "string", "x-mcp-header": "Item"}}}),
}

func badTool(name, what string, props map[string]any) map[string]any {
	return map[string]any{"name": name, "description": "invalid: " + what, "inputSchema": map[string]any{"type": "object", "properties": props}}
}

// invalidTool reports whether name is one of invalidTools.
func invalidTool(name any) bool {
	for _, t := range invalidTools {
		if t.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}
