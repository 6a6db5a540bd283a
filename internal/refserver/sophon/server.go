// Package sophon is wirecheck's reference server of the sophon profile:
// the MCP reference server (its extension API) as Sophon's MCP API
// reference (shared/seeds/004_a446729fb706fc8c.txt) describes it: the
// 2024-11-05 handshake, memory.search, sophon:// resources, the four
// curated prompts, a bearer token on SSE and HTTP (-32600 with 401), and
// 60 requests a minute per token. Each fault breaks one rule of
// specs/sophon.yaml on purpose; each variant is a legal choice.
package sophon

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

// Serve runs the server on stdio, or over Streamable HTTP (/mcp/http) and
// the legacy transport (/mcp/sse, /mcp/sse/message) when o.HTTP or o.SSE
// is set.
func Serve(o refserver.Options) int { return mcp.ServeWith(o, Extension(o)) }

// coreFaults are the faults that are the MCP reference server's own.
var coreFaults = map[string]string{
	"no-list-changed":         "list-changed-undeclared",
	"answer-initialized":      "answer-notifications",
	"parse-error-silent":      "parse-error-silent",
	"invalid-request-silent":  "invalid-request-silent",
	"unknown-method-internal": "unknown-method-internal",
	"subscribe-refused":       "subscribe-refused",
	"updated-unsubscribed":    "updated-unsubscribed",
}

// Extension is the sophon server as an extension of the MCP reference
// server, with o's faults and variants.
func Extension(o refserver.Options) mcp.Extension {
	sv := &sophon{faults: refserver.Set(o.Faults), variants: refserver.Set(o.Variants), token: mcp.DemoToken()}
	ext := mcp.Extension{
		Name: "sophon", Version: "1.0.0",
		Revisions:  []string{"2024-11-05"},
		OwnOnly:    true,
		Tools:      sv.tools(),
		Resources:  sv.resources(),
		Templates:  templates,
		Prompts:    sv.prompts(),
		Paths:      mcp.Paths{HTTP: "/mcp/http", SSE: "/mcp/sse", Message: "/mcp/sse/message"},
		Auth:       sv.auth(),
		CoreFaults: coreFaults,
	}
	if sv.f("init-newer-revision") {
		ext.Revisions = []string{"2025-03-26"}
	}
	if !sv.f("rate-limit-off") {
		ext.Before = sv.limit
	}
	return ext
}

type sophon struct {
	faults, variants map[string]bool
	token            string

	mu sync.Mutex
	// window is the start of the current minute of each token, and used
	// the requests counted in it.
	window map[string]time.Time
	used   map[string]int
}

func (sv *sophon) f(name string) bool { return sv.faults[name] }
func (sv *sophon) v(name string) bool { return sv.variants[name] }

type obj = map[string]any

func (sv *sophon) auth() func(r *http.Request) *mcp.Refusal {
	if sv.f("auth-open") {
		return nil
	}
	rf := mcp.Refusal{Status: http.StatusUnauthorized, Code: -32600, Message: "Invalid request: missing or invalid bearer token"}
	switch {
	case sv.f("auth-403"):
		rf.Status = http.StatusForbidden
	case sv.f("auth-plain-401"):
		rf.Code = 0
	}
	if sv.v("auth-challenge") {
		rf.Header = http.Header{"Www-Authenticate": {`Bearer realm="sophon"`}}
	}
	return mcp.Bearer(sv.token, rf)
}

// limit counts each token's JSON-RPC requests per minute: the 61st and
// later in one are refused -32004 with Retry-After (the seconds left of
// the minute, or that moment as an HTTP date with retry-after-date).
func (sv *sophon) limit(m mcp.Message) *mcp.Refusal {
	if m.Kind != "request" {
		return nil
	}
	key := m.HTTP.Header.Get("Authorization")
	now := time.Now()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.window == nil {
		sv.window, sv.used = map[string]time.Time{}, map[string]int{}
	}
	if now.Sub(sv.window[key]) >= time.Minute {
		sv.window[key], sv.used[key] = now, 0
	}
	sv.used[key]++
	if sv.used[key] <= perMinute {
		return nil
	}
	again := sv.window[key].Add(time.Minute)
	retry := strconv.Itoa(max(1, int(time.Until(again).Seconds()+0.999)))
	if sv.v("retry-after-date") {
		retry = again.UTC().Format(http.TimeFormat)
	}
	return &mcp.Refusal{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {retry}}, Code: -32004, Message: "Rate limit exceeded"}
}

// perMinute is the documented budget of a token.
var perMinute = 60

func (sv *sophon) tools() []mcp.Tool {
	if sv.v("no-memory-search") {
		// Another tool is allowed: an empty allowlist would be a server
		// with nothing to call.
		return []mcp.Tool{{Def: obj{"name": "documents.search", "description": "Search documents by title.",
			"inputSchema": obj{"type": "object", "properties": obj{"title": obj{"type": "string"}}, "required": []any{"title"}}},
			Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
				return obj{"content": []any{obj{"type": "text", "text": "Found 1 document: " + documents[0].name}}, "isError": false}, nil
			}}}
	}
	schema := obj{
		"type": "object",
		"properties": obj{
			"query": obj{"type": "string"},
			"scope": obj{"type": "string", "enum": []any{"user", "agent", "all"}},
			"limit": obj{"type": "integer", "minimum": 1, "maximum": 100},
		},
		"required": []any{"query"},
	}
	if sv.f("search-schema-loose") {
		delete(schema, "required")
	}
	if sv.v("search-more-props") {
		schema["properties"].(obj)["since"] = obj{"type": "string", "description": "only entries after this date"}
	}
	def := obj{"name": "memory.search", "description": "Search user and agent memory by natural-language query.", "inputSchema": schema}
	return []mcp.Tool{{Def: def, Run: sv.search}}
}

func (sv *sophon) search(c mcp.Call) (map[string]any, *mcp.Error) {
	q, isString := c.Args["query"].(string)
	if isString && sv.f("search-fails") {
		return nil, &mcp.Error{Code: -32603, Message: "Internal error: memory is down"}
	}
	if !isString && !sv.f("missing-query-served") {
		msg := "Invalid params: 'query' is required"
		if sv.f("param-unnamed") {
			msg = "Invalid params"
		}
		e := &mcp.Error{Code: -32602, Message: msg}
		if sv.v("error-data") {
			e.Data = obj{"missing": []any{"query"}}
		}
		return nil, e
	}
	if s, has := c.Args["scope"]; has && s != "user" && s != "agent" && s != "all" {
		return nil, &mcp.Error{Code: -32602, Message: "Invalid params: 'scope' must be user, agent or all"}
	}
	var found []string
	for _, m := range memories {
		if q == "" || strings.Contains(strings.ToLower(m.text), strings.ToLower(q)) {
			found = append(found, m.text)
		}
	}
	return obj{"content": []any{obj{"type": "text", "text": "Found " + strconv.Itoa(len(found)) + " entries: " + strings.Join(found, "; ")}}, "isError": false}, nil
}

// templates are the documented URI schemes with an id.
var templates = []map[string]any{
	{"uriTemplate": "sophon://documents/{id}", "name": "document", "description": "Extracted text of a document"},
	{"uriTemplate": "sophon://memory/{id}", "name": "memory entry", "description": "A memory entry"},
	{"uriTemplate": "sophon://agents/{id}/SOUL.md", "name": "agent personality", "description": "Agent personality file"},
	{"uriTemplate": "sophon://agents/{id}/config", "name": "agent configuration", "description": "Agent configuration JSON", "mimeType": "application/json"},
	{"uriTemplate": "sophon://workflows/{id}", "name": "workflow", "description": "Workflow JSON", "mimeType": "application/json"},
}

type item struct{ uri, name, mime, text string }

var memories = []item{
	{"sophon://memory/mem_xyz789", "User preference: dark mode", "text/plain", "The user prefers dark mode."},
	{"sophon://memory/mem_dl4", "Project deadline", "text/plain", "The project deadline is 2026-12-01."},
}

// documents are readable text; logo is binary.
var documents = []item{
	{"sophon://documents/doc_abc123", "Q3-sales-report.pdf", "application/pdf", "Q3 sales grew 12% over Q2, led by the EMEA region."},
}

var logo = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func (sv *sophon) resources() []mcp.Resource {
	text := func(it item, desc string) mcp.Resource {
		return mcp.Resource{
			Def: obj{"uri": it.uri, "name": it.name, "description": desc, "mimeType": it.mime},
			Read: func(mcp.Call) ([]any, *mcp.Error) {
				return []any{obj{"uri": it.uri, "mimeType": "text/plain", "text": it.text}}, nil
			},
		}
	}
	var out []mcp.Resource
	for _, d := range documents {
		r := text(d, "uploaded 2026-04-15")
		if sv.v("pdf-as-blob") {
			r.Read = func(mcp.Call) ([]any, *mcp.Error) {
				return []any{obj{"uri": d.uri, "mimeType": d.mime, "blob": base64.StdEncoding.EncodeToString([]byte("%PDF-1.7\n" + d.text))}}, nil
			}
		}
		out = append(out, r)
	}
	png := "sophon://documents/doc_logo"
	out = append(out, mcp.Resource{
		Def: obj{"uri": png, "name": "logo.png", "description": "the company logo", "mimeType": "image/png"},
		Read: func(mcp.Call) ([]any, *mcp.Error) {
			blob, mime := base64.StdEncoding.EncodeToString(logo), "image/png"
			if sv.f("blob-not-base64") {
				blob = "\u0089PNG not base64!"
			}
			if sv.f("blob-octet-stream") {
				mime = "application/octet-stream"
			}
			return []any{obj{"uri": png, "mimeType": mime, "blob": blob}}, nil
		},
	})
	for _, m := range memories {
		out = append(out, text(m, "Long-term preference entry"))
	}
	for _, it := range []item{
		{"sophon://agents/agent_7/SOUL.md", "SOUL.md of agent_7", "text/markdown", "# Agent 7\nCalm, precise, brief."},
		{"sophon://agents/agent_7/config", "config of agent_7", "application/json", `{"model":"default","tools":["memory.search"]}`},
		{"sophon://workflows/wf_1", "weekly report", "application/json", `{"steps":["collect","summarize"]}`},
	} {
		out = append(out, text(it, "agent and workflow files"))
	}
	if sv.f("foreign-uri") {
		out = append(out, text(item{"https://sophon.example/documents/doc_abc123", "Q3 (web)", "text/plain", "Q3"}, "the same, on the web"))
	}
	return out
}

func (sv *sophon) prompts() []mcp.Prompt {
	arg := func(name, desc string, required bool) obj {
		return obj{"name": name, "description": desc, "required": required}
	}
	say := func(t string) (map[string]any, *mcp.Error) {
		return obj{"messages": []any{obj{"role": "user", "content": obj{"type": "text", "text": t}}}}, nil
	}
	str := func(c mcp.Call, k string) string { s, _ := c.Args[k].(string); return s }
	out := []mcp.Prompt{{
		Def: obj{"name": "summarize-document", "description": "summarize a Sophon document", "arguments": []any{arg("documentUri", "a sophon://documents/{id} URI", true)}},
		Get: func(c mcp.Call) (map[string]any, *mcp.Error) {
			uri := str(c, "documentUri")
			for _, d := range documents {
				if d.uri == uri {
					if sv.f("prompt-unrendered") {
						return say("Summarize the document {{documentUri}}.")
					}
					return say("Summarize this document:\n\n" + d.text)
				}
			}
			return nil, &mcp.Error{Code: -32602, Message: "Invalid params: no document " + strconv.Quote(uri)}
		},
	}, {
		Def: obj{"name": "draft-email", "description": "draft an email based on context", "arguments": []any{arg("context", "what the email is about", false)}},
		Get: func(c mcp.Call) (map[string]any, *mcp.Error) {
			return say("Draft an email about: " + str(c, "context"))
		},
	}, {
		Def: obj{"name": "extract-action-items", "description": "pull action items from a meeting transcript", "arguments": []any{arg("transcript", "the meeting transcript", true)}},
		Get: func(c mcp.Call) (map[string]any, *mcp.Error) {
			return say("List the action items of this meeting:\n\n" + str(c, "transcript"))
		},
	}, {
		Def: obj{"name": "research-topic", "description": "multi-source research prompt", "arguments": []any{arg("topic", "what to research", true)}},
		Get: func(c mcp.Call) (map[string]any, *mcp.Error) {
			return say("Research, from several sources: " + str(c, "topic"))
		},
	}}
	if sv.f("prompt-missing") {
		out = out[:3]
	}
	if sv.v("more-prompts") {
		out = append(out, mcp.Prompt{
			Def: obj{"name": "translate-document", "description": "translate a Sophon document", "arguments": []any{arg("documentUri", "a sophon://documents/{id} URI", true)}},
			Get: func(c mcp.Call) (map[string]any, *mcp.Error) { return say("Translate " + str(c, "documentUri")) },
		})
	}
	return out
}
