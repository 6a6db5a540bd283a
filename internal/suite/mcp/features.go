package mcp

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
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
	structured := s.version >= "2025-06-18"
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

func resources(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	rules := []string{"MCP-RESOURCES-3", "MCP-RESOURCES-4", "MCP-RESOURCES-5", "MCP-RESOURCES-6"}
	updates := s.updates
	defer func() {
		switch {
		case s.modern:
			skipAll(e, "revision "+s.requested+" sends resources/updated on subscriptions/listen streams (not covered yet)", "MCP-RESOURCES-7", "MCP-RESOURCES-8")
		case s.updates == updates:
			skipAll(e, "no notifications/resources/updated arrived during this scenario (wirecheck subscribed to a resource, when declared, and sent a request after it)", "MCP-RESOURCES-7", "MCP-RESOURCES-8")
		}
	}()
	items, in, err := listAll(e, s, "resources/list", "resources", "MCP-RESOURCES-2")
	if err != nil {
		return err
	}
	if !s.has("resources") {
		if in != nil && isResult(in) && len(items) > 0 {
			e.Fail("MCP-RESOURCES-1", in.Seq, "the server lists resources but did not declare the resources capability", "capabilities.resources", "capabilities "+show(s.caps))
		} else {
			e.Skip("MCP-RESOURCES-1", "the server does not declare resources")
		}
		for _, r := range rules {
			e.Skip(r, "the server does not declare the resources capability")
		}
		return nil
	}
	e.Pass("MCP-RESOURCES-1", in.Seq)
	read := 0
	var first string
	for _, it := range items {
		m, _ := it.(map[string]any)
		uri, _ := m["uri"].(string)
		if uri == "" || read >= 5 {
			continue
		}
		read++
		if first == "" {
			first = uri
		}
		r, err := s.call(e, "resources/read", map[string]any{"uri": uri})
		if unjudged(err) {
			e.Skip("MCP-RESOURCES-3", err.Error())
			continue
		}
		if err != nil {
			return err
		}
		if !isResult(r) {
			e.Fail("MCP-RESOURCES-3", r.Seq, "reading the listed resource "+uri+" failed", "a ReadResourceResult", string(r.Raw))
		} else {
			e.Pass("MCP-RESOURCES-3", r.Seq)
		}
	}
	if read == 0 {
		e.Skip("MCP-RESOURCES-3", "the server lists no resource to read")
	}
	t, err := s.call(e, "resources/templates/list", map[string]any{})
	if err != nil {
		return err
	}
	if e.Unimplemented(t) {
		e.Skip("MCP-RESOURCES-4", "the server does not implement resources/templates/list")
	} else if !isResult(t) {
		e.Fail("MCP-RESOURCES-4", t.Seq, "resources/templates/list failed", "a ListResourceTemplatesResult", string(t.Raw))
	}
	unk, err := s.call(e, "resources/read", map[string]any{"uri": "wirecheck://no/such/resource"})
	if err != nil {
		return err
	}
	// 2026-07-28 moved "Resource not found" from -32002 to -32602.
	want := int64(-32002)
	if s.modern {
		want = -32602
	}
	if c, ok := errorCode(unk); ok && c == want {
		e.Pass("MCP-RESOURCES-5", unk.Seq)
	} else {
		e.Fail("MCP-RESOURCES-5", unk.Seq, fmt.Sprintf("reading an unknown resource was not answered with error %d", want), fmt.Sprintf("error code %d (Resource not found)", want), string(unk.Raw))
	}
	if s.modern {
		e.Skip("MCP-RESOURCES-6", "revision "+s.requested+" replaced resources/subscribe with subscriptions/listen")
	} else if !s.capFlag("resources", "subscribe") || first == "" {
		e.Skip("MCP-RESOURCES-6", "the server does not declare resources.subscribe, or lists no resource")
	} else if err := s.subscribeOnce(e, first); err != nil {
		return err
	}
	s.settle(e, 20e6)
	return nil
}

// subscribeOnce subscribes to uri, gives the server a round trip to send
// an update of it (judging what arrives), and unsubscribes. The subscription holds
// from the subscribe request to the unsubscribe's answer (judgeUpdated).
func (s *session) subscribeOnce(e *scenario.Env, uri string) error {
	before := s.updates
	r, err := s.callWith(e, "resources/subscribe", map[string]any{"uri": uri}, sendOpts{then: func(in *peer.Inbound) {
		if isResult(in) && in.Call != nil {
			s.mu.Lock()
			if s.resSubs == nil {
				s.resSubs = map[string]*resSub{}
			}
			s.resSubs[uri] = &resSub{from: in.Call.Seq}
			s.mu.Unlock()
		}
	}})
	if err != nil {
		return err
	}
	if !isResult(r) {
		e.Fail("MCP-RESOURCES-6", r.Seq, "resources/subscribe "+uri+" failed although the server declares resources.subscribe", "an empty result", string(r.Raw))
		return nil
	}
	e.Pass("MCP-RESOURCES-6", r.Seq)
	// An update the subscription sets off comes before the answer to a
	// later request (stdin is read in order) or just after it; updates on
	// a timer of their own are judged whenever they come.
	if s.updates == before {
		if _, err := s.call(e, "ping", nil); err != nil {
			return err
		}
		s.settle(e, lateAnswer)
	}
	r, err = s.callWith(e, "resources/unsubscribe", map[string]any{"uri": uri}, sendOpts{then: func(in *peer.Inbound) {
		if isResult(in) {
			s.mu.Lock()
			if sub := s.resSubs[uri]; sub != nil {
				sub.until, sub.untilStream = in.Seq, orderedStream(in)
			}
			s.mu.Unlock()
		}
	}})
	if err != nil {
		return err
	}
	if isResult(r) {
		e.Pass("MCP-RESOURCES-6", r.Seq)
		// An update sent after the unsubscribe was answered is judged in
		// this scenario (MCP-RESOURCES-8), not left to whichever reads
		// the inbox next (none, when the scenario runs alone or in a
		// session of its own): on one ordered stream (stdio, the legacy
		// HTTP+SSE stream) it comes before the answer to a later request.
		if _, err := s.call(e, "ping", nil); err != nil {
			return err
		}
	} else {
		e.Fail("MCP-RESOURCES-6", r.Seq, "resources/unsubscribe "+uri+" failed although the server declares resources.subscribe", "an empty result", string(r.Raw))
	}
	return nil
}

func prompts(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	items, in, err := listAll(e, s, "prompts/list", "prompts", "MCP-PROMPTS-2")
	if err != nil {
		return err
	}
	if !s.has("prompts") {
		if in != nil && isResult(in) && len(items) > 0 {
			e.Fail("MCP-PROMPTS-1", in.Seq, "the server lists prompts but did not declare the prompts capability", "capabilities.prompts", "capabilities "+show(s.caps))
		} else {
			e.Skip("MCP-PROMPTS-1", "the server does not declare prompts")
		}
		for _, r := range []string{"MCP-PROMPTS-3", "MCP-PROMPTS-4", "MCP-PROMPTS-5", "MCP-COMPLETION-1", "MCP-COMPLETION-2"} {
			e.Skip(r, "the server does not declare the prompts capability")
		}
		return nil
	}
	e.Pass("MCP-PROMPTS-1", in.Seq)
	var withArg, argName string
	got, ok := 0, 0
	for _, it := range items {
		m, _ := it.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" || got >= maxItems {
			continue
		}
		got++
		args := map[string]any{}
		as, _ := m["arguments"].([]any)
		for _, a := range as {
			am, _ := a.(map[string]any)
			an, _ := am["name"].(string)
			if an == "" {
				continue
			}
			if withArg == "" {
				withArg, argName = name, an
			}
			if am["required"] == true {
				args[an] = s.argValue(e, name, am, args)
			}
		}
		r, err := s.call(e, "prompts/get", map[string]any{"name": name, "arguments": args})
		if err != nil {
			return err
		}
		c, isErr := errorCode(r)
		switch {
		case isResult(r):
			ok++
			e.Pass("MCP-PROMPTS-5", r.Seq)
		case isErr && c == -32602:
			// The server refused wirecheck's argument values, as it should.
			e.Pass("MCP-PROMPTS-5", r.Seq)
		default:
			e.Fail("MCP-PROMPTS-5", r.Seq, fmt.Sprintf("prompts/get %q with its required arguments %s failed, and not with error -32602", name, show(args)),
				"a GetPromptResult, or error -32602 when an argument value is invalid", string(r.Raw))
		}
	}
	if got == 0 {
		e.Skip("MCP-PROMPTS-5", "the server lists no prompt")
	}
	if ok == 0 {
		e.Skip("MCP-PROMPTS-3", "no prompts/get succeeded")
	}
	unk, err := s.call(e, "prompts/get", map[string]any{"name": "wirecheck-no-such-prompt"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(unk); ok && c == -32602 {
		e.Pass("MCP-PROMPTS-4", unk.Seq)
	} else {
		e.Fail("MCP-PROMPTS-4", unk.Seq, "prompts/get of an unknown prompt was not answered with error -32602", "error code -32602", string(unk.Raw))
	}
	completion(e, s, withArg, argName)
	return nil
}

func completion(e *scenario.Env, s *session, prompt, arg string) {
	if prompt == "" {
		e.Skip("MCP-COMPLETION-1", "no prompt has an argument to complete")
		e.Skip("MCP-COMPLETION-2", "no prompt has an argument to complete")
		return
	}
	declared := s.has("completions")
	if !declared && s.version >= "2025-03-26" {
		// Undeclared: ask anyway; a result proves the server supports it.
		r, err := s.call(e, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": prompt}, "argument": map[string]any{"name": arg, "value": ""}})
		if err != nil {
			return
		}
		if isResult(r) {
			e.Fail("MCP-COMPLETION-1", r.Seq, "the server answers completion/complete but did not declare the completions capability", "capabilities.completions", "capabilities "+show(s.caps))
		} else {
			e.Skip("MCP-COMPLETION-1", "the server does not declare completions")
		}
		e.Skip("MCP-COMPLETION-2", "the server does not declare the completions capability")
		return
	}
	r, err := s.call(e, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": prompt}, "argument": map[string]any{"name": arg, "value": ""}})
	if err != nil {
		return
	}
	if s.version < "2025-03-26" {
		e.Skip("MCP-COMPLETION-1", "revision "+s.version+" has no completions capability")
		if e.Unimplemented(r) {
			e.Skip("MCP-COMPLETION-2", "the server does not implement completion/complete")
			return
		}
	} else {
		e.Pass("MCP-COMPLETION-1", r.Seq)
	}
	if !isResult(r) {
		e.Fail("MCP-COMPLETION-2", r.Seq, fmt.Sprintf("completion/complete of argument %q of prompt %q failed", arg, prompt), "a CompleteResult", string(r.Raw))
		return
	}
	if vs, _ := field(r, "/result/completion/values").([]any); len(vs) > 100 {
		e.Fail("MCP-COMPLETION-2", r.Seq, fmt.Sprintf("%d completion values", len(vs)), "at most 100 values", show(vs[:5]))
	}
}

// argValue is the value wirecheck gives a required prompt argument
// (declared by decl): the first completion the server offers when it
// declares completions, argFallback's otherwise.
func (s *session) argValue(e *scenario.Env, prompt string, decl map[string]any, known map[string]any) any {
	arg, _ := decl["name"].(string)
	if !s.has("completions") {
		return argFallback(decl)
	}
	p := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": prompt}, "argument": map[string]any{"name": arg, "value": ""}}
	if len(known) > 0 && s.version >= "2025-06-18" {
		p["context"] = map[string]any{"arguments": known}
	}
	r, err := s.call(e, "completion/complete", p)
	if err != nil {
		return argFallback(decl)
	}
	if vs, _ := field(r, "/result/completion/values").([]any); len(vs) > 0 {
		if v, isStr := vs[0].(string); isStr {
			return v
		}
	}
	return argFallback(decl)
}

// argURI is the value of an argument that is a URI: absolute (the
// schema's format uri asks for a scheme), on a name that resolves nowhere.
const argURI = "https://wirecheck.invalid/1"

// argFallback is the value of a required prompt argument completion
// offers nothing for. A prompt may use its argument as text, a name, a
// number or a URI, and what its answer carries is the value given (an
// embedded resource's uri, say): wirecheck's own input, which must not
// fail the server. No one string is both a number and an absolute URI, so
// the argument's declaration decides: one whose name, title or
// description names a URI or URL gets argURI (text and a name too), any
// other "1" (text, a name and a number).
func argFallback(decl map[string]any) string {
	for _, k := range []string{"name", "title", "description"} {
		t, _ := decl[k].(string)
		for _, w := range words(t) {
			switch w {
			case "uri", "uris", "url", "urls", "iri":
				return argURI
			}
		}
	}
	return "1"
}

// words splits a name or a sentence into its lower-case words: at every
// character that is no letter or digit, and where a lower-case letter is
// followed by an upper-case one (resourceUri: resource, uri).
func words(t string) []string {
	var out []string
	var w []rune
	flush := func() {
		if len(w) > 0 {
			out = append(out, strings.ToLower(string(w)))
			w = w[:0]
		}
	}
	prev := rune(0)
	for _, r := range t {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			w = append(w, r)
		default:
			w = append(w, r)
		}
		prev = r
	}
	flush()
	return out
}
