// Package sondehub holds the scenarios of the sonde-hub profile: what the
// hub's "Other MCP Clients" page promises beyond MCP (specs/sonde-hub.yaml).
// The MCP suite runs first and judges every MCP rule; these scenarios use
// its session (mcp.Ensure) and its HTTP probes.
package sondehub

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

const file = "internal/suite/sondehub"

var (
	flowRules  = []string{"SONDE-HUB-TRANSPORT-1", "SONDE-HUB-AUTH-1", "SONDE-HUB-AUTH-2", "SONDE-HUB-FLOW-1", "SONDE-HUB-FLOW-2", "SONDE-HUB-FLOW-3"}
	toolsRules = []string{"SONDE-HUB-TOOLS-1", "SONDE-HUB-TOOLS-2", "SONDE-HUB-TOOLS-3"}
	tagsRules  = []string{"SONDE-HUB-TAGS-1", "SONDE-HUB-TAGS-2"}
	restRules  = []string{"SONDE-HUB-REST-1", "SONDE-HUB-REST-2", "SONDE-HUB-REST-3", "SONDE-HUB-REST-4", "SONDE-HUB-REST-5"}
)

// Scenarios returns the Go scenarios of sonde-hub.
func Scenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "sonde-hub-flow",
		Title: "the page's connection flow, step by step, with and without the Bearer token",
		Rules: flowRules,
		Run:   flow,
		File:  file + "/flow.go",
	}, {
		Name:  "sonde-hub-tools",
		Title: "the seven documented tools are listed, their inputSchemas matching the parameter column",
		Rules: toolsRules,
		Run:   tools,
		File:  file + "/tools.go",
	}, {
		Name:  "sonde-hub-tags",
		Title: "tags narrow list_agents, list_capabilities and health_check, several with AND (judged on what list_agents lists)",
		Rules: tagsRules,
		Run:   tags,
		File:  file + "/tags.go",
	}, {
		Name:  "sonde-hub-rest",
		Title: "GET /health and GET /api/v1/agents answer with the token and refuse without it",
		Rules: restRules,
		Run:   rest,
		File:  file + "/rest.go",
	}}
}

func skipAll(e *scenario.Env, why string, rules ...string) {
	for _, r := range rules {
		e.Skip(r, why)
	}
}

// exchanger is the run's Streamable HTTP transport, with the run's MCP
// session open (a server may refuse the liveness ping outside one); nil
// (every rule skipped) on another transport.
func exchanger(e *scenario.Env, rules ...string) (httpmcp.Exchanger, error) {
	x, ok := exchangerOf(e)
	if !ok || x.Kind() != "http" {
		skipAll(e, "the sonde hub speaks Streamable HTTP; this run does not", rules...)
		return nil, nil
	}
	_, err := mcpsuite.Ensure(e)
	return x, err
}

func rawJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// post is one POST probe of the endpoint.
func post(e *scenario.Env, x httpmcp.Exchanger, what string, body any, set map[string]string, drop ...string) (*httpmcp.Result, int) {
	return mcpsuite.Probe(e, x, what, httpmcp.Exchange{Method: http.MethodPost, Body: rawJSON(body), Set: set, Drop: drop})
}

// answer is the JSON-RPC response a probe's answer carried, nil when none.
func answer(res *httpmcp.Result, seq int) *peer.Inbound {
	for _, in := range mcpsuite.Messages(res, seq) {
		if _, isReq := in.Field("/method"); !isReq {
			if _, has := in.Field("/id"); has {
				return in
			}
		}
	}
	return nil
}

// hasResult reports whether a probe was served with a JSON-RPC result.
func hasResult(res *httpmcp.Result, seq int) bool {
	if !mcpsuite.Served(res) {
		return false
	}
	in := answer(res, seq)
	if in == nil {
		return false
	}
	_, ok := in.Field("/result")
	return ok
}

// mediaType is a Content-Type without its parameters.
func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	}
	return mt
}

// exchangerOf is the run's HTTP transport, when it speaks HTTP.
func exchangerOf(e *scenario.Env) (httpmcp.Exchanger, bool) {
	var x httpmcp.Exchanger
	ok := e.Ability(&x)
	return x, ok
}
