// Package mcpheader holds what MCP 2026-07-28's Streamable HTTP request
// metadata needs on both ends: the `x-mcp-header` annotations of a tool's
// inputSchema (read and judged), the value an annotated argument puts in
// its Mcp-Param header, and the Base64 sentinel encoding of header values
// (shared/reference/mcp/2026-07-28/spec/basic/transports/streamable-http.mdx,
// Custom Headers from Tool Parameters; server/tools.mdx § x-mcp-header).
package mcpheader

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Param is one valid annotation: the header name part and the chain of
// `properties` keys that leads to the annotated property.
type Param struct {
	Name string
	Path []string
}

// Header is the request header the annotation names.
func (p Param) Header() string { return "Mcp-Param-" + p.Name }

// Tool is a tool of a tools/list result as both ends read it: its valid
// annotations, or Err, why its definition is invalid.
type Tool struct {
	Name   string
	Params []Param
	Err    error
}

// Listed reads the tools of a tools/list result message, each with its
// annotations (Params); false when msg is no JSON.
func Listed(msg []byte) ([]Tool, bool) {
	var v struct {
		Result struct {
			Tools []struct {
				Name        string `json:"name"`
				InputSchema any    `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	d := json.NewDecoder(bytes.NewReader(msg))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	out := make([]Tool, 0, len(v.Result.Tools))
	for _, t := range v.Result.Tools {
		ps, err := Params(t.InputSchema)
		out = append(out, Tool{Name: t.Name, Params: ps, Err: err})
	}
	return out, true
}

// Params reads the annotations of an inputSchema, or says why the tool
// definition is invalid (server/tools.mdx § x-mcp-header: "Clients using
// the Streamable HTTP transport **MUST** reject tool definitions where any
// `x-mcp-header` value violates these constraints"). Where the text is
// silent (a property without "type") the annotation is taken as valid.
func Params(schema any) ([]Param, error) {
	var out []Param
	seen := map[string]bool{}
	var walk func(v any, path []string, reachable bool, where string) error
	walk = func(v any, path []string, reachable bool, where string) error {
		switch n := v.(type) {
		case []any:
			for i, e := range n {
				if err := walk(e, nil, false, fmt.Sprintf("%s/%d", where, i)); err != nil {
					return err
				}
			}
		case map[string]any:
			if h, has := n["x-mcp-header"]; has {
				p, err := check(h, n, path, reachable, where)
				if err != nil {
					return err
				}
				if seen[strings.ToLower(p.Name)] {
					return fmt.Errorf("x-mcp-header %q at %s repeats another annotation of the inputSchema (names are compared case-insensitively)", p.Name, where)
				}
				seen[strings.ToLower(p.Name)] = true
				out = append(out, p)
			}
			for _, k := range sortedKeys(n) {
				if k == "properties" {
					props, ok := n[k].(map[string]any)
					if ok {
						for _, pk := range sortedKeys(props) {
							if err := walk(props[pk], append(path[:len(path):len(path)], pk), reachable, where+"/properties/"+pk); err != nil {
								return err
							}
						}
						continue
					}
				}
				if k != "x-mcp-header" {
					if err := walk(n[k], nil, false, where+"/"+k); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := walk(schema, nil, true, "inputSchema"); err != nil {
		return nil, err
	}
	return out, nil
}

func check(h any, node map[string]any, path []string, reachable bool, where string) (Param, error) {
	name, ok := h.(string)
	switch {
	case !ok:
		return Param{}, fmt.Errorf("x-mcp-header at %s is %s, not a string", where, show(h))
	case name == "":
		return Param{}, fmt.Errorf("x-mcp-header at %s is empty", where)
	case !token(name):
		return Param{}, fmt.Errorf("x-mcp-header %q at %s is not an HTTP field-name token (1*tchar)", name, where)
	case !reachable || len(path) == 0:
		return Param{}, fmt.Errorf("x-mcp-header %q at %s is not on a property statically reachable from the schema root through properties keys only", name, where)
	}
	for _, t := range types(node["type"]) {
		switch t {
		case "string", "integer", "boolean", "null":
		default:
			return Param{}, fmt.Errorf("x-mcp-header %q at %s annotates a property of type %q (only integer, string and boolean are permitted)", name, where, t)
		}
	}
	return Param{Name: name, Path: path}, nil
}

func types(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			s, _ := e.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// token reports whether s is 1*tchar (RFC 9110 §5.6.2), which leaves out
// control characters too.
func token(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return s != ""
}

// At is the argument at p.Path: present is false when the arguments
// hold nothing there (a null there is present, and nil).
func (p Param) At(args any) (v any, present bool) {
	v = args
	for _, k := range p.Path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Raw is the string an argument at p.Path converts to before encoding
// (strings as they are, integers in decimal, booleans lower case), or
// false when the header is to be omitted (no value, or null: "Client MUST
// omit the header").
func (p Param) Raw(args any) (string, bool) {
	v, _ := p.At(args)
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case json.Number:
		return Decimal(string(x)), true
	case float64:
		return Decimal(strconv.FormatFloat(x, 'f', -1, 64)), true
	}
	return "", false
}

// Value is the header value an argument at p.Path puts in Mcp-Param: Raw,
// encoded (Encode).
func (p Param) Value(args any) (string, bool) {
	raw, ok := p.Raw(args)
	if !ok {
		return "", false
	}
	return Encode(raw), true
}

// Decimal writes a JSON number holding an integer value in decimal (42.0,
// 4.2e1 → 42); any other number as it came.
func Decimal(n string) string {
	r, ok := new(big.Rat).SetString(n)
	if !ok || !r.IsInt() {
		return n
	}
	return r.Num().String()
}

const prefix, suffix = "=?base64?", "?="

// Encode is v as a header value: plain when every byte is visible ASCII,
// space or tab with no space at either end and it does not look like the
// sentinel; else "=?base64?…?=" of its UTF-8 (streamable-http.mdx, Value
// Encoding).
func Encode(v string) string {
	if Plain(v) {
		return v
	}
	return prefix + base64.StdEncoding.EncodeToString([]byte(v)) + suffix
}

// Plain reports whether v may travel as it is.
func Plain(v string) bool {
	return Literal(v) && !(strings.HasPrefix(v, prefix) && strings.HasSuffix(v, suffix))
}

// Literal reports whether v reaches the server unchanged as a header
// value: visible ASCII, space and tab (RFC 9110 field values, as Value
// Encoding quotes it), and no space or tab at either end, which readers
// trim. A header the text gives no encoding (Mcp-Method,
// MCP-Protocol-Version: the Base64 sentinel is for Mcp-Name and
// Mcp-Param only) cannot carry any other value.
func Literal(v string) bool {
	if v != strings.Trim(v, " \t") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// Decode is a header value as the body holds it: a sentinel-encoded
// value decoded, others as they are; false for a sentinel whose Base64
// does not decode.
func Decode(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, prefix)
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, suffix)
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return v, false
	}
	return string(b), true
}

// sortedKeys keeps the first error found the same from run to run.
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Request is what the metadata headers of one request mirror from its
// body.
type Request struct {
	Method string
	// Revision is _meta's io.modelcontextprotocol/protocolVersion.
	Revision string
	// Name is the source of Mcp-Name (params.name, params.uri for
	// resources/read, params.taskId for the tasks extension's methods),
	// HasName whether the body holds it as a string.
	Name      string
	HasName   bool
	Arguments any
}

// Read reads a request body (a single JSON-RPC message; numbers as
// json.Number), or says it is none.
func Read(body []byte) (Request, bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name      any            `json:"name"`
			URI       any            `json:"uri"`
			TaskID    any            `json:"taskId"`
			Arguments any            `json:"arguments"`
			Meta      map[string]any `json:"_meta"`
		} `json:"params"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return Request{}, false
	}
	r := Request{Method: m.Method, Arguments: m.Params.Arguments}
	r.Revision, _ = m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	src := m.Params.Name
	switch m.Method {
	case "resources/read":
		src = m.Params.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		src = m.Params.TaskID
	}
	r.Name, r.HasName = src.(string)
	return r, true
}

// NameRequired reports whether the request carries Mcp-Name: "Required
// For `tools/call`, `resources/read`, `prompts/get` requests" (Standard
// Request Headers), and the tasks extension's (io.modelcontextprotocol/
// tasks, Streamable HTTP: Routing Headers): "When `tasks/get`,
// `tasks/update`, or `tasks/cancel` is sent over the Streamable HTTP
// transport, the client **MUST** set the `Mcp-Name` header to the value
// of `params.taskId`".
func (r Request) NameRequired() bool {
	switch r.Method {
	case "tools/call", "resources/read", "prompts/get", "tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}
