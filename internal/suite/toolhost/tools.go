// Package toolhost holds the tool-host scenarios a fixture file cannot say:
// those that depend on the tools a host lists, those that judge an answer
// by the protocol's "not implemented" reading, and those that accept more
// than one reading where the document is silent (silence.go).
package toolhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
)

const file = "internal/suite/toolhost/tools.go"

// Scenarios returns the Go scenarios of tool-host.
func Scenarios() []*scenario.Scenario {
	return append(append(methodScenarios(), []*scenario.Scenario{
		{Name: "unreadable", Run: unreadable, File: file,
			Title: "lines the host cannot read as a request are refused with a null id (or none); a request without a usable id is answered, served or refused; the host goes on",
			Rules: []string{"TOOLHOST-GEN-UNREADABLE", "TOOLHOST-GEN-NO-ID-2", "TOOLHOST-GEN-SURVIVE"}},
		{Name: "bad-params", Run: badParams, File: file,
			Title: "requests whose params are missing or mistyped get one answer with their id, refused or served, and the host goes on",
			Rules: []string{"TOOLHOST-GEN-BAD-PARAMS", "TOOLHOST-GEN-BAD-PARAMS-2", "TOOLHOST-GEN-SURVIVE"}}}...), []*scenario.Scenario{
		{Name: "tools-every", Run: everyTool, File: file,
			Title: "every listed tool is previewed, executed with arguments generated from its schema and its result formatted, " +
				"the state carried from each call to the next",
			Rules: []string{"TOOLHOST-SCHEMAS-2", "TOOLHOST-METHODS-1", "TOOLHOST-EXEC-2", "TOOLHOST-FAIL-1", "TOOLHOST-STATE-2", "TOOLHOST-OPT-PREVIEW-1", "TOOLHOST-OPT-FORMAT-RESULT-1", "TOOLHOST-GEN-SURVIVE"}},
		{Name: "unknown-method", Run: unknownMethod, File: file,
			Title: "a method the protocol does not define, sent with params another method would serve, answers ok false (saying it is not implemented: MAY)",
			Rules: []string{"TOOLHOST-GEN-UNKNOWN-METHOD", "TOOLHOST-GEN-UNKNOWN-METHOD-2"}},
		{Name: "unknown-tool", Run: unknownToolCall, File: file,
			Title: "execute_tool of a tool the host does not list fails as a tool failure, and the host goes on",
			Rules: []string{"TOOLHOST-GEN-UNKNOWN-TOOL", "TOOLHOST-GEN-SURVIVE"}},
		{Name: "long-line", Run: longLine, File: file,
			Title: "a request line of 100 KiB is answered like any other",
			Rules: []string{"TOOLHOST-GEN-SURVIVE"}}}...)
}

// request builds a v1 request with a fresh id.
func request(method string, params map[string]any) map[string]any {
	return map[string]any{"v": 1, "id": scenario.NextID(strings.ReplaceAll(method, "_", "-")), "method": method, "params": params}
}

// config is init's config: --param config=JSON, or an empty object.
func config(e *scenario.Env) any {
	if s, ok := e.Params["config"]; ok {
		if v, err := schema.Decode([]byte(s)); err == nil {
			return v
		}
	}
	return map[string]any{}
}

// session carries the tool state from call to call, as the Python core
// does: every request sends the latest state the host answered.
type session struct {
	e     *scenario.Env
	state any
}

// call sends a request carrying the current state and adopts the state the
// answer carries, judging TOOLHOST-STATE-2 on every successful answer.
func (s *session) call(method string, params map[string]any) (*peer.Inbound, *peer.Call, error) {
	params["state"] = s.state
	c, err := s.e.Send(request(method, params))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	wait := time.Duration(0) // --timeout
	if method == "execute_tool" {
		wait = execWait(s.e)
	}
	in, err := s.e.Await(c, wait)
	if err != nil {
		return nil, c, err
	}
	if ok, _ := in.Field("/ok"); ok != true {
		return in, c, nil
	}
	st, has := in.Field("/result/state")
	if m, isObj := st.(map[string]any); isObj {
		s.state = m
		s.e.Pass("TOOLHOST-STATE-2", in.Seq)
	} else {
		got := "absent"
		if has {
			got = show(st)
		}
		s.e.Fail("TOOLHOST-STATE-2", in.Seq, method+" was sent params.state but its answer carries no updated result.state",
			"result.state, an object", "result.state "+got)
	}
	return in, c, nil
}

// DefaultExecTimeout bounds one execute_tool call. The document bounds
// none, and a real tool (a fetch, a build) may run far longer than an
// answer to init: no plausible tool misses a minute.
const DefaultExecTimeout = time.Minute

// execWait is the bound of an execute_tool call: --param
// exec-timeout=DURATION, or DefaultExecTimeout, and never less than
// --timeout.
func execWait(e *scenario.Env) time.Duration {
	d := DefaultExecTimeout
	if v, ok := e.Params["exec-timeout"]; ok {
		if p, err := time.ParseDuration(v); err == nil && p > 0 {
			d = p
		} else {
			e.Notef("--param exec-timeout=%s is not a positive duration (such as 90s); execute_tool waits %s", v, d)
		}
	}
	return max(d, e.Timeout)
}

func everyTool(e *scenario.Env) error {
	skipAll := func(why string, rules ...string) {
		for _, r := range rules {
			e.Skip(r, why)
		}
	}
	s := &session{e: e, state: map[string]any{}}
	in, _, err := e.Call(request("init", map[string]any{"config": config(e)}))
	if err != nil {
		return err
	}
	if st, isObj := field(in, "/result/state").(map[string]any); isObj {
		s.state = st
	}
	list, _, err := s.call("get_tool_schemas", map[string]any{})
	if err != nil {
		return err
	}
	all := []string{"TOOLHOST-SCHEMAS-2", "TOOLHOST-METHODS-1", "TOOLHOST-EXEC-2", "TOOLHOST-FAIL-1", "TOOLHOST-STATE-2", "TOOLHOST-OPT-PREVIEW-1", "TOOLHOST-OPT-FORMAT-RESULT-1"}
	if ok, _ := list.Field("/ok"); ok != true {
		skipAll("get_tool_schemas answered ok false, so no tool could be called: "+show(field(list, "/error")), all...)
		return nil
	}
	tools, isList := field(list, "/result/value").([]any)
	if !isList || len(tools) == 0 {
		why := "get_tool_schemas listed no tools, so none could be called"
		if !isList {
			why = "get_tool_schemas did not answer a list, so no tool could be called"
		}
		skipAll(why, "TOOLHOST-SCHEMAS-2", "TOOLHOST-METHODS-1", "TOOLHOST-EXEC-2", "TOOLHOST-FAIL-1", "TOOLHOST-OPT-PREVIEW-1", "TOOLHOST-OPT-FORMAT-RESULT-1")
		return nil
	}
	previewing, formatting := true, true
	formatted, failed, streamed := false, false, false
	for i, t := range tools {
		name, args := toolCall(e, list, t, e.Seed+uint64(i))
		if name == "" {
			continue
		}
		if previewing {
			resp, _, err := s.call("format_tool_call_preview", map[string]any{"tool_name": name, "arguments": args})
			if err != nil {
				return err
			}
			// An ok true answer is judged by its kind's schema; an ok false
			// one holds no value to judge.
			switch {
			case e.Unimplemented(resp):
				previewing = false
				e.Skip("TOOLHOST-OPT-PREVIEW-1", "the host does not implement format_tool_call_preview")
			case field(resp, "/ok") != true:
				e.Skip("TOOLHOST-OPT-PREVIEW-1", fmt.Sprintf("format_tool_call_preview of tool %q answered ok false (%s): no value to judge", name, show(field(resp, "/error"))))
			}
		}
		resp, c, err := s.call("execute_tool", map[string]any{"tool_name": name, "arguments": args})
		if err != nil {
			e.Fail("TOOLHOST-EXEC-2", -1, fmt.Sprintf("executing tool %q got no answer: %v", name, err),
				fmt.Sprintf("an answer within %s (--param exec-timeout=DURATION sets the bound)", execWait(e)), "nothing")
			// Not a timeout: the host's output ended while the tool ran.
			if !e.Hung {
				e.Fail("TOOLHOST-FAIL-1", -1, fmt.Sprintf("executing tool %q ended the host: a tool's failure must be answered, not fatal", name),
					"success false or ok false, and the host goes on", err.Error())
			}
			return err
		}
		streamed = streamed || len(c.Events) > 0
		if e.Unimplemented(resp) {
			e.Fail("TOOLHOST-METHODS-1", resp.Seq, "execute_tool answered that it is not implemented", "execute_tool is a required method", string(resp.Raw))
			e.Fail("TOOLHOST-EXEC-2", resp.Seq, fmt.Sprintf("tool %q could not be executed: execute_tool is not implemented", name), "an answer from the tool", string(resp.Raw))
			break
		}
		e.Pass("TOOLHOST-METHODS-1", resp.Seq)
		if says := unknownTool(resp); says != "" {
			e.Fail("TOOLHOST-EXEC-2", resp.Seq, fmt.Sprintf("tool %q, which get_tool_schemas lists, was answered as an unknown tool", name),
				"the tool runs (any answer but \"no such tool\")", says)
		} else {
			e.Pass("TOOLHOST-EXEC-2", resp.Seq)
		}
		okv := field(resp, "/ok")
		success := field(resp, "/result/value/success")
		if okv == false || success == false {
			failed = true
			if err := toolFailed(e, resp, name); err != nil {
				return err
			}
		}
		if okv != true || !formatting {
			continue
		}
		out, _, err := s.call("format_tool_result", map[string]any{"result": field(resp, "/result/value")})
		if err != nil {
			return err
		}
		switch {
		case e.Unimplemented(out):
			formatting = false
			e.Skip("TOOLHOST-OPT-FORMAT-RESULT-1", "the host does not implement format_tool_result")
		case field(out, "/ok") != true:
			e.Skip("TOOLHOST-OPT-FORMAT-RESULT-1", fmt.Sprintf("format_tool_result of tool %q's result answered ok false (%s): no value to judge", name, show(field(out, "/error"))))
		default:
			formatted = true
		}
	}
	if !failed {
		e.Skip("TOOLHOST-FAIL-1", "no listed tool failed with the generated arguments, so the failure path was not observed")
	}
	if formatting && !formatted {
		e.Skip("TOOLHOST-OPT-FORMAT-RESULT-1", "no tool answered ok true, so there was no result to format")
	}
	if streamed {
		// A part sent after its response follows right behind it; give it
		// the time to arrive while this scenario is still the one judged.
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// toolCall reads one entry of get_tool_schemas (TOOLHOST-SCHEMAS-2) and
// returns the tool's name and arguments generated from its schema; an
// unusable schema gets empty arguments.
func toolCall(e *scenario.Env, list *peer.Inbound, t any, seed uint64) (string, map[string]any) {
	name, s, prob := parseTool(t)
	if prob != "" {
		what := "a tool schema"
		if name != "" {
			what = fmt.Sprintf("tool %q", name)
		}
		e.Fail("TOOLHOST-SCHEMAS-2", list.Seq, what+": "+prob,
			"{name, description, parameters: a JSON Schema for an object}", show(t))
	} else {
		e.Pass("TOOLHOST-SCHEMAS-2", list.Seq)
	}
	if s == nil {
		return name, map[string]any{}
	}
	v, err := gen.TryExample(s, seed)
	if err != nil {
		e.Fail("TOOLHOST-SCHEMAS-2", list.Seq, fmt.Sprintf("tool %q: no arguments satisfy its schema", name), "a satisfiable schema", err.Error())
		return name, map[string]any{}
	}
	if m, isMap := v.(map[string]any); isMap {
		return name, m
	}
	return name, map[string]any{}
}

// parseTool reads a tool schema in the shapes wirecheck accepts: OpenAI
// function style {name, description, parameters}, the chat-completions
// wrapper {type: "function", function: {…}}, and {name, input_schema} or
// {name, inputSchema}. A schema without an argument schema takes any
// object. It returns the name, the compiled argument schema (nil when
// unusable) and what is wrong ("" when nothing).
func parseTool(t any) (string, *jsonschema.Schema, string) {
	obj, isObj := t.(map[string]any)
	if !isObj {
		return "", nil, "the entry is not an object"
	}
	if fn, isFn := obj["function"].(map[string]any); isFn && obj["type"] == "function" {
		obj = fn
	}
	name, _ := obj["name"].(string)
	if name == "" {
		return "", nil, "it names no tool (no string name)"
	}
	var raw any = map[string]any{"type": "object"}
	key := "parameters"
	for _, k := range []string{"parameters", "input_schema", "inputSchema"} {
		if v, has := obj[k]; has {
			raw, key = v, k
			break
		}
	}
	ps, isObj := raw.(map[string]any)
	if !isObj {
		return name, nil, key + " is not a JSON Schema object"
	}
	b, _ := json.Marshal(ps)
	s, err := gen.Compile(b)
	if err != nil {
		return name, nil, key + " is not a valid JSON Schema: " + err.Error()
	}
	if ty, has := ps["type"]; has && ty != "object" {
		return name, nil, fmt.Sprintf("%s does not describe an object (type %s): arguments are an object", key, show(ty))
	}
	return name, s, ""
}

// toolFailed judges a failed execution (TOOLHOST-FAIL-1): the failure is
// reported in one of the two documented shapes; then the host must still
// answer (TOOLHOST-GEN-SURVIVE).
func toolFailed(e *scenario.Env, resp *peer.Inbound, name string) error {
	_, hasText := field(resp, "/result/value/error").(string)
	_, hasObj := field(resp, "/error").(map[string]any)
	switch {
	case field(resp, "/ok") == true && !hasText:
		e.Fail("TOOLHOST-FAIL-1", resp.Seq, fmt.Sprintf("tool %q failed with success false but no error text", name),
			`{"success": false, "error": "..."}`, string(resp.Raw))
	case field(resp, "/ok") != true && !hasObj:
		e.Fail("TOOLHOST-FAIL-1", resp.Seq, fmt.Sprintf("tool %q failed with ok false but no error object", name),
			`{"ok": false, "error": {"type": …, "detail": …}}`, string(resp.Raw))
	default:
		e.Pass("TOOLHOST-FAIL-1", resp.Seq)
	}
	// The document gives a failure's answer, not what follows it: going on
	// is the generic survival rule's.
	if err := alive(e); err != nil {
		e.Fail("TOOLHOST-GEN-SURVIVE", -1, fmt.Sprintf("after tool %q failed, the host stopped answering", name),
			"the host goes on serving", err.Error())
		return err
	}
	return nil
}

// unknownMethod sends a method no version of the protocol defines, with
// params init or get_tool_schemas would serve, so a host that runs unknown
// methods as one it knows is caught serving it. The name holds none of the
// words that say "not implemented", so an error that merely repeats it is
// not read as saying so.
func unknownMethod(e *scenario.Env) error {
	if err := up(e); err != nil {
		return err
	}
	c, err := e.Send(request("wirecheck_frobnicate", map[string]any{"config": config(e), "state": map[string]any{}}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in, err := answerOf(e, c)
	if errors.Is(err, errUnanswered) {
		e.Fail("TOOLHOST-GEN-UNKNOWN-METHOD", c.Seq, noAnswer(e, "a method the protocol does not define"), "one answer, ok false", "nothing")
		e.Skip("TOOLHOST-GEN-UNKNOWN-METHOD-2", "the unknown method was not answered")
		return nil
	}
	if err != nil {
		e.Fail("TOOLHOST-GEN-UNKNOWN-METHOD", c.Seq, "the host ended on a method the protocol does not define", "one answer, ok false", err.Error())
		e.Skip("TOOLHOST-GEN-UNKNOWN-METHOD-2", "the host ended before it answered the unknown method")
		return err
	}
	if field(in, "/ok") != false {
		e.Fail("TOOLHOST-GEN-UNKNOWN-METHOD", in.Seq, "a method the protocol does not define was served (not answered ok false)", "ok false", string(in.Raw))
		e.Skip("TOOLHOST-GEN-UNKNOWN-METHOD-2", "the unknown method was served, not declined")
		return nil
	}
	e.Pass("TOOLHOST-GEN-UNKNOWN-METHOD", in.Seq)
	if e.Unimplemented(in) {
		e.Pass("TOOLHOST-GEN-UNKNOWN-METHOD-2", in.Seq)
	} else {
		e.Fail("TOOLHOST-GEN-UNKNOWN-METHOD-2", in.Seq, "the error does not say the method is not implemented, so a client cannot tell a missing optional method from a failing one",
			`error.type or error.detail saying so, e.g. {"type": "MethodNotFound", "detail": "Unknown method 'wirecheck_frobnicate'"} (a preference)`,
			show(field(in, "/error")))
	}
	return nil
}

// unknownToolType and unknownToolText recognise an answer saying a tool is
// unknown: an error type such as ToolNotFound, or words such as "Unknown
// tool 'x'" or "Tool 'x' not found" (a tool's own "file not found" does
// not say the tool is unknown).
var (
	unknownToolType = regexp.MustCompile(`(?i)^(unknown.?tool|tool.?not.?found|no.?such.?tool)(error|exception)?$`)
	unknownToolText = regexp.MustCompile(`(?i)(unknown|no such|unregistered) tool|tool\W+\S*\W*(not found|is not registered|does not exist)`)
)

// unknownTool returns the error of an answer saying the tool called is not
// known, or "".
func unknownTool(in *peer.Inbound) string {
	if t, _ := field(in, "/error/type").(string); unknownToolType.MatchString(t) {
		return show(field(in, "/error"))
	}
	for _, p := range []string{"/error/detail", "/result/value/error"} {
		if d, _ := field(in, p).(string); unknownToolText.MatchString(d) {
			return show(d)
		}
	}
	return ""
}

func unknownToolCall(e *scenario.Env) error {
	in, _, err := e.Call(request("init", map[string]any{"config": config(e)}))
	if err != nil {
		return err
	}
	state := field(in, "/result/state")
	if _, isObj := state.(map[string]any); !isObj {
		state = map[string]any{}
	}
	resp, _, err := e.Call(request("execute_tool", map[string]any{"tool_name": "wirecheck_no_such_tool", "arguments": map[string]any{}, "state": state}))
	if err != nil {
		return err
	}
	if field(resp, "/ok") == false || field(resp, "/result/value/success") == false {
		e.Pass("TOOLHOST-GEN-UNKNOWN-TOOL", resp.Seq)
	} else {
		e.Fail("TOOLHOST-GEN-UNKNOWN-TOOL", resp.Seq, "execute_tool of a tool the host does not list was answered as a success",
			"ok false, or success false", string(resp.Raw))
	}
	if err := alive(e); err != nil {
		e.Fail("TOOLHOST-GEN-SURVIVE", -1, "the host stopped answering after a call of an unknown tool", "an answer to the probe", err.Error())
		return err
	}
	e.Pass("TOOLHOST-GEN-SURVIVE", -1)
	return nil
}

// longLine sends one request far longer than a typical read buffer (the
// document sets no limit); any answer will do, as long as the host goes on.
func longLine(e *scenario.Env) error {
	if err := up(e); err != nil {
		return err
	}
	pad := strings.Repeat("x", 100<<10)
	c, err := e.Send(request("init", map[string]any{"config": map[string]any{"wirecheck_padding": pad}}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	// The document sets no line limit, nor says what a host does past its
	// own: only survival is judged, not TOOLHOST-RESPONSE-1.
	_, err = answerOf(e, c)
	switch {
	case errors.Is(err, errUnanswered):
		e.Fail("TOOLHOST-GEN-SURVIVE", c.Seq, noAnswer(e, "a 100 KiB request line"), "an answer, and the host goes on", "nothing")
		e.Hung = true
		return nil
	case err != nil:
		e.Fail("TOOLHOST-GEN-SURVIVE", c.Seq, "the host ended on a 100 KiB request line", "an answer, and the host goes on", err.Error())
		return err
	}
	if err := alive(e); err != nil {
		e.Fail("TOOLHOST-GEN-SURVIVE", -1, "the host stopped answering after a 100 KiB line", "an answer to the probe", err.Error())
		return err
	}
	e.Pass("TOOLHOST-GEN-SURVIVE", -1)
	return nil
}

func field(in *peer.Inbound, ptr string) any {
	v, _ := in.Field(ptr)
	return v
}

func show(v any) string { return scenario.Show(v, 300) }
