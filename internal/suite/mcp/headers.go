package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The http-headers scenario judges 2026-07-28's request metadata headers
// (shared/reference/mcp/2026-07-28/spec/basic/transports/streamable-http.mdx,
// Request Metadata; docs/plans/mcp-http.md §1.3): each probe is the twin
// of a served request with one header missing, different or badly
// written, and a refusal must be "400 Bad Request" with HeaderMismatch
// (-32020) (§ Server Validation). MCP-HEADER-13, the x-mcp-header
// annotations of the tools a server lists, is judged on every tools/list
// page of every transport (listAll).

var headerRules = []string{"MCP-HEADER-1", "MCP-HEADER-2", "MCP-HEADER-3", "MCP-HEADER-4", "MCP-HEADER-5", "MCP-HEADER-6",
	"MCP-HEADER-7", "MCP-HEADER-8", "MCP-HEADER-9", "MCP-HEADER-10", "MCP-HEADER-11", "MCP-HEADER-12", "MCP-HEADER-13"}

func headersScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "http-headers",
		Title: "2026-07-28 Streamable HTTP: requests whose MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param headers are missing, differ from the body or hold invalid characters are refused 400 with HeaderMismatch; encoded, numerically equal and any-case headers are served; listed x-mcp-header annotations are valid",
		Rules: headerRules,
		Run:   httpHeaders,
	}
}

const headerMismatch = -32020

func httpHeaders(e *scenario.Env) error {
	rules := holding(e, headerRules)
	if len(rules) == 0 {
		return nil
	}
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, "the server speaks an earlier revision (it answered no server/discover of 2026-07-28)", headerRules...)
		return nil
	}
	var tools []any
	if s.has("tools") {
		// listAll judges MCP-HEADER-13 page by page and leaves out the
		// tools a client MUST reject.
		if tools, _, err = listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2"); err != nil {
			return err
		}
	} else {
		e.Skip("MCP-HEADER-13", "the server does not declare tools")
	}
	probed := headerRules[:12]
	x, err := exchanger(e, "http", probed...)
	if x == nil || err != nil {
		return err
	}
	body := twinBody(s)
	if _, why := twin(e, x, body); why != "" {
		skipAll(e, why, probed...)
		return nil
	}
	judgeVersionHeaders(e, x, s, body)
	judgeMethodHeader(e, x, body)
	judgeNameHeader(e, x, s)
	judgeParamHeaders(e, x, s, tools)
	return nil
}

// withHeaders is a probe POST of body with headers set ("" drops one).
func withHeaders(body []byte, set map[string]string) httpmcp.Exchange {
	ex := httpmcp.Exchange{Method: http.MethodPost, Body: body, Set: map[string]string{}}
	for k, v := range set {
		if v == "" {
			ex.Drop = append(ex.Drop, k)
		} else {
			ex.Set[k] = v
		}
	}
	return ex
}

// errorCodeIn is the code of the JSON-RPC error a probe's answer carries.
func errorCodeIn(res *httpmcp.Result) (int64, bool) {
	if res == nil {
		return 0, false
	}
	for _, f := range res.Frames {
		var m struct {
			Error *struct {
				Code json.Number `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(f, &m) == nil && m.Error != nil {
			c, err := m.Error.Code.Int64()
			return c, err == nil
		}
	}
	return 0, false
}

// mismatched reports whether a probe was refused as the text says: 400
// with HeaderMismatch.
func mismatched(res *httpmcp.Result) bool {
	c, ok := errorCodeIn(res)
	return res != nil && res.Status == http.StatusBadRequest && ok && c == headerMismatch
}

const wantMismatch = "400 Bad Request with JSON-RPC error -32020 (HeaderMismatch)"

// refuseEach sends probes, each the served twin with one header changed;
// rule passes when every one is refused 400 with HeaderMismatch.
func refuseEach(e *scenario.Env, x httpmcp.Exchanger, rule string, probes []headerProbe) {
	ok, last := true, -1
	for _, p := range probes {
		res, seq := exchange(e, x, p.what, p.ex)
		last = seq
		if mismatched(res) {
			continue
		}
		ok = false
		how := "was not refused with 400 and HeaderMismatch"
		if served(res) {
			how = "was served"
		}
		e.Fail(rule, seq, p.what+" "+how+", while its twin with the headers as the body says was served", wantMismatch, answered(res))
	}
	if ok {
		e.Pass(rule, last)
	}
}

type headerProbe struct {
	what string
	ex   httpmcp.Exchange
}

// judgeVersionHeaders: MCP-Protocol-Version against _meta (HEADER-1), a
// revision no server implements (HEADER-2), a method none implements
// (HEADER-3), the header left out (HEADER-4), and its name in lower case
// (HEADER-12, with Mcp-Method in upper case).
func judgeVersionHeaders(e *scenario.Env, x httpmcp.Exchanger, s *session, body []byte) {
	refuseEach(e, x, "MCP-HEADER-1", []headerProbe{{"the twin with MCP-Protocol-Version: 2025-11-25 (the body's _meta names " + s.requested + ")",
		withHeaders(body, map[string]string{"MCP-Protocol-Version": "2025-11-25"})}})

	future := "2099-01-01"
	res, seq := exchange(e, x, "tools/list naming the revision "+future+" in header and _meta",
		withHeaders(rawJSON(request("tools/list", map[string]any{"_meta": meta(future)})), map[string]string{"MCP-Protocol-Version": future}))
	if res != nil && res.Status == http.StatusBadRequest {
		e.Pass("MCP-HEADER-2", seq)
	} else {
		e.Fail("MCP-HEADER-2", seq, "a request naming the revision "+future+", which no server implements, was not answered 400", "400 Bad Request with an UnsupportedProtocolVersionError", answered(res))
	}

	res, seq = exchange(e, x, "wirecheck/unknown, a method no server implements, with its headers",
		withHeaders(rawJSON(request("wirecheck/unknown", map[string]any{"_meta": meta(s.requested)})), nil))
	if c, ok := errorCodeIn(res); res != nil && res.Status == http.StatusNotFound && ok && c == -32601 {
		e.Pass("MCP-HEADER-3", seq)
	} else {
		e.Fail("MCP-HEADER-3", seq, "a request of a method the server does not implement was not answered 404 with -32601", "404 Not Found with JSON-RPC error -32601", answered(res))
	}

	res, seq = exchange(e, x, "the twin without MCP-Protocol-Version", withHeaders(body, map[string]string{"MCP-Protocol-Version": ""}))
	switch {
	case mismatched(res):
		e.Pass("MCP-HEADER-4", seq)
	case served(res):
		judgeServedWithoutVersion(e, x, s, seq, res)
	default:
		e.Fail("MCP-HEADER-4", seq, "a request without MCP-Protocol-Version was refused, but not with 400 and HeaderMismatch", wantMismatch+", or served by a server of clients before 2025-06-18", answered(res))
	}

	res, seq = exchange(e, x, "the twin with its header names in another case (mcp-protocol-version, MCP-METHOD)",
		withHeaders(body, map[string]string{"MCP-Protocol-Version": "", "Mcp-Method": "", "mcp-protocol-version": s.requested, upper("mcp-method"): "tools/list"}))
	judgeAnyCase(e, seq, res)
}

// judgeServedWithoutVersion: a request without the version header may be
// served only by a server that "supports clients implementing protocol
// versions earlier than 2025-06-18". Its server/discover may say so; if
// it does not (supportedVersions may list only the revision a modern
// client should use), what the server does with such a client says: the
// initialize of a 2025-03-26 client answered with a result negotiating a
// revision before 2025-06-18 is that support, whatever discover lists.
func judgeServedWithoutVersion(e *scenario.Env, x httpmcp.Exchanger, s *session, seq int, res *httpmcp.Result) {
	in, err := s.call(e, "server/discover", map[string]any{})
	listed := err == nil && isResult(in)
	vs, _ := field(in, "/result/supportedVersions").([]any)
	for _, v := range vs {
		if v, ok := v.(string); listed && ok && !e.Protocol.Has(v, revtable.VersionHeader) {
			e.Pass("MCP-HEADER-4", seq)
			return
		}
	}
	negotiated, iseq := olderInitialize(e, x, headerless(e))
	if v, ok := negotiated.(string); ok && !e.Protocol.Has(v, revtable.VersionHeader) {
		e.Pass("MCP-HEADER-4", seq)
		return
	}
	if !listed {
		e.Skip("MCP-HEADER-4", "the server served a request without MCP-Protocol-Version, server/discover did not say which revisions it serves, and the initialize of a "+headerless(e)+" client did not show it supports such clients")
		return
	}
	initialized := "refused or not answered with a result"
	if negotiated != nil {
		initialized = "answered negotiating " + show(negotiated)
	}
	e.Fail("MCP-HEADER-4", seq, fmt.Sprintf("a request without MCP-Protocol-Version was served by a server that supports no client before %s: its server/discover lists no revision before it (line %d), and the initialize of a %s client was %s (line %d)",
		headerVersion(e), in.Seq, headerless(e), initialized, iseq),
		wantMismatch, answered(res)+"; supportedVersions "+show(vs))
}

// judgeAnyCase: "Clients and servers MUST use case-insensitive comparisons
// for header names" — header names written in another case are served.
func judgeAnyCase(e *scenario.Env, seq int, res *httpmcp.Result) {
	if served(res) {
		e.Pass("MCP-HEADER-12", seq)
		return
	}
	e.Fail("MCP-HEADER-12", seq, "the twin with its header names written in another case was refused, while the twin was served", "served: header names compare case-insensitively", answered(res))
}

// judgeMethodHeader: Mcp-Method missing, naming another method, or the
// method in another case (values are case-sensitive).
func judgeMethodHeader(e *scenario.Env, x httpmcp.Exchanger, body []byte) {
	refuseEach(e, x, "MCP-HEADER-5", []headerProbe{
		{"the twin without Mcp-Method", withHeaders(body, map[string]string{"Mcp-Method": ""})},
		{"the twin with Mcp-Method: prompts/list (its body: tools/list)", withHeaders(body, map[string]string{"Mcp-Method": "prompts/list"})},
		{"the twin with Mcp-Method: Tools/List", withHeaders(body, map[string]string{"Mcp-Method": "Tools/List"})},
	})
}

// judgeNameHeader: Mcp-Name missing or naming something else, on a served
// request that requires it: a resources/read of a listed resource, a
// prompts/get of a prompt without required arguments, or a tools/call of
// a tool.
func judgeNameHeader(e *scenario.Env, x httpmcp.Exchanger, s *session) {
	body, what, name := nameRequest(e, s)
	if body == nil {
		skipAll(e, "the server lists no resource, prompt without required arguments, or tool: no request carries Mcp-Name", "MCP-HEADER-6")
		return
	}
	if _, why := twin(e, x, body); why != "" {
		e.Skip("MCP-HEADER-6", why)
		return
	}
	refuseEach(e, x, "MCP-HEADER-6", []headerProbe{
		{what + " without Mcp-Name", withHeaders(body, map[string]string{"Mcp-Name": ""})},
		{what + " with Mcp-Name naming something else", withHeaders(body, map[string]string{"Mcp-Name": "wirecheck-other-name"})},
	})
	res, seq := exchange(e, x, what+" with its header name written MCP-NAME", withHeaders(body, map[string]string{"Mcp-Name": "", upper("mcp-name"): mcpheader.Encode(name)}))
	judgeAnyCase(e, seq, res)
}

// nameRequest is a request that carries Mcp-Name, what it is, and the
// name or URI the header names.
func nameRequest(e *scenario.Env, s *session) ([]byte, string, string) {
	m := meta(s.requested)
	if s.has("resources") {
		if items, _, err := listAll(e, s, "resources/list", "resources", "MCP-RESOURCES-2"); err == nil {
			for _, it := range items {
				if uri, ok := member(it, "uri").(string); ok {
					return rawJSON(request("resources/read", map[string]any{"uri": uri, "_meta": m})), "resources/read of " + show(uri), uri
				}
			}
		}
	}
	if s.has("prompts") {
		if items, _, err := listAll(e, s, "prompts/list", "prompts", "MCP-PROMPTS-2"); err == nil {
			for _, it := range items {
				name, ok := member(it, "name").(string)
				if ok && !requiresArguments(it) {
					return rawJSON(request("prompts/get", map[string]any{"name": name, "_meta": m})), "prompts/get of " + show(name), name
				}
			}
		}
	}
	return nil, "", ""
}

// member is an object's member k, nil when v is no object.
func member(v any, k string) any {
	m, _ := v.(map[string]any)
	return m[k]
}

func requiresArguments(prompt any) bool {
	args, _ := member(prompt, "arguments").([]any)
	for _, a := range args {
		if member(a, "required") == true {
			return true
		}
	}
	return false
}

// headerTool is a listed tool with valid x-mcp-header annotations, the
// arguments generated from its inputSchema, and that schema compiled.
type headerTool struct {
	name   string
	params []mcpheader.Param
	args   map[string]any
	schema *jsonschema.Schema
}

// headerTools are the listed tools whose calls carry Mcp-Param headers.
func headerTools(e *scenario.Env, tools []any) []headerTool {
	var out []headerTool
	for i, t := range tools {
		name, _ := member(t, "name").(string)
		in, _ := member(t, "inputSchema").(map[string]any)
		ps, err := mcpheader.Params(in)
		if name == "" || err != nil || len(ps) == 0 || skipTool(e, name) {
			continue
		}
		sch, err := gen.Compile(rawJSON(in))
		if err != nil {
			continue
		}
		v, err := gen.TryExample(sch, e.Seed+uint64(i))
		args, ok := v.(map[string]any)
		if err != nil || !ok {
			continue
		}
		t := headerTool{name: name, params: ps, args: args, schema: sch}
		t.fill(member(in, "properties"))
		out = append(out, t)
	}
	return out
}

// fill gives each annotated top-level argument the example left out a
// value its schema takes, so the plain call carries every Mcp-Param
// header and a probe can leave one out.
func (t *headerTool) fill(props any) {
	for _, p := range t.params {
		if len(p.Path) != 1 {
			continue
		}
		if _, has := t.args[p.Path[0]]; has {
			continue
		}
		for _, v := range []any{"wirecheck", json.Number("1"), true} {
			if a, ok := t.with(p.Path[0], v); ok {
				t.args = a
				break
			}
		}
	}
}

// with is the tool's arguments with one top-level argument changed (nil
// value: left out), when its schema still takes them.
func (t headerTool) with(arg string, v any) (map[string]any, bool) {
	a := map[string]any{}
	for k, x := range t.args {
		a[k] = x
	}
	if v == nil {
		delete(a, arg)
	} else {
		a[arg] = v
	}
	return a, t.schema.Validate(roundTrip(a)) == nil
}

// roundTrip is v as the validator reads JSON: numbers as json.Number.
func roundTrip(v any) any {
	d := json.NewDecoder(strings.NewReader(string(rawJSON(v))))
	d.UseNumber()
	var out any
	_ = d.Decode(&out)
	return out
}

func (t headerTool) body(s *session, args map[string]any) []byte {
	return rawJSON(request("tools/call", map[string]any{"name": t.name, "arguments": args, "_meta": meta(s.requested)}))
}

// typeOf is the JSON Schema type of a top-level property.
func (t headerTool) typeOf(tools []any, p mcpheader.Param) string {
	for _, it := range tools {
		if member(it, "name") != t.name {
			continue
		}
		in, _ := member(it, "inputSchema").(map[string]any)
		props, _ := in["properties"].(map[string]any)
		ty, _ := member(props[p.Path[0]], "type").(string)
		return ty
	}
	return ""
}

// judgeParamHeaders judges the Mcp-Param headers on calls of the listed
// tools that annotate arguments (HEADER-7..11). A rule no listed tool
// lets wirecheck probe is skipped, with why.
func judgeParamHeaders(e *scenario.Env, x httpmcp.Exchanger, s *session, tools []any) {
	rules := []string{"MCP-HEADER-7", "MCP-HEADER-8", "MCP-HEADER-9", "MCP-HEADER-10", "MCP-HEADER-11"}
	hts := headerTools(e, tools)
	if len(hts) == 0 {
		skipAll(e, "the server lists no tool with a valid x-mcp-header annotation whose arguments wirecheck can generate: no request carries Mcp-Param headers", rules...)
		return
	}
	done := map[string]bool{}
	for _, t := range hts {
		judgeEncoded(e, x, s, t, done)
		judgeParams(e, x, s, t, tools, done)
	}
	for _, r := range rules {
		if !done[r] {
			e.Skip(r, "no listed tool with x-mcp-header annotations has an argument this probe needs (a value that needs encoding, a value given, an optional one, an integer) that its inputSchema takes, or its plain call was not served")
		}
	}
}

// encodable is a value that must travel Base64-encoded.
const encodable = "wirecheck-é"

// judgeEncoded: a call whose name or an annotated string argument needs
// the Base64 sentinel is served (HEADER-7); the same value sent raw is
// refused (HEADER-8).
func judgeEncoded(e *scenario.Env, x httpmcp.Exchanger, s *session, t headerTool, done map[string]bool) {
	if done["MCP-HEADER-7"] && done["MCP-HEADER-8"] {
		return
	}
	args, header := t.args, ""
	for _, p := range t.params {
		if len(p.Path) != 1 {
			continue
		}
		if a, ok := t.with(p.Path[0], encodable); ok {
			args, header = a, p.Header()
			break
		}
	}
	if header == "" && mcpheader.Plain(t.name) {
		return
	}
	body := t.body(s, args)
	what := "tools/call of " + show(t.name)
	if header != "" {
		what += " with " + header + " Base64-encoded"
	} else {
		what += " with Mcp-Name Base64-encoded"
	}
	res, seq := exchange(e, x, what, withHeaders(body, nil))
	switch {
	case served(res):
		if !done["MCP-HEADER-7"] {
			e.Pass("MCP-HEADER-7", seq)
		}
	case mismatched(res):
		e.Fail("MCP-HEADER-7", seq, what+" as Value Encoding requires was refused as a header mismatch: the server compared the encoded value undecoded",
			"served: the value decoded before it is compared", answered(res))
	default:
		return // refused for something else: nothing to charge to the encoding
	}
	done["MCP-HEADER-7"] = true
	if header == "" || !served(res) || done["MCP-HEADER-8"] {
		return
	}
	done["MCP-HEADER-8"] = true
	refuseEach(e, x, "MCP-HEADER-8", []headerProbe{{what + ", sent raw (UTF-8 bytes) instead", withHeaders(body, map[string]string{header: encodable})}})
}

// judgeParams: the header differing from the argument, or missing while
// it is given (HEADER-9); the argument left out, and so its header
// (HEADER-10); an integer argument written 42.0 with the header 42
// (HEADER-11).
func judgeParams(e *scenario.Env, x httpmcp.Exchanger, s *session, t headerTool, tools []any, done map[string]bool) {
	body := t.body(s, t.args)
	what := "tools/call of " + show(t.name)
	if _, why := twin(e, x, body); why != "" {
		return
	}
	for _, p := range t.params {
		if len(p.Path) != 1 {
			continue
		}
		arg := p.Path[0]
		v, given := p.Value(t.args)
		if given && !done["MCP-HEADER-9"] {
			done["MCP-HEADER-9"] = true
			refuseEach(e, x, "MCP-HEADER-9", []headerProbe{
				{what + " with " + p.Header() + " other than its argument", withHeaders(body, map[string]string{p.Header(): other(v)})},
				{what + " without " + p.Header() + " (its argument given)", withHeaders(body, map[string]string{p.Header(): ""})},
			})
		}
		if a, ok := t.with(arg, nil); ok && !done["MCP-HEADER-10"] {
			done["MCP-HEADER-10"] = true
			res, seq := exchange(e, x, what+" without the argument "+arg+", so without "+p.Header(), withHeaders(t.body(s, a), nil))
			if mismatched(res) {
				e.Fail("MCP-HEADER-10", seq, "a call leaving out the annotated argument "+arg+" was refused as a header mismatch: the server expected "+p.Header(),
					"served (\"Parameter not in arguments … Server MUST NOT expect the header\")", answered(res))
			} else {
				e.Pass("MCP-HEADER-10", seq)
			}
		}
		n, isInt := integer(t.args[arg])
		if isInt && t.typeOf(tools, p) == "integer" && !done["MCP-HEADER-11"] {
			a, valid := t.with(arg, json.Number(n+".0"))
			if !valid {
				continue
			}
			done["MCP-HEADER-11"] = true
			res, seq := exchange(e, x, what+" with "+arg+" written "+n+".0 and "+p.Header()+": "+n, withHeaders(t.body(s, a), nil))
			if mismatched(res) {
				e.Fail("MCP-HEADER-11", seq, "an integer argument written with a fraction of zero was refused against its header in decimal", "served: 42 and 42.0 compare equal", answered(res))
			} else {
				e.Pass("MCP-HEADER-11", seq)
			}
		}
	}
}

// integer is v in decimal when it is a JSON integer.
func integer(v any) (string, bool) {
	n, ok := roundTrip(v).(json.Number)
	if !ok {
		return "", false
	}
	d := mcpheader.Decimal(n.String())
	if _, err := json.Number(d).Int64(); err != nil {
		return "", false
	}
	return d, true
}

// other is a header value that is not v.
func other(v string) string {
	if v == "wirecheck-other" {
		return "wirecheck-another"
	}
	return "wirecheck-other"
}

// judgeToolHeaders decides MCP-HEADER-13 on one tools/list page of a
// 2026-07-28 session and returns the page's tools a client keeps:
// "Rejection means the client MUST exclude the invalid tool from the
// result of tools/list" (server/tools.mdx § x-mcp-header).
func judgeToolHeaders(e *scenario.Env, s *session, in *peer.Inbound, page []any) []any {
	if s == nil || !s.modern {
		return page
	}
	if r := e.Protocol.Rule("MCP-HEADER-13"); r == nil || !r.AppliesTo(e.Protocol.Version) {
		return page
	}
	kept := page[:0:0]
	ok := true
	for _, t := range page {
		in2, _ := member(t, "inputSchema").(map[string]any)
		if _, err := mcpheader.Params(in2); err != nil {
			ok = false
			e.Fail("MCP-HEADER-13", in.Seq, fmt.Sprintf("tool %s: %v", show(member(t, "name")), err),
				"x-mcp-header values that are non-empty, unique field-name tokens on statically reachable integer, string or boolean properties", show(in2))
			continue
		}
		kept = append(kept, t)
	}
	if ok {
		e.Pass("MCP-HEADER-13", in.Seq)
	}
	return kept
}

// upper writes a header name in capitals: as a literal it would read as a
// rule ID to the test that checks every rule ID in Go is in a spec.
func upper(name string) string { return strings.ToUpper(name) }
