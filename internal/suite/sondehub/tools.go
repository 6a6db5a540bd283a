package sondehub

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

// params is a documented tool's parameter column: required and optional.
type params struct{ required, optional []string }

type docTool struct {
	name string
	params
}

// documented are the seven tools of "Available tools", in the page's
// order, with their parameter columns ("optional filters" of query_logs
// name none).
var documented = []docTool{
	{"health_check", params{optional: []string{"agent", "categories", "tags"}}},
	{"list_capabilities", params{optional: []string{"tags"}}},
	{"diagnose", params{required: []string{"agent", "category"}}},
	{"probe", params{required: []string{"agent", "probe"}}},
	{"list_agents", params{optional: []string{"tags"}}},
	{"agent_overview", params{required: []string{"agent"}}},
	{"query_logs", params{required: []string{"source", "agent"}}},
}

// maxPages bounds the tools/list pages read.
const maxPages = 20

// listTools lists every tool of the session (following nextCursor); the
// answer of the last page, and nil tools when a page was no result.
func listTools(s *mcpsuite.Session) (map[string]map[string]any, []string, *peer.Inbound, error) {
	tools := map[string]map[string]any{}
	var order []string
	var cursor any
	var in *peer.Inbound
	for range maxPages {
		p := map[string]any{}
		if cursor != nil {
			p["cursor"] = cursor
		}
		var err error
		if in, err = s.Call("tools/list", p); err != nil {
			return nil, nil, in, err
		}
		page, ok := in.Field("/result/tools")
		items, isList := page.([]any)
		if !ok || !isList {
			return nil, nil, in, nil
		}
		for _, t := range items {
			m, _ := t.(map[string]any)
			if n, ok := m["name"].(string); ok && tools[n] == nil {
				tools[n] = m
				order = append(order, n)
			}
		}
		if cursor, ok = in.Field("/result/nextCursor"); !ok || cursor == nil {
			break
		}
	}
	return tools, order, in, nil
}

// hubSession is the run's session and every tool it lists, for a
// scenario deciding rules (nil session: skipped on another transport).
func hubSession(e *scenario.Env, rules []string) (*mcpsuite.Session, map[string]map[string]any, []string, *peer.Inbound, error) {
	if x, err := exchanger(e, rules...); x == nil || err != nil {
		return nil, nil, nil, nil, err
	}
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	listed, order, in, err := listTools(s)
	return s, listed, order, in, err
}

func tools(e *scenario.Env) error {
	s, listed, order, in, err := hubSession(e, toolsRules)
	if s == nil || err != nil {
		return err
	}
	if listed == nil {
		skipAll(e, "tools/list was not answered with tools ("+mcpsuite.Show(in.Value)+"): SONDE-HUB-FLOW-2 judges it", toolsRules...)
		return nil
	}
	var missing, known []string
	for _, d := range documented {
		if listed[d.name] == nil {
			missing = append(missing, d.name)
		} else {
			known = append(known, d.name)
		}
	}
	var extra []string
	for _, n := range order {
		if !slices.ContainsFunc(documented, func(d docTool) bool { return d.name == n }) {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		e.Notef("sonde-hub: the server lists tools the page does not document (allowed): %s", strings.Join(extra, ", "))
	}
	if len(missing) > 0 {
		e.Fail("SONDE-HUB-TOOLS-1", in.Seq, "the server does not list the documented tools "+strings.Join(missing, ", "),
			"health_check, list_capabilities, diagnose, probe, list_agents, agent_overview, query_logs", "tools "+strings.Join(order, ", "))
	} else {
		e.Pass("SONDE-HUB-TOOLS-1", in.Seq)
	}
	if len(known) == 0 {
		skipAll(e, "none of the documented tools is listed (SONDE-HUB-TOOLS-1)", "SONDE-HUB-TOOLS-2", "SONDE-HUB-TOOLS-3")
		return nil
	}
	for _, d := range documented {
		if t := listed[d.name]; t != nil {
			judgeSchema(e, in.Seq, d.name, d.params, t["inputSchema"])
		}
	}
	return nil
}

// judgeSchema decides TOOLS-2 and TOOLS-3 for one documented tool.
func judgeSchema(e *scenario.Env, seq int, name string, p params, raw any) {
	sch, _ := raw.(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	var required []string
	if rs, ok := sch["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required = append(required, s)
			}
		}
	}
	all := append(append([]string{}, p.required...), p.optional...)
	var problems []string
	for _, n := range all {
		if _, ok := props[n]; !ok {
			problems = append(problems, "no property "+n)
		}
	}
	for _, n := range required {
		switch {
		case slices.Contains(p.optional, n):
			problems = append(problems, "requires "+n+", which the page calls optional")
		case !slices.Contains(all, n):
			problems = append(problems, "requires "+n+", which the page does not name")
		}
	}
	want := fmt.Sprintf("properties %s; required at most %s", strings.Join(all, ", "), strings.Join(p.required, ", "))
	if len(p.required) == 0 {
		want = fmt.Sprintf("properties %s, none required", strings.Join(all, ", "))
	}
	if len(problems) > 0 {
		e.Fail("SONDE-HUB-TOOLS-2", seq, fmt.Sprintf("tool %s: %s", name, strings.Join(problems, "; ")), want, mcpsuite.Show(raw))
	} else {
		e.Pass("SONDE-HUB-TOOLS-2", seq)
	}
	var loose []string
	for _, n := range p.required {
		// A parameter missing altogether is TOOLS-2's failure.
		if _, has := props[n]; has && !slices.Contains(required, n) {
			loose = append(loose, n)
		}
	}
	if len(loose) > 0 {
		e.Fail("SONDE-HUB-TOOLS-3", seq, fmt.Sprintf("tool %s does not require %s", name, strings.Join(loose, ", ")), "required: "+strings.Join(p.required, ", "), mcpsuite.Show(raw))
	} else {
		e.Pass("SONDE-HUB-TOOLS-3", seq)
	}
}
