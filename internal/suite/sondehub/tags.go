package sondehub

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

// hubAgent is an agent as list_agents lists it.
type hubAgent struct {
	name string
	tags []string
}

// filtered are the tools tag filtering works with, in the page's order.
var filtered = []string{"list_agents", "list_capabilities", "health_check"}

// tags judges tag filtering on the agents the server itself lists: one
// tag some agents carry and others do not, and two tags whose AND differs
// from their OR. The page is silent on how tags are written in a tool's
// arguments (it speaks of #tag in prompts): each reasonable form is tried,
// and a tool passes when one of them filters as the page says.
func tags(e *scenario.Env) error {
	s, listed, _, _, err := hubSession(e, tagsRules)
	if s == nil || err != nil {
		return err
	}
	if listed == nil || listed["list_agents"] == nil {
		skipAll(e, "list_agents is not listed: there are no agents to judge tag filtering on", tagsRules...)
		return nil
	}
	all, err := callTool(s, "list_agents", map[string]any{})
	if err != nil {
		return err
	}
	agents, why := readAgents(all)
	if why != "" {
		skipAll(e, "list_agents without tags: "+why+" (the page is silent on its format)", tagsRules...)
		return nil
	}
	t := judge{e: e, s: s, listed: listed, agents: agents}
	if one := oneTag(agents); one == "" {
		e.Skip("SONDE-HUB-TAGS-2", "every listed agent carries the same tags: no tag would narrow the list")
	} else {
		t.rule("SONDE-HUB-TAGS-2", []string{one})
	}
	if a, b := twoTags(agents); a == "" {
		e.Skip("SONDE-HUB-TAGS-1", "no two tags of the listed agents tell AND from OR")
	} else {
		t.rule("SONDE-HUB-TAGS-1", []string{a, b})
	}
	return nil
}

type judge struct {
	e      *scenario.Env
	s      *mcpsuite.Session
	listed map[string]map[string]any
	agents []hubAgent
}

// rule judges one rule with tags on every filtered tool listed: it fails
// when a tool accepted some form of the tags and none filtered right.
func (j judge) rule(rule string, tags []string) {
	var want, others []string
	for _, a := range j.agents {
		if carriesAll(a, tags) {
			want = append(want, a.name)
		} else {
			others = append(others, a.name)
		}
	}
	judged := false
	for _, tool := range filtered {
		def := j.listed[tool]
		if def == nil {
			continue
		}
		ok, seq, evidence := j.try(tool, def, tags, want, others)
		switch {
		case ok:
			j.e.Pass(rule, seq)
			judged = true
		case seq > 0:
			expected := "no agent without " + strings.Join(tags, " and ")
			if tool == "list_agents" {
				expected = "exactly " + list(want)
			}
			j.e.Fail(rule, seq, fmt.Sprintf("%s with tags %s did not filter as the page says (agents carrying all: %s)", tool, strings.Join(tags, ", "), list(want)), expected, evidence)
			judged = true
		}
	}
	if !judged {
		j.e.Skip(rule, "no filtered tool accepted any form of tags wirecheck tries (an array, #tags, a string): the page is silent on how tool arguments write them")
	}
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// try calls tool with each form of tags until one filters right; seq is
// the evidence's transcript line (0 when no form was accepted).
func (j judge) try(tool string, def map[string]any, tags, want, others []string) (bool, int, string) {
	seq, evidence := 0, ""
	for _, form := range forms(def, tags) {
		in, err := callTool(j.s, tool, map[string]any{"tags": form})
		if err != nil || in == nil || !toolResult(in) {
			continue
		}
		seq = in.Seq
		got := mentioned(in, j.agents)
		extra := intersect(got, others)
		if tool == "list_agents" {
			agents, why := readAgents(in)
			if why == "" {
				got = names(agents)
			}
			extra = intersect(got, others)
			if len(extra) == 0 && sameSet(got, want) {
				return true, seq, ""
			}
		} else if len(extra) == 0 {
			return true, seq, ""
		}
		evidence += fmt.Sprintf("tags %s → agents %s; ", mcpsuite.Show(form), list(got))
	}
	return false, seq, strings.TrimSuffix(evidence, "; ")
}

// forms are the ways to write tags in arguments, those the tool's schema
// says first: an array of tags, with and without #, or one string.
func forms(def map[string]any, tags []string) []any {
	hashed := make([]any, len(tags))
	plain := make([]any, len(tags))
	var hs []string
	for i, t := range tags {
		plain[i], hashed[i] = t, "#"+t
		hs = append(hs, "#"+t)
	}
	arrays := []any{plain, hashed}
	strs := []any{strings.Join(hs, " "), strings.Join(tags, " "), strings.Join(tags, ",")}
	sch, _ := def["inputSchema"].(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	prop, _ := props["tags"].(map[string]any)
	if prop["type"] == "string" {
		return append(strs, arrays...)
	}
	return append(arrays, strs...)
}

func callTool(s *mcpsuite.Session, name string, args map[string]any) (*peer.Inbound, error) {
	return s.Call("tools/call", map[string]any{"name": name, "arguments": args})
}

// toolResult reports whether a tools/call was answered with a result that
// is no tool error.
func toolResult(in *peer.Inbound) bool {
	if _, ok := in.Field("/result"); !ok {
		return false
	}
	isErr, _ := in.Field("/result/isError")
	return isErr != true
}

// payloads are the JSON values a tool result carries: its
// structuredContent and each text block that is JSON.
func payloads(in *peer.Inbound) []any {
	var out []any
	if v, ok := in.Field("/result/structuredContent"); ok {
		out = append(out, v)
	}
	content, _ := in.Field("/result/content")
	blocks, _ := content.([]any)
	for _, b := range blocks {
		m, _ := b.(map[string]any)
		text, _ := m["text"].(string)
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// readAgents reads the agents of a list_agents result: the first array
// of objects with a name and tags; why says what it could not read.
func readAgents(in *peer.Inbound) ([]hubAgent, string) {
	if !toolResult(in) {
		return nil, "it was not answered with a tool result (" + mcpsuite.Show(in.Value) + ")"
	}
	for _, p := range payloads(in) {
		if as, ok := findAgents(p); ok {
			return as, ""
		}
	}
	return nil, "its result holds no JSON list of agents with names and tags wirecheck can read"
}

func findAgents(v any) ([]hubAgent, bool) {
	switch t := v.(type) {
	case []any:
		var out []hubAgent
		for _, it := range t {
			m, ok := it.(map[string]any)
			if !ok {
				break
			}
			a, ok := agentOf(m)
			if !ok {
				break
			}
			out = append(out, a)
		}
		if len(out) == len(t) && len(out) > 0 {
			return out, true
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if as, ok := findAgents(t[k]); ok {
				return as, true
			}
		}
	}
	return nil, false
}

func agentOf(m map[string]any) (hubAgent, bool) {
	var a hubAgent
	for _, k := range []string{"name", "hostname", "agent", "id"} {
		if s, ok := m[k].(string); ok && s != "" {
			a.name = s
			break
		}
	}
	switch t := m["tags"].(type) {
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				a.tags = append(a.tags, strings.TrimPrefix(s, "#"))
			}
		}
	case string:
		for _, s := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' }) {
			a.tags = append(a.tags, strings.TrimPrefix(s, "#"))
		}
	default:
		return a, false
	}
	return a, a.name != ""
}

func carriesAll(a hubAgent, tags []string) bool {
	for _, t := range tags {
		if !slices.Contains(a.tags, t) {
			return false
		}
	}
	return true
}

// oneTag is a tag some agents carry and others do not: the rarest.
func oneTag(agents []hubAgent) string {
	best, n := "", len(agents)
	for _, t := range allTags(agents) {
		c := count(agents, []string{t})
		if c > 0 && c < n {
			best, n = t, c
		}
	}
	return best
}

// twoTags are two tags whose AND picks other agents than their OR,
// preferring a pair some agent carries both of.
func twoTags(agents []hubAgent) (string, string) {
	ts := allTags(agents)
	var a, b string
	bestBoth := -1
	for i := range ts {
		for k := i + 1; k < len(ts); k++ {
			both := count(agents, []string{ts[i], ts[k]})
			either := 0
			for _, ag := range agents {
				if slices.Contains(ag.tags, ts[i]) || slices.Contains(ag.tags, ts[k]) {
					either++
				}
			}
			if either > both && both > bestBoth {
				a, b, bestBoth = ts[i], ts[k], both
			}
		}
	}
	return a, b
}

func allTags(agents []hubAgent) []string {
	var out []string
	for _, a := range agents {
		for _, t := range a.tags {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

func count(agents []hubAgent, tags []string) int {
	n := 0
	for _, a := range agents {
		if carriesAll(a, tags) {
			n++
		}
	}
	return n
}

func names(agents []hubAgent) []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.name)
	}
	return out
}

// mentioned are the agents a result names: a JSON string equal to an
// agent's name, or in prose the name standing as a word.
func mentioned(in *peer.Inbound, agents []hubAgent) []string {
	found := map[string]bool{}
	ps := payloads(in)
	for _, p := range ps {
		walkStrings(p, func(s string) {
			for _, a := range agents {
				if s == a.name {
					found[a.name] = true
				}
			}
		})
	}
	if len(ps) == 0 {
		content, _ := in.Field("/result/content")
		text := fmt.Sprint(content)
		for _, a := range agents {
			if regexp.MustCompile(`(^|[^\w.-])` + regexp.QuoteMeta(a.name) + `($|[^\w.-])`).MatchString(text) {
				found[a.name] = true
			}
		}
	}
	var out []string
	for _, a := range agents {
		if found[a.name] {
			out = append(out, a.name)
		}
	}
	return out
}

func walkStrings(v any, f func(string)) {
	switch t := v.(type) {
	case string:
		f(t)
	case []any:
		for _, x := range t {
			walkStrings(x, f)
		}
	case map[string]any:
		for _, x := range t {
			walkStrings(x, f)
		}
	}
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(intersect(a, b)) == len(a) && len(a) == len(b)
}
