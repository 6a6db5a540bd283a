package mcp

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

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
	if !declared && e.Protocol.Has(s.version, revtable.Completions) {
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
	if !e.Protocol.Has(s.version, revtable.Completions) {
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
	if len(known) > 0 && e.Protocol.Has(s.version, revtable.CompletionContext) {
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
