package mcp

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/gen"
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
	rules := []string{"MCP-TOOLS-3", "MCP-TOOLS-5", "MCP-TOOLS-6", "MCP-TOOLS-7", "MCP-PAGINATION-1"}
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
