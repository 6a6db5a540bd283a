package mcp

import (
	"fmt"
	"maps"
	"slices"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// mrtrMethods are the requests a server may answer with an
// InputRequiredResult.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// inputCapability is the client capability each inputRequests method uses.
var inputCapability = map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}

func inputRequired(in *peer.Inbound) bool { return field(in, "/result/resultType") == "input_required" }

// judgeInput judges an answer of a 2026-07-28 request that declared caps:
// an InputRequiredResult only on the methods that allow it (MRTR-3), with
// inputRequests or requestState (MRTR-1), asking only for declared
// capabilities (MRTR-2). Its schema (MRTR-4) is the peer's.
func (s *session) judgeInput(e *scenario.Env, method string, caps map[string]any, in *peer.Inbound) {
	if !inputRequired(in) {
		return
	}
	s.inputRequired++
	if mrtrMethods[method] {
		e.Pass("MCP-MRTR-3", in.Seq)
	} else {
		e.Fail("MCP-MRTR-3", in.Seq, method+" was answered with an InputRequiredResult",
			"resultType input_required only on tools/call, prompts/get and resources/read", string(in.Raw))
	}
	_, hasReqs := in.Field("/result/inputRequests")
	_, hasState := in.Field("/result/requestState")
	if hasReqs || hasState {
		e.Pass("MCP-MRTR-1", in.Seq)
	} else {
		e.Fail("MCP-MRTR-1", in.Seq, "an InputRequiredResult with neither inputRequests nor requestState",
			"at least one of inputRequests and requestState", string(in.Raw))
	}
	reqs, _ := field(in, "/result/inputRequests").(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		m, _ := reqs[k].(map[string]any)
		method, _ := m["method"].(string)
		c := inputCapability[method]
		if _, declared := caps[c]; c != "" && !declared {
			e.Fail("MCP-MRTR-2", in.Seq, fmt.Sprintf("inputRequests[%q] is %s, but the request declared no %s capability", k, method, c),
				"inputRequests only for capabilities in io.modelcontextprotocol/clientCapabilities ("+show(caps)+")", string(in.Raw))
			return
		}
	}
	e.Pass("MCP-MRTR-2", in.Seq)
}

// retryInput answers InputRequiredResults of method (at most maxRetries
// times): a retry with a new id, the original params, inputResponses
// answering every inputRequests entry wirecheck can answer, and the
// requestState echoed exactly (left out when the server sent none).
func (s *session) retryInput(e *scenario.Env, method string, params map[string]any, o sendOpts, in *peer.Inbound) (*peer.Inbound, error) {
	for n := 0; n < maxRetries && mrtrMethods[method] && inputRequired(in); n++ {
		var err error
		in, err = s.send(e, method, retryParams(params, in, true), o)
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// retryParams are the params of the retry of a request answered in (an
// InputRequiredResult), with inputResponses when answer is set.
func retryParams(params map[string]any, in *peer.Inbound, answer bool) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	delete(p, "inputResponses")
	delete(p, "requestState")
	if reqs, ok := field(in, "/result/inputRequests").(map[string]any); ok && answer {
		p["inputResponses"] = answerInputs(reqs)
	}
	if st, ok := in.Field("/result/requestState"); ok {
		p["requestState"] = st
	}
	return p
}

// answerInputs answers each inputRequests entry as Handler answers the
// same request sent on stdout in the older revisions; an entry that is not
// one of the three an InputRequests map may hold (roots/list,
// sampling/createMessage, elicitation/create) is left out.
func answerInputs(reqs map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range reqs {
		in := &peer.Inbound{Value: v}
		if m, _ := in.Field("/method"); inputCapability[fmt.Sprint(m)] == "" {
			continue
		}
		if r := answer(in); r != nil {
			out[k] = r
		}
	}
	return out
}

// toolArgs generates a tool's arguments from its inputSchema ({} when it
// has none wirecheck can use).
func toolArgs(e *scenario.Env, tm map[string]any, i int) map[string]any {
	raw, _ := tm["inputSchema"].(map[string]any)
	sch, err := gen.Compile(rawJSON(raw))
	if err != nil || raw == nil {
		return map[string]any{}
	}
	if v, err := gen.TryExample(sch, e.Seed+uint64(i)); err == nil {
		if m, ok := v.(map[string]any); ok {
			return m
		}
	}
	return map[string]any{}
}

// probe is one request that may be answered input_required.
type probe struct {
	method string
	params map[string]any
}

// mrtrRules are the rules of the mrtr scenario: its retries declaring no
// capability are where a -32021 comes, whose HTTP status MCP-META-4 judges.
var mrtrRules = []string{"MCP-MRTR-1", "MCP-MRTR-2", "MCP-MRTR-3", "MCP-MRTR-4", "MCP-MRTR-5", "MCP-MRTR-6", "MCP-MRTR-7", "MCP-META-4"}

// mrtr looks for a tool, a prompt and a resource answered with an
// InputRequiredResult (the first of each method), completes each, then
// retries it once without the input asked for and once declaring no
// capabilities.
func mrtr(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), mrtrRules...)
		return nil
	}
	capErrors := s.capabilityErrors()
	defer func() {
		if s.capabilityErrors() == capErrors {
			e.Skip("MCP-META-4", "no request was answered with MissingRequiredClientCapabilityError (-32021) over Streamable HTTP: no status to judge")
		}
	}()
	var probes []probe
	for _, l := range []struct{ method, key, rule string }{{"tools/list", "tools", "MCP-TOOLS-2"}, {"prompts/list", "prompts", "MCP-PROMPTS-2"}, {"resources/list", "resources", "MCP-RESOURCES-2"}} {
		items, first, err := listAll(e, s, l.method, l.key, l.rule)
		if err != nil {
			return err
		}
		if first != nil && !inputRequired(first) {
			e.Pass("MCP-MRTR-3", first.Seq)
		}
		for i, it := range items {
			m, _ := it.(map[string]any)
			if i >= maxItems || m == nil {
				break
			}
			switch l.key {
			case "tools":
				if name, _ := m["name"].(string); name != "" && !skipTool(e, name) {
					probes = append(probes, probe{"tools/call", map[string]any{"name": name, "arguments": toolArgs(e, m, i)}})
				}
			case "prompts":
				name, _ := m["name"].(string)
				args := map[string]any{}
				as, _ := m["arguments"].([]any)
				for _, a := range as {
					if am, _ := a.(map[string]any); am["required"] == true {
						if an, _ := am["name"].(string); an != "" {
							args[an] = argFallback(am)
						}
					}
				}
				if name != "" {
					probes = append(probes, probe{"prompts/get", map[string]any{"name": name, "arguments": args}})
				}
			case "resources":
				if uri, _ := m["uri"].(string); uri != "" && i < 5 {
					probes = append(probes, probe{"resources/read", map[string]any{"uri": uri}})
				}
			}
		}
	}
	// The first probe of each method answered input_required: a server
	// may ask for input on a tool, a prompt and a resource alike, and each
	// is judged.
	found := map[string]bool{}
	for i := range probes {
		p := &probes[i]
		if found[p.method] {
			continue
		}
		in, err := s.callWith(e, p.method, p.params, sendOpts{once: true})
		if unjudged(err) {
			continue // the next one is judged instead
		}
		if err != nil {
			return err
		}
		if !inputRequired(in) {
			continue
		}
		found[p.method] = true
		if err := mrtrRounds(e, s, p, in); err != nil {
			return err
		}
	}
	if len(found) == 0 {
		skipAll(e, "no tool, prompt or resource of the server answered with an InputRequiredResult", "MCP-MRTR-1", "MCP-MRTR-2", "MCP-MRTR-4", "MCP-MRTR-5", "MCP-MRTR-6", "MCP-MRTR-7")
	}
	return nil
}

// mrtrRounds completes a request first answered input_required, then
// retries it once without the input asked for and once declaring no
// capabilities.
func mrtrRounds(e *scenario.Env, s *session, found *probe, first *peer.Inbound) error {
	done, err := s.retryInput(e, found.method, found.params, sendOpts{}, first)
	if err != nil {
		return err
	}
	if err := mrtrResponses(e, s, found, first, done); err != nil {
		return err
	}
	// The input missing: the server should ask again, not fail.
	if _, asked := first.Field("/result/inputRequests"); !asked {
		e.Skip("MCP-MRTR-5", "the InputRequiredResult of "+found.method+" asked for no input")
	} else {
		in, err := s.callWith(e, found.method, retryParams(found.params, first, false), sendOpts{once: true})
		if err != nil {
			return err
		}
		if isResult(in) {
			e.Pass("MCP-MRTR-5", in.Seq)
		} else {
			e.Fail("MCP-MRTR-5", in.Seq, found.method+" retried without the inputResponses the server asked for was answered with an error",
				"a new InputRequiredResult asking for the missing input (or a result)", string(in.Raw))
		}
	}
	// No capability declared: nothing may be asked of it.
	in, err := s.callWith(e, found.method, found.params, sendOpts{caps: map[string]any{}, once: true})
	if err != nil {
		return err
	}
	if !inputRequired(in) {
		e.Pass("MCP-MRTR-2", in.Seq)
	}
	return nil
}

// unaskedKey is the key of the InputResponses entry no server asked for
// (MCP-MRTR-6): its value a valid ElicitResult, so that only the key is
// unexpected.
const unaskedKey = "wirecheck-unasked"

// mrtrResponses judges the InputResponses a server is given on a retry of
// found, first answered first and completed as done: one with an entry it
// never asked for (MCP-MRTR-6), one that is no object at all (MCP-MRTR-7).
func mrtrResponses(e *scenario.Env, s *session, found *probe, first, done *peer.Inbound) error {
	if _, asked := first.Field("/result/inputRequests"); !asked {
		e.Skip("MCP-MRTR-6", "the InputRequiredResult of "+found.method+" asked for no input")
	} else if !isResult(done) {
		e.Skip("MCP-MRTR-6", found.method+" retried with the input asked for was answered with an error: no answer to compare an extra entry with")
	} else {
		p := retryParams(found.params, first, true)
		rs, _ := p["inputResponses"].(map[string]any)
		rs[unaskedKey] = map[string]any{"action": "decline"}
		in, err := s.callWith(e, found.method, p, sendOpts{once: true})
		if err != nil {
			return err
		}
		if isResult(in) {
			e.Pass("MCP-MRTR-6", in.Seq)
		} else {
			e.Fail("MCP-MRTR-6", in.Seq, found.method+" retried with the input asked for and an entry "+show(unaskedKey)+" it never asked was answered with an error, while the retry without the entry was served",
				"the entry ignored: a result (or a new InputRequiredResult)", string(in.Raw))
		}
	}
	p := retryParams(found.params, first, false)
	p["inputResponses"] = "wirecheck: not an InputResponses object"
	in, err := s.callWith(e, found.method, p, sendOpts{once: true})
	if err != nil {
		return err
	}
	// A new InputRequiredResult is no complete answer either: the server
	// may take what it cannot parse for input missing (MCP-MRTR-5).
	if _, isErr := in.Field("/error"); isErr || inputRequired(in) {
		e.Pass("MCP-MRTR-7", in.Seq)
	} else {
		e.Fail("MCP-MRTR-7", in.Seq, found.method+" retried with inputResponses a string, no InputResponses object, was answered with a complete result",
			"a JSON-RPC error (invalid params), or a new InputRequiredResult", string(in.Raw))
	}
	return nil
}
