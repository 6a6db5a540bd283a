// Package sondehub is wirecheck's reference sonde hub: the MCP reference
// server (its extension API) with the seven tools of the hub's "Other MCP
// Clients" page over a small fake fleet, tag filtering, the REST endpoints
// /health and /api/v1/agents, and a Bearer token on every request
// (mcp.DemoToken). Each fault breaks one rule of specs/sonde-hub.yaml; each
// variant is a reading the page allows.
package sondehub

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

// Serve runs the reference sonde hub over Streamable HTTP (o.HTTP) until
// o.Stop closes; on stdio it serves the same MCP (the hub documents HTTP
// only).
func Serve(o refserver.Options) int {
	h := &hub{faults: refserver.Set(o.Faults), variants: refserver.Set(o.Variants), token: mcp.DemoToken()}
	return mcp.ServeWith(o, h.extension())
}

type hub struct {
	faults, variants map[string]bool
	token            string
}

type obj = map[string]any

func (h *hub) extension() mcp.Extension {
	return mcp.Extension{
		Name:    "sonde-hub-reference",
		OwnOnly: !h.variants["extra-tools"],
		Tools:   h.tools(),
		Paths:   mcp.Paths{HTTP: "/mcp"},
		Auth:    h.auth,
		// The page's token is an API key ("Bearer <api-key>"): the hub
		// publishes nothing of OAuth, unless the variant oauth-discovery
		// has it publish MCP's authorization discovery documents.
		Discovery: h.variants["oauth-discovery"],
		Routes: []mcp.Route{
			{Pattern: "GET /health", Handler: h.health},
			{Pattern: "GET /api/v1/agents", Handler: h.agents},
		},
		Before:       h.before,
		CoreFaults:   map[string]string{"json-as-text": "json-as-text"},
		CoreVariants: map[string]string{"no-session-id": "no-sessions", "sse-answers": "sse-answers"},
	}
}

// before answers tools/list with an internal error (tools-list-error).
func (h *hub) before(m mcp.Message) *mcp.Refusal {
	if h.faults["tools-list-error"] && m.Method == "tools/list" {
		return &mcp.Refusal{Status: http.StatusOK, Code: -32603, Message: "Internal error: the tool registry is down"}
	}
	return nil
}

// auth asks the token on every request, the MCP endpoint's and the REST
// API's, and refuses as the variants and faults say.
func (h *hub) auth(r *http.Request) *mcp.Refusal {
	rest := r.URL.Path != "/mcp"
	switch {
	case mcp.HasBearer(r, h.token):
		return nil
	case rest && h.faults["rest-open"]:
		return nil
	case !rest && h.faults["mcp-open"]:
		return nil
	case !rest && h.faults["token-initialize-only"] && r.Header.Get("Mcp-Session-Id") != "":
		return nil
	}
	status := http.StatusUnauthorized
	if rest && h.faults["rest-403"] {
		status = http.StatusForbidden
	}
	rf := &mcp.Refusal{Status: status, Header: http.Header{}, Challenge: !rest}
	switch {
	case !rest && h.variants["jsonrpc-refusals"]:
		rf.Code, rf.Message = -32001, "Unauthorized: a Bearer token is required"
	case rest && !h.faults["rest-text"] && !h.variants["jsonrpc-refusals"]:
		// The REST API answers JSON, its refusals too (a plain-text
		// refusal is the variant jsonrpc-refusals' REST side).
		rf.Body = []byte(`{"error":"unauthorized","message":"a Bearer token is required"}` + "\n")
	}
	// A 401 says which scheme it asks (RFC 9110 §11.6.1); with
	// oauth-discovery the MCP endpoint's challenge is MCP's instead.
	if status == http.StatusUnauthorized && (rest || !h.variants["oauth-discovery"]) {
		rf.Header.Set("WWW-Authenticate", `Bearer realm="sonde-hub"`)
	}
	return rf
}

func (h *hub) health(w http.ResponseWriter, r *http.Request) {
	if h.faults["no-health"] {
		http.NotFound(w, r)
		return
	}
	online := 0
	for _, a := range fleet {
		if a.Status == "online" {
			online++
		}
	}
	h.rest(w, obj{"status": "ok", "agents": len(fleet), "online": online}, "ok: "+itoa(online)+" of "+itoa(len(fleet))+" agents online")
}

func (h *hub) agents(w http.ResponseWriter, r *http.Request) {
	if h.faults["no-agents-api"] {
		http.NotFound(w, r)
		return
	}
	var names []string
	for _, a := range fleet {
		names = append(names, a.Name)
	}
	h.rest(w, obj{"agents": agentList(fleet)}, strings.Join(names, "\n"))
}

// rest answers a REST request: JSON, or text with the fault rest-text.
func (h *hub) rest(w http.ResponseWriter, v any, text string) {
	if h.faults["rest-text"] {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(text + "\n"))
		return
	}
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}
