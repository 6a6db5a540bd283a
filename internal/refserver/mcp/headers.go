package mcp

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
)

// What 2026-07-28 asks of a Streamable HTTP server beyond the core: the
// request metadata headers checked against the body (HeaderMismatch,
// -32020, with 400), and the HTTP statuses its errors travel with
// (shared/reference/mcp/2026-07-28/spec/basic/transports/streamable-http.mdx,
// Request Metadata and Server Validation).

// headerTools are the 2026-07-28 tools that mirror arguments into
// Mcp-Param headers: geo (a string, an integer and an optional string
// annotated; its name plain ASCII, as 2025-11-25 server/tools#tool-names
// asks, MCP-TOOLS-9) and, with the fault
// x-mcp-header-number, scale (a number annotated, which the text forbids).
func headerTools(number bool) []tool {
	ts := []tool{{
		def: obj{"name": "geo", "description": "Names a region and a zone (both mirrored into Mcp-Param headers).",
			"inputSchema": obj{"type": "object", "properties": obj{
				"region": obj{"type": "string", "x-mcp-header": "Region"},
				"zone":   obj{"type": "integer", "minimum": 0, "maximum": 99, "x-mcp-header": "Zone"},
				"note":   obj{"type": "string", "x-mcp-header": "Note"}},
				"required": []any{"region", "zone"}}},
		run: func(s *server, a obj) obj {
			return obj{"content": []any{text(show(a["region"]) + " zone " + show(a["zone"]))}}
		},
	}}
	if number {
		ts = append(ts, tool{
			def: obj{"name": "scale", "description": "Scales by a factor.",
				"inputSchema": obj{"type": "object", "properties": obj{"factor": obj{"type": "number", "x-mcp-header": "Factor"}}}},
			run: func(s *server, a obj) obj { return obj{"content": []any{text(show(a["factor"]))}} },
		})
	}
	return ts
}

// headerMismatch is why a 2026-07-28 request's headers are refused, or ""
// when they agree with its body.
func (f *Front) headerMismatch(r *http.Request, body []byte) string {
	m, ok := mcpheader.Read(body)
	if !ok {
		return ""
	}
	get := f.lookup(r)
	switch v, ok := get("MCP-Protocol-Version"); {
	case !ok && !f.variants["version-header-optional"] && !f.variants["version-header-optional-unlisted"] && !f.faults["no-version-header-served"]:
		// The server supports no client before 2025-06-18: the
		// reference server serves them through initialize, but only
		// these variants claim that leg for a request without the header.
		return missing("MCP-Protocol-Version")
	case ok && v != m.Revision && !f.faults["header-meta-mismatch-served"]:
		return mismatch("MCP-Protocol-Version", v, m.Revision)
	}
	if !f.faults["mcp-method-unchecked"] {
		switch v, ok := get("Mcp-Method"); {
		case !ok:
			return missing("Mcp-Method")
		case v != m.Method:
			return mismatch("Mcp-Method", v, m.Method)
		}
	}
	if !m.NameRequired() {
		return ""
	}
	if !f.nameUnchecked(m.Method) {
		switch v, ok := get("Mcp-Name"); {
		case !ok:
			return missing("Mcp-Name")
		case f.decode(v) != m.Name:
			return mismatch("Mcp-Name", v, m.Name)
		}
	}
	if m.Method == "tools/call" {
		return f.paramMismatch(get, m.Name, m.Arguments)
	}
	return ""
}

// nameUnchecked reports whether a fault leaves the Mcp-Name of method
// unchecked: the core's methods and the tasks extension's each have one.
func (f *Front) nameUnchecked(method string) bool {
	if strings.HasPrefix(method, "tasks/") {
		return f.faults["task-ext-name-unchecked"]
	}
	return f.faults["mcp-name-unchecked"]
}

// paramMismatch judges the Mcp-Param headers of a call of one of the
// headerTools ("Server Behavior for Custom Headers").
func (f *Front) paramMismatch(get func(string) (string, bool), name string, args any) string {
	for _, t := range headerTools(false) {
		if t.def["name"] != name {
			continue
		}
		ps, _ := mcpheader.Params(t.def["inputSchema"])
		for _, p := range ps {
			body, has := p.Value(args)
			v, sent := get(p.Header())
			switch {
			case sent && !headerSafe(v) && !f.faults["param-bad-chars-served"]:
				return "Header mismatch: " + p.Header() + " header value " + show(v) + " contains invalid characters"
			case !sent && !has && f.faults["param-header-required"]:
				return missing(p.Header())
			case f.faults["param-unchecked"]:
			case !sent && has:
				return missing(p.Header())
			case sent && !has:
				return mismatch(p.Header(), v, "")
			case sent && !sameValue(f.decode(v), plain(body)):
				return mismatch(p.Header(), v, body)
			}
		}
	}
	return ""
}

// decode is a header value as the body holds it; with base64-not-decoded
// the value as it came.
func (f *Front) decode(v string) string {
	if f.faults["base64-not-decoded"] {
		return v
	}
	d, _ := mcpheader.Decode(v)
	return d
}

// plain is the argument's value as the body holds it (Value gives it
// encoded when it needs the Base64 sentinel).
func plain(v string) string {
	d, _ := mcpheader.Decode(v)
	return d
}

// sameValue compares an argument's header and body values, integers
// numerically (42 and 42.0 are equal: the SHOULD of Server Validation).
func sameValue(h, b string) bool {
	if h == b {
		return true
	}
	x, okx := new(big.Rat).SetString(h)
	y, oky := new(big.Rat).SetString(b)
	return okx && oky && x.Cmp(y) == 0
}

// headerSafe: every byte visible ASCII, space or tab (Value Encoding).
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

func missing(h string) string {
	return "Header mismatch: required header " + h + " is missing"
}

func mismatch(h, got, want string) string {
	return "Header mismatch: " + h + " header value '" + got + "' does not match body value '" + want + "'"
}

// lookup finds a request header by name in any case ("Clients and
// servers MUST use case-insensitive comparisons for header names"); with
// the fault header-names-exact only a name written in Go's canonical case
// counts, which takes the names as they came on the wire (rawnames.go).
func (f *Front) lookup(r *http.Request) func(string) (string, bool) {
	exact := map[string]bool(nil)
	if f.faults["header-names-exact"] {
		exact = rawNames(r)
	}
	return func(name string) (string, bool) {
		vs := r.Header.Values(name)
		if len(vs) == 0 || exact != nil && !exact[http.CanonicalHeaderKey(name)] {
			return "", false
		}
		return strings.Join(vs, ","), true
	}
}

// refuseHeaders answers a request whose headers disagree with its body.
func (f *Front) refuseHeaders(w http.ResponseWriter, key, why string) {
	f.writeJSON(w, http.StatusBadRequest, []byte(`{"jsonrpc":"2.0","id":`+key+`,"error":{"code":-32020,"message":`+show(why)+`}}`))
}

// modernStatus is the HTTP status a 2026-07-28 error answer travels with:
// 400 for an unsupported revision, a request missing _meta fields or a
// capability; 404 for an unknown method; 200 otherwise.
func (f *Front) modernStatus(line []byte) int {
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || m.Error == nil {
		return http.StatusOK
	}
	switch e := m.Error; {
	case e.Code == -32022 && !f.faults["unsupported-version-200"]:
		return http.StatusBadRequest
	case e.Code == -32601 && !f.faults["unknown-method-200"]:
		return http.StatusNotFound
	case e.Code == -32602 && strings.HasPrefix(e.Message, "Invalid params: _meta lacks") && !f.faults["meta-error-200"]:
		return http.StatusBadRequest
	case e.Code == -32021 && !f.faults["capability-error-200"]:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
