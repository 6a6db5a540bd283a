package toolhost

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The scenarios of this file call one method each and judge only what its
// answer shows: an ok false answer holds no value, so the rules about the
// value are skipped with the error, not failed (a host may need a config
// wirecheck was not given: --param config=JSON).

func methodScenarios() []*scenario.Scenario {
	out := []*scenario.Scenario{
		{Name: "init", Run: initHost, File: file,
			Title: "init is implemented and answers the tool state in result.state",
			Rules: []string{"TOOLHOST-METHODS-1", "TOOLHOST-STATE-1"}},
		{Name: "get-tool-schemas", Run: getToolSchemas, File: file,
			Title: "get_tool_schemas is implemented and answers the list of tool schemas for the state init returned",
			Rules: []string{"TOOLHOST-METHODS-1", "TOOLHOST-SCHEMAS-1"}},
		{Name: "state-round-trip", Run: stateRoundTrip, File: file,
			Title: "the state a host returns is carried into the next call, accepted, and answered with an updated state",
			Rules: []string{"TOOLHOST-STATE-2", "TOOLHOST-STATE-3"}},
	}
	for _, o := range optionals {
		out = append(out, &scenario.Scenario{Name: o.scenario, Run: o.run, File: file,
			Title: o.method + ", when implemented, answers " + o.answers,
			Rules: []string{o.rule}})
	}
	return out
}

// failed describes an ok false answer for a skip message.
func failed(in *peer.Inbound) string {
	return fmt.Sprintf("answered ok false (%s)", show(field(in, "/error")))
}

// needConfig is the hint for a host whose init refused the config sent.
const needConfig = "; if the host needs a tool config, pass --param config=JSON"

// initState calls init with the configured config and returns its answer
// and the state it returned (nil when none).
func initState(e *scenario.Env) (*peer.Inbound, map[string]any, error) {
	in, _, err := e.Call(request("init", map[string]any{"config": config(e)}))
	if err != nil {
		return nil, nil, err
	}
	st, _ := field(in, "/result/state").(map[string]any)
	return in, st, nil
}

func initHost(e *scenario.Env) error {
	in, st, err := initState(e)
	if err != nil {
		return err
	}
	if e.Unimplemented(in) {
		e.Fail("TOOLHOST-METHODS-1", in.Seq, "init answered that it is not implemented", "init is a required method", string(in.Raw))
		e.Skip("TOOLHOST-STATE-1", "init is not implemented")
		return nil
	}
	e.Pass("TOOLHOST-METHODS-1", in.Seq)
	switch {
	case field(in, "/ok") != true:
		e.Skip("TOOLHOST-STATE-1", "init "+failed(in)+", so there is no result to carry a state"+needConfig)
	case st == nil:
		got, has := in.Field("/result/state")
		e.Fail("TOOLHOST-STATE-1", in.Seq, "init's answer carries no tool state", "result.state, an object", map[bool]string{true: "result.state " + show(got), false: "result.state absent"}[has])
	default:
		e.Pass("TOOLHOST-STATE-1", in.Seq)
	}
	return nil
}

func getToolSchemas(e *scenario.Env) error {
	_, st, err := initState(e)
	if err != nil {
		return err
	}
	if st == nil {
		st = map[string]any{}
	}
	in, _, err := e.Call(request("get_tool_schemas", map[string]any{"state": st}))
	if err != nil {
		return err
	}
	switch {
	case e.Unimplemented(in):
		e.Fail("TOOLHOST-METHODS-1", in.Seq, "get_tool_schemas answered that it is not implemented", "get_tool_schemas is a required method", string(in.Raw))
		e.Skip("TOOLHOST-SCHEMAS-1", "get_tool_schemas is not implemented")
	case field(in, "/ok") != true:
		e.Pass("TOOLHOST-METHODS-1", in.Seq)
		e.Skip("TOOLHOST-SCHEMAS-1", "get_tool_schemas "+failed(in)+": no list to judge"+needConfig)
	default:
		// The answer's kind (get_tool_schemas result) has judged
		// TOOLHOST-SCHEMAS-1 by its schema.
		e.Pass("TOOLHOST-METHODS-1", in.Seq)
	}
	return nil
}

func stateRoundTrip(e *scenario.Env) error {
	_, st, err := initState(e)
	if err != nil {
		return err
	}
	// Only a state the host returned is the host's to accept.
	returned := st != nil
	if !returned {
		st = map[string]any{}
	}
	for i, what := range []string{"the state init returned", "the state get_tool_schemas returned"} {
		in, _, err := e.Call(request("get_tool_schemas", map[string]any{"state": st}))
		if err != nil {
			return err
		}
		if e.Unimplemented(in) {
			e.Skip("TOOLHOST-STATE-2", "get_tool_schemas is not implemented")
			e.Skip("TOOLHOST-STATE-3", "get_tool_schemas is not implemented")
			return nil
		}
		switch {
		case field(in, "/ok") == true:
			if returned {
				e.Pass("TOOLHOST-STATE-3", in.Seq)
			}
		case returned:
			e.Fail("TOOLHOST-STATE-3", in.Seq, "get_tool_schemas refused "+what, "ok true: the host accepts the state it returned", string(in.Raw))
		}
		if !returned {
			e.Skip("TOOLHOST-STATE-3", fmt.Sprintf("the host returned no state to carry back (call %d)", i+1))
		}
		if field(in, "/ok") != true {
			e.Skip("TOOLHOST-STATE-2", "get_tool_schemas "+failed(in)+": no result to carry a state")
			return nil
		}
		next, isObj := field(in, "/result/state").(map[string]any)
		if !isObj {
			got, has := in.Field("/result/state")
			e.Fail("TOOLHOST-STATE-2", in.Seq, "get_tool_schemas was sent params.state but its answer carries no updated result.state",
				"result.state, an object", map[bool]string{true: "result.state " + show(got), false: "result.state absent"}[has])
			return nil
		}
		e.Pass("TOOLHOST-STATE-2", in.Seq)
		st, returned = next, true
	}
	return nil
}

// optional is one optional method's scenario: init, then calls of the
// method; each ok true answer is judged by its kind's schema (the rule).
type optional struct {
	scenario, method, rule, answers string
	// params builds the params of each call from init's state.
	params []func(e *scenario.Env, state any) map[string]any
}

var optionals = []optional{
	{scenario: "optional-config-schema", method: "get_config_schema", rule: "TOOLHOST-OPT-CONFIG-SCHEMA-1", answers: "an object",
		params: []func(*scenario.Env, any) map[string]any{func(*scenario.Env, any) map[string]any { return map[string]any{} }}},
	{scenario: "optional-ui-elements", method: "get_ui_elements", rule: "TOOLHOST-OPT-UI-ELEMENTS-1", answers: "a list of objects",
		params: []func(*scenario.Env, any) map[string]any{func(*scenario.Env, any) map[string]any { return map[string]any{} }}},
	{scenario: "optional-get-tags", method: "get_tags", rule: "TOOLHOST-OPT-TAGS-1", answers: "a list of strings",
		params: []func(*scenario.Env, any) map[string]any{func(e *scenario.Env, _ any) map[string]any {
			return map[string]any{"config": config(e), "models": []any{}}
		}}},
	{scenario: "optional-required-tags", method: "required_tags", rule: "TOOLHOST-OPT-REQUIRED-TAGS-1", answers: "a list of strings",
		params: []func(*scenario.Env, any) map[string]any{func(*scenario.Env, any) map[string]any { return map[string]any{} }}},
	{scenario: "optional-format-result", method: "format_tool_result", rule: "TOOLHOST-OPT-FORMAT-RESULT-1", answers: "model-facing text for a tool's result, failed or not",
		params: []func(*scenario.Env, any) map[string]any{
			func(_ *scenario.Env, st any) map[string]any {
				return map[string]any{"result": map[string]any{"success": true, "result": "wirecheck"}, "state": st}
			},
			func(_ *scenario.Env, st any) map[string]any {
				return map[string]any{"result": map[string]any{"success": false, "error": "wirecheck: simulated failure"}, "state": st}
			},
		}},
	{scenario: "optional-display", method: "to_display_format", rule: "TOOLHOST-OPT-DISPLAY-1", answers: "an object",
		params: []func(*scenario.Env, any) map[string]any{func(_ *scenario.Env, st any) map[string]any {
			return map[string]any{"text": "wirecheck", "result": map[string]any{"success": true, "result": "wirecheck"}, "state": st}
		}}},
}

func (o optional) run(e *scenario.Env) error {
	_, st, err := initState(e)
	if err != nil {
		return err
	}
	var state any = st
	if st == nil {
		state = map[string]any{}
	}
	for _, params := range o.params {
		in, _, err := e.Call(request(o.method, params(e, state)))
		if err != nil {
			return err
		}
		switch {
		case e.Unimplemented(in):
			e.Skip(o.rule, "the host does not implement "+o.method)
			return nil
		case field(in, "/ok") != true:
			e.Skip(o.rule, o.method+" "+failed(in)+": no value to judge (a host may decline a method in words wirecheck does not recognise)")
		}
		// An ok true answer: its kind's schema has judged the rule.
	}
	return nil
}
