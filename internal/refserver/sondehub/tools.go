package sondehub

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

// agent is one agent of the fake fleet.
type agent struct {
	Name, ID, Status string
	Tags, Packs      []string
}

// fleet is what the hub manages: tags chosen so one tag (database) picks
// one agent, two (prod, linux) pick three that carry both while OR would
// pick all five.
var fleet = []agent{
	{"web-1", "agt-7f1a", "online", []string{"prod", "linux", "storefront"}, []string{"docker", "nginx"}},
	{"web-2", "agt-93c0", "online", []string{"prod", "linux", "storefront"}, []string{"docker"}},
	{"db-1", "agt-51d2", "online", []string{"prod", "linux", "database"}, []string{"postgres"}},
	{"dev-1", "agt-08be", "offline", []string{"dev", "linux"}, []string{"docker"}},
	{"win-1", "agt-c4e9", "online", []string{"prod", "windows"}, []string{"system"}},
}

// probes are the probes of each pack.
var probes = map[string][]string{
	"docker":   {"docker.containers.list", "docker.containers.restarts"},
	"nginx":    {"nginx.status", "nginx.errors"},
	"postgres": {"postgres.connections", "postgres.replication.lag"},
	"system":   {"system.disk.usage", "system.memory.usage"},
}

func agentList(as []agent) []any {
	out := []any{}
	for _, a := range as {
		out = append(out, obj{"name": a.Name, "id": a.ID, "status": a.Status, "packs": a.Packs, "tags": a.Tags})
	}
	return out
}

// packs are an agent's packs, every agent having the system pack.
func (a agent) packs() []string {
	return append([]string{"system"}, slices.DeleteFunc(slices.Clone(a.Packs), func(p string) bool { return p == "system" })...)
}

func find(name string) (agent, bool) {
	for _, a := range fleet {
		if a.Name == name || a.ID == name {
			return a, true
		}
	}
	return agent{}, false
}

func str(v any) string { s, _ := v.(string); return s }

func itoa(n int) string { return strconv.Itoa(n) }

// prop is a string property of an inputSchema.
func prop(desc string) obj { return obj{"type": "string", "description": desc} }

func schema(props obj, required ...string) obj {
	s := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		r := []any{}
		for _, n := range required {
			r = append(r, n)
		}
		s["required"] = r
	}
	return s
}

// tagsProp is the tags parameter: an array of tags, or one string of
// #tags with the variant tags-string.
func (h *hub) tagsProp() obj {
	if h.variants["tags-string"] {
		return obj{"type": "string", "description": "#tags, all of which an agent must carry (\"#prod #linux\")"}
	}
	return obj{"type": "array", "items": obj{"type": "string"}, "description": "tags, all of which an agent must carry"}
}

// tags reads a tags argument; with the variant tags-hash only words
// written with # are tags (others are natural language: no filtering).
func (h *hub) tags(v any) []string {
	var words []string
	switch t := v.(type) {
	case string:
		words = strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' })
	case []any:
		for _, w := range t {
			words = append(words, str(w))
		}
	}
	var out []string
	for _, w := range words {
		if h.variants["tags-hash"] && !strings.HasPrefix(w, "#") {
			continue
		}
		if w = strings.TrimPrefix(w, "#"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// matching are the agents carrying every tag (any of them with the fault
// tags-or).
func (h *hub) matching(tags []string) []agent {
	var out []agent
	for _, a := range fleet {
		hits := 0
		for _, t := range tags {
			if slices.Contains(a.Tags, t) {
				hits++
			}
		}
		if len(tags) == 0 || hits == len(tags) || (h.faults["tags-or"] && hits > 0) {
			out = append(out, a)
		}
	}
	return out
}

// answer is a tool result: its JSON as text, or prose (prose-results).
func (h *hub) answer(v any, prose string) (map[string]any, *mcp.Error) {
	text := prose
	if !h.variants["prose-results"] {
		b, _ := json.Marshal(v)
		text = string(b)
	}
	if h.faults["tools-call-error"] {
		return nil, &mcp.Error{Code: -32603, Message: "Internal error: the hub lost its agents"}
	}
	return obj{"content": []any{obj{"type": "text", "text": text}}}, nil
}

// toolError is a tool execution error (the agent is unknown …).
func toolError(msg string) (map[string]any, *mcp.Error) {
	return obj{"content": []any{obj{"type": "text", "text": msg}}, "isError": true}, nil
}

func prose(as []agent) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "%s: %s, tags %s\n", a.Name, a.Status, strings.Join(a.Tags, " "))
	}
	if b.Len() == 0 {
		return "no agents match"
	}
	return b.String()
}

func (h *hub) tools() []mcp.Tool {
	ts := []mcp.Tool{{
		Def: obj{"name": "health_check", "description": "Start here for broad \"is something wrong?\" questions. Runs all applicable diagnostics in parallel. Supports tag filtering to scope to a group.",
			"inputSchema": schema(obj{"agent": prop("an agent's name or ID"), "categories": obj{"type": "array", "items": obj{"type": "string"}}, "tags": h.tagsProp()})},
		Run: h.healthCheck,
	}, {
		Def: obj{"name": "list_capabilities", "description": "Discover all agents, integrations, their individual probes, and diagnostic categories.",
			"inputSchema": schema(obj{"tags": h.tagsProp()})},
		Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
			as := h.matching(h.tags(c.Args["tags"]))
			var list []any
			for _, a := range as {
				var ps []string
				for _, p := range a.packs() {
					ps = append(ps, probes[p]...)
				}
				list = append(list, obj{"agent": a.Name, "categories": a.packs(), "probes": ps})
			}
			return h.answer(obj{"agents": list, "integrations": []any{}}, prose(as))
		},
	}, {
		Def: obj{"name": "diagnose", "description": "Deep investigation of a specific category on an agent or integration (e.g. \"check docker on server-1\").",
			"inputSchema": h.diagnoseSchema()},
		Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
			a, ok := find(str(c.Args["agent"]))
			cat := str(c.Args["category"])
			switch {
			case !ok:
				return toolError("unknown agent " + strconv.Quote(str(c.Args["agent"])))
			case !slices.Contains(a.packs(), cat):
				return toolError(a.Name + " has no category " + strconv.Quote(cat))
			}
			return h.answer(obj{"agent": a.Name, "category": cat, "findings": []any{}}, a.Name+": "+cat+" looks fine")
		},
	}, {
		Def: obj{"name": "probe", "description": "Run a single targeted probe for a specific measurement.",
			"inputSchema": h.probeSchema()},
		Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
			a, ok := find(str(c.Args["agent"]))
			p := str(c.Args["probe"])
			if !ok {
				return toolError("unknown agent " + strconv.Quote(str(c.Args["agent"])))
			}
			for _, pack := range a.packs() {
				if slices.Contains(probes[pack], p) {
					return h.answer(obj{"agent": a.Name, "probe": p, "value": 42}, a.Name+" "+p+": 42")
				}
			}
			return toolError(a.Name + " has no probe " + strconv.Quote(p))
		},
	}, {
		Def: obj{"name": "list_agents", "description": "List all agents with connection status, packs, and tags.",
			"inputSchema": schema(obj{"tags": h.tagsProp()})},
		Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
			as := h.matching(h.tags(c.Args["tags"]))
			return h.answer(obj{"agents": agentList(as)}, prose(as))
		},
	}, {
		Def: obj{"name": "agent_overview", "description": "Detailed info for a specific agent.",
			"inputSchema": schema(obj{"agent": prop("the agent's name or ID")}, "agent")},
		Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
			a, ok := find(str(c.Args["agent"]))
			if !ok {
				return toolError("unknown agent " + strconv.Quote(str(c.Args["agent"])))
			}
			return h.answer(agentList([]agent{a})[0], prose([]agent{a}))
		},
	}}
	if !h.faults["no-query-logs"] {
		ts = append(ts, mcp.Tool{
			Def: obj{"name": "query_logs", "description": "Investigate root cause by checking logs (Docker, systemd, nginx) or the hub audit trail.",
				"inputSchema": schema(obj{"source": obj{"type": "string", "enum": []any{"docker", "systemd", "nginx", "audit"}}, "agent": prop("the agent's name or ID"),
					"grep": prop("only lines containing this"), "limit": obj{"type": "integer", "minimum": 1, "maximum": 100}}, "source", "agent")},
			Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
				a, ok := find(str(c.Args["agent"]))
				if !ok {
					return toolError("unknown agent " + strconv.Quote(str(c.Args["agent"])))
				}
				return h.answer(obj{"agent": a.Name, "source": str(c.Args["source"]), "lines": []any{"started"}}, a.Name+": started")
			},
		})
	}
	return ts
}

func (h *hub) diagnoseSchema() obj {
	props := obj{"agent": prop("an agent's name or ID"), "category": prop("e.g. docker")}
	if h.faults["diagnose-category-optional"] {
		return schema(props, "agent")
	}
	return schema(props, "agent", "category")
}

func (h *hub) probeSchema() obj {
	if h.faults["probe-param-renamed"] {
		return schema(obj{"agent": prop("an agent's name or ID"), "probe_id": prop("e.g. system.disk.usage")}, "agent", "probe_id")
	}
	return schema(obj{"agent": prop("an agent's name or ID"), "probe": prop("e.g. system.disk.usage")}, "agent", "probe")
}

// healthCheck runs the diagnostics of the agents asked for (one, those
// of the tags, or all) and reports their findings as one.
func (h *hub) healthCheck(c mcp.Call) (map[string]any, *mcp.Error) {
	as := h.matching(h.tags(c.Args["tags"]))
	if h.faults["health-check-unfiltered"] {
		as = fleet
	}
	if name := str(c.Args["agent"]); name != "" {
		a, ok := find(name)
		if !ok {
			return toolError("unknown agent " + strconv.Quote(name))
		}
		as = []agent{a}
	}
	var findings []any
	for _, a := range as {
		f := obj{"agent": a.Name, "status": "healthy"}
		if a.Status != "online" {
			f["status"] = "unreachable"
		}
		findings = append(findings, f)
	}
	return h.answer(obj{"checked": len(as), "findings": findings}, prose(as))
}
