package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// What 2026-07-28 asks of a Streamable HTTP server beyond the core: the
// request metadata headers checked against the body (HeaderMismatch,
// -32020, with 400), and the HTTP statuses its errors travel with.
//
// A header that is absent is not refused yet: wirecheck's client sends
// only MCP-Protocol-Version (not Mcp-Method, Mcp-Name), so refusing their
// absence would stop every 2026-07-28 run over HTTP. A header that is
// present and disagrees with the body is.

// headerMismatch is the error a request whose headers disagree with its
// body is refused with, or "" when they agree (or are absent).
func (f *Front) headerMismatch(r *http.Request, body []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string         `json:"name"`
			URI  string         `json:"uri"`
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !f.faults["header-meta-mismatch-served"] {
		if meta, _ := m.Params.Meta[metaVersion].(string); meta != v {
			return "Header mismatch: MCP-Protocol-Version header value '" + v + "' does not match body value '" + meta + "'"
		}
	}
	if v := r.Header.Get("Mcp-Method"); v != "" && v != m.Method && !f.faults["mcp-method-unchecked"] {
		return "Header mismatch: Mcp-Method header value '" + v + "' does not match body value '" + m.Method + "'"
	}
	if v := r.Header.Get("Mcp-Name"); v != "" && !f.faults["mcp-name-unchecked"] {
		want := m.Params.Name
		if m.Method == "resources/read" {
			want = m.Params.URI
		}
		got := v
		if !f.faults["base64-not-decoded"] {
			got = decodeSentinel(v)
		}
		if got != want {
			return "Header mismatch: Mcp-Name header value '" + v + "' does not match body value '" + want + "'"
		}
	}
	return ""
}

// decodeSentinel decodes a =?base64?…?= header value; others are as they
// are.
func decodeSentinel(v string) string {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return v
	}
	return string(b)
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
