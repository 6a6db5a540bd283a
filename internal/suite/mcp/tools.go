package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// maxItems bounds how many listed tools, resources or prompts a scenario
// exercises, so a server listing thousands stays quick.
const maxItems = 40

func tools(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	rules := []string{"MCP-TOOLS-3", "MCP-TOOLS-5", "MCP-TOOLS-6", "MCP-TOOLS-7", "MCP-TOOLS-8", "MCP-TOOLS-9", "MCP-TOOLS-10", "MCP-PAGINATION-1"}
	before := judgeOf(e).counts()
	defer func() {
		now := judgeOf(e).counts()
		s.skipUnstreamed(e)
		switch {
		case s.modern:
			e.Skip("MCP-LISTCHANGED-1", "revision "+s.requested+" sends list_changed on subscriptions/listen streams (not covered yet)")
		case now.listChanged == before.listChanged:
			e.Skip("MCP-LISTCHANGED-1", "no list_changed notification arrived during this scenario (every listed tool was called)")
		}
		switch {
		case !s.modern:
			e.Skip("MCP-STDIO-5", "the ban on server requests belongs to revision 2026-07-28")
		case now.requests == 0:
			e.Pass("MCP-STDIO-5", -1)
		}
		switch {
		case now.progresses == before.progresses:
			e.Skip("MCP-PROGRESS-1", "no progress notification arrived during this scenario (every tools/call carried a progressToken)")
			e.Skip("MCP-PROGRESS-2", "no progress notification arrived during this scenario (every tools/call carried a progressToken)")
		case now.ordered == before.ordered:
			// Those that came named no request in flight (MCP-PROGRESS-1
			// judged them): no value of a request to see rise, nor a
			// response to see them stop at.
			e.Skip("MCP-PROGRESS-2", "no progress notification of a request in flight arrived during this scenario (those that came named a token wirecheck never sent)")
		}
	}()
	if !s.has("tools") {
		items, in, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
		if err != nil {
			return err
		}
		if in != nil && isResult(in) && len(items) > 0 {
			e.Fail("MCP-TOOLS-1", in.Seq, "the server lists tools but did not declare the tools capability", "capabilities.tools", "capabilities "+show(s.caps))
		} else {
			e.Skip("MCP-TOOLS-1", "the server does not declare tools")
		}
		for _, r := range rules {
			e.Skip(r, "the server does not declare the tools capability")
		}
		return nil
	}
	changes := judgeOf(e).counts().listChanged
	items, in, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	e.Pass("MCP-TOOLS-1", in.Seq)
	if !isResult(in) {
		for _, r := range rules {
			e.Skip(r, "tools/list failed")
		}
		return nil
	}
	judgeToolNames(e, s, in, items)
	judgeSchemaDialects(e, s, in, items)
	// Before any call: the grow tool changes the set.
	if err := judgeToolOrder(e, s, items, changes); err != nil {
		return err
	}
	// A cursor the server never issued.
	bad, err := s.call(e, "tools/list", map[string]any{"cursor": "wirecheck-never-issued-cursor"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(bad); ok && c == -32602 {
		e.Pass("MCP-PAGINATION-1", bad.Seq)
	} else {
		e.Fail("MCP-PAGINATION-1", bad.Seq, "tools/list with a cursor the server never issued was not answered with error -32602", "error code -32602", string(bad.Raw))
	}
	structured := e.Protocol.Has(s.version, revtable.StructuredContent)
	sawOutput := false
	for i, t := range items {
		if i >= maxItems {
			break
		}
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if name == "" {
			continue // the schema check of tools/list reports it
		}
		if skipTool(e, name) {
			e.Skip("MCP-TOOLS-5", fmt.Sprintf("tool %s not called: --param %s=%s", show(name), SkipToolParam, name))
			continue
		}
		args := map[string]any{}
		raw, hasIn := tm["inputSchema"].(map[string]any)
		if !hasIn {
			e.Fail("MCP-TOOLS-3", in.Seq, fmt.Sprintf("tool %q has no inputSchema object", name), "inputSchema: a JSON Schema", show(tm["inputSchema"]))
		} else if sch, err := gen.Compile(rawJSON(raw)); err != nil {
			e.Fail("MCP-TOOLS-3", in.Seq, fmt.Sprintf("tool %q: inputSchema is not a valid JSON Schema: %v", name, err), "a valid JSON Schema", show(raw))
		} else if raw["type"] != "object" {
			e.Fail("MCP-TOOLS-3", in.Seq, fmt.Sprintf("tool %q: inputSchema does not describe an object", name), `"type": "object"`, show(raw))
		} else {
			e.Pass("MCP-TOOLS-3", in.Seq)
			if v, err := gen.TryExample(sch, e.Seed+uint64(i)); err == nil {
				if m, ok := v.(map[string]any); ok {
					args = m
				}
			}
		}
		res, err := s.call(e, "tools/call", map[string]any{"name": name, "arguments": args})
		if unjudged(err) {
			// The other tools are still judged.
			e.Skip("MCP-TOOLS-5", err.Error())
			continue
		}
		if err != nil {
			return err
		}
		if !isResult(res) {
			e.Fail("MCP-TOOLS-5", res.Seq, fmt.Sprintf("tool %q, called with arguments generated from its inputSchema, answered a protocol error", name),
				"a CallToolResult (isError true or false)", string(res.Raw))
			continue
		}
		e.Pass("MCP-TOOLS-5", res.Seq)
		out, hasOut := tm["outputSchema"].(map[string]any)
		if !structured || !hasOut || inputRequired(res) {
			continue
		}
		sawOutput = true
		if field(res, "/result/isError") == true {
			continue
		}
		osch, err := gen.Compile(rawJSON(out))
		if err != nil {
			e.Fail("MCP-TOOLS-6", in.Seq, fmt.Sprintf("tool %q: outputSchema is not a valid JSON Schema: %v", name, err), "a valid JSON Schema", show(out))
			continue
		}
		sc, has := res.Field("/result/structuredContent")
		if !has {
			e.Fail("MCP-TOOLS-6", res.Seq, fmt.Sprintf("tool %q declares an outputSchema but its result has no structuredContent", name), "structuredContent matching outputSchema", string(res.Raw))
			continue
		}
		if err := osch.Validate(sc); err != nil {
			e.Fail("MCP-TOOLS-6", res.Seq, fmt.Sprintf("tool %q: structuredContent does not match its outputSchema", name), "structuredContent matching "+show(out), err.Error())
			continue
		}
		e.Pass("MCP-TOOLS-6", res.Seq)
	}
	if !structured {
		e.Skip("MCP-TOOLS-6", "outputSchema exists from revision 2025-06-18 on; this session uses "+s.version)
	} else if !sawOutput {
		e.Skip("MCP-TOOLS-6", "no tool declares an outputSchema")
	}
	unk, err := s.call(e, "tools/call", map[string]any{"name": "wirecheck-no-such-tool", "arguments": map[string]any{}})
	if err != nil {
		return err
	}
	if c, ok := errorCode(unk); ok && c == -32602 {
		e.Pass("MCP-TOOLS-7", unk.Seq)
	} else {
		e.Fail("MCP-TOOLS-7", unk.Seq, "calling a tool the server does not list was not answered with error -32602", "a JSON-RPC error with code -32602", string(unk.Raw))
	}
	s.settle(e, 20e6)
	return nil
}

// toolNameChars are the characters 2025-11-25 server/tools#tool-names lets
// a tool name hold.
var toolNameChars = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)

// judgeToolNames judges MCP-TOOLS-9 on every listed name, from 2025-11-25
// on (the revision that states it).
func judgeToolNames(e *scenario.Env, s *session, in *peer.Inbound, items []any) {
	if !holdsIn(e, "MCP-TOOLS-9", s.version) {
		e.Skip("MCP-TOOLS-9", "tool names are constrained from revision 2025-11-25 on; this session uses "+s.version)
		return
	}
	for _, t := range items {
		name, ok := field0(t, "name").(string)
		if !ok {
			continue // the schema check of tools/list reports it
		}
		if n := utf8.RuneCountInString(name); n < 1 || n > 128 || !toolNameChars.MatchString(name) {
			e.Fail("MCP-TOOLS-9", in.Seq, fmt.Sprintf("tool name %s is not 1 to 128 characters of A-Z, a-z, 0-9, _, - and .", show(name)),
				"a name matching ^[A-Za-z0-9_.-]{1,128}$", show(name))
			return
		}
	}
	if len(items) == 0 {
		e.Skip("MCP-TOOLS-9", "the server lists no tools")
		return
	}
	e.Pass("MCP-TOOLS-9", in.Seq)
}

// judgeToolOrder lists the tools a second time and judges MCP-TOOLS-8: the
// same names in the same order, unless the set itself changed (a name, a
// definition, or a list_changed since the first listing, before which
// changes of them had come).
func judgeToolOrder(e *scenario.Env, s *session, first []any, changes int) error {
	if !s.modern {
		e.Skip("MCP-TOOLS-8", "the deterministic order of tools/list is asked from revision 2026-07-28 on; this session uses "+s.version)
		return nil
	}
	var again []any
	var cursor any
	var last *peer.Inbound
	for range 50 {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = cursor
		}
		in, err := s.call(e, "tools/list", params)
		if unjudged(err) {
			e.Skip("MCP-TOOLS-8", err.Error())
			return nil
		}
		if err != nil {
			return err
		}
		last = in
		if !isResult(in) {
			e.Skip("MCP-TOOLS-8", "the second tools/list failed")
			return nil
		}
		page, _ := field(in, "/result/tools").([]any)
		again = append(again, page...)
		next, ok := field(in, "/result/nextCursor").(string)
		if !ok {
			break
		}
		cursor = next
	}
	a, b := toolNames(first), toolNames(again)
	if !sameSet(a, b) {
		e.Skip("MCP-TOOLS-8", "the set of tools changed between the two tools/list requests ("+strings.Join(a, ", ")+" then "+strings.Join(b, ", ")+")")
		return nil
	}
	// A tool is its whole definition: one whose description or schema
	// changed between the reads makes another set under the same names
	// (a server may re-register it, and list it elsewhere).
	if changed := changedTools(first, again); len(changed) > 0 {
		e.Skip("MCP-TOOLS-8", "the set of tools changed between the two tools/list requests: the definition of "+strings.Join(changed, ", ")+" changed")
		return nil
	}
	if judgeOf(e).counts().listChanged > changes {
		e.Skip("MCP-TOOLS-8", "the server said its lists changed (list_changed) between the two tools/list requests")
		return nil
	}
	if !slices.Equal(a, b) {
		e.Fail("MCP-TOOLS-8", last.Seq, "two tools/list requests, with the set of tools unchanged, listed the tools in different orders",
			strings.Join(a, ", "), strings.Join(b, ", "))
		return nil
	}
	e.Pass("MCP-TOOLS-8", last.Seq)
	return nil
}

// toolNames are the names of the listed tools, in their order ("" for a
// tool without one).
func toolNames(items []any) []string {
	out := make([]string, 0, len(items))
	for _, t := range items {
		n, _ := field0(t, "name").(string)
		out = append(out, n)
	}
	return out
}

// changedTools names the tools whose definition differs between two
// listings of the same names.
func changedTools(first, again []any) []string {
	defs := map[string]string{}
	for _, t := range first {
		n, _ := field0(t, "name").(string)
		b, _ := json.Marshal(t)
		defs[n] = string(b)
	}
	var out []string
	for _, t := range again {
		n, _ := field0(t, "name").(string)
		if b, _ := json.Marshal(t); defs[n] != string(b) {
			out = append(out, show(n))
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// field0 is the member k of an object, nil for anything else.
func field0(v any, k string) any {
	m, _ := v.(map[string]any)
	return m[k]
}

// judgeSchemaDialects judges MCP-TOOLS-10, from 2025-11-25 on: each tool's
// inputSchema and outputSchema compiled under the dialect it declares
// (gen.Compile reads $schema; 2020-12 without one). A schema naming a
// dialect or a document wirecheck may not load (gen.ErrExternalRef) is
// not judged: that is the server's dialect, not an invalid schema.
func judgeSchemaDialects(e *scenario.Env, s *session, in *peer.Inbound, items []any) {
	if !holdsIn(e, "MCP-TOOLS-10", s.version) {
		e.Skip("MCP-TOOLS-10", "the schema dialect rules are stated from revision 2025-11-25 on; this session uses "+s.version)
		return
	}
	judged := 0
	var unloaded []string
	for i, t := range items {
		if i >= maxItems {
			break
		}
		name, _ := field0(t, "name").(string)
		for _, key := range []string{"inputSchema", "outputSchema"} {
			sch, ok := field0(t, key).(map[string]any)
			if !ok {
				continue // absent, or no object: the schema check of tools/list reports it
			}
			_, err := gen.Compile(rawJSON(sch))
			switch {
			case errors.Is(err, gen.ErrExternalRef):
				unloaded = append(unloaded, fmt.Sprintf("%s of %s: %v", key, show(name), err))
				continue
			case err != nil:
				e.Fail("MCP-TOOLS-10", in.Seq, fmt.Sprintf("tool %s: %s is not valid under its dialect (%s): %v", show(name), key, dialect(sch), err),
					"a schema valid under "+dialect(sch), show(sch))
				return
			}
			judged++
		}
	}
	if judged == 0 {
		why := "no tool lists a schema object"
		if len(unloaded) > 0 {
			why = "no schema wirecheck could load: " + strings.Join(unloaded, "; ")
		}
		e.Skip("MCP-TOOLS-10", why)
		return
	}
	e.Pass("MCP-TOOLS-10", in.Seq)
}

// dialect names the dialect a schema declares, or the default.
func dialect(sch map[string]any) string {
	if d, ok := sch["$schema"].(string); ok {
		return d
	}
	return "2020-12, the default"
}

// holdsIn says whether the spec gives rule id to revision v: the
// session's, which may be one the server fell back to rather than the
// run's (the runner decides for the run's own).
func holdsIn(e *scenario.Env, id, v string) bool {
	r := e.Protocol.Rule(id)
	return r == nil || r.AppliesTo(v)
}
