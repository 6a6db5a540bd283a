// Package sondeserve holds the sonde-serve scenarios a fixture file cannot
// say: those that depend on what the server lists.
package sondeserve

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// Scenarios returns the Go scenarios of sonde-serve.
func Scenarios() []*scenario.Scenario {
	return append([]*scenario.Scenario{{
		Name:  "tools-call-every",
		Title: "every listed tool is called with input generated from its inputSchema",
		Rules: []string{"SONDE-LIST-2", "SONDE-CALL-1", "SONDE-CALL-2", "SONDE-RUNTIME-1"},
		Run:   callEveryTool,
		File:  "internal/suite/sondeserve/tools.go",
	}, {
		Name:  "long-line",
		Title: "a request line of 100 KiB is answered like any other",
		Rules: []string{"SONDE-GEN-SURVIVE", "SONDE-UNKNOWN-TOOL-1"},
		Run:   longLine,
		File:  "internal/suite/sondeserve/tools.go",
	}}, silenceScenarios()...)
}

func callEveryTool(e *scenario.Env) error {
	in, _, err := e.Call(map[string]any{"id": scenario.NextID("list"), "method": "tools/list"})
	if err != nil {
		return err
	}
	v, _ := in.Field("/result/tools")
	tools, ok := v.([]any)
	if !ok || len(tools) == 0 {
		why := "the server listed no tools, so none could be called"
		for _, r := range []string{"SONDE-LIST-2", "SONDE-CALL-1", "SONDE-CALL-2", "SONDE-RUNTIME-1"} {
			e.Skip(r, why)
		}
		return nil
	}
	sawError := false
	var inside []string // tools answered ok true whose output says they failed
	for i, t := range tools {
		tool, _ := t.(map[string]any)
		name, _ := tool["name"].(string)
		if name == "" {
			continue
		}
		input := inputFor(e, in, name, tool["inputSchema"], e.Seed+uint64(i))
		resp, c, err := e.Call(map[string]any{
			"id": scenario.NextID("call"), "method": "tools/call",
			"params": map[string]any{"name": name, "input": input},
		})
		if err != nil {
			e.Fail("SONDE-CALL-2", -1, fmt.Sprintf("calling tool %q did not get an answer: %v", name, err),
				"ok true, or ok false with error.message", "no response")
			if e.OutputOver() {
				e.Fail("SONDE-RUNTIME-1", -1, fmt.Sprintf("calling tool %q ended the server: a runtime error must be answered, not fatal", name),
					"ok false with the request id, and the server goes on", e.Gone())
			}
			return err
		}
		switch okv, _ := resp.Field("/ok"); okv {
		case true:
			e.Pass("SONDE-CALL-2", resp.Seq)
			if got, _ := resp.Field("/result/tool"); got != name {
				e.Fail("SONDE-CALL-1", resp.Seq, "result.tool does not name the tool called",
					fmt.Sprintf("result.tool = %q", name), fmt.Sprintf("result.tool = %s", show(got)))
			} else {
				e.Pass("SONDE-CALL-1", resp.Seq)
			}
			if how := failedInside(field(resp, "/result/output")); how != "" {
				inside = append(inside, fmt.Sprintf("%q (%s, transcript line %d)", name, how, resp.Seq))
			}
		case false:
			sawError = true
			msg, isStr := field(resp, "/error/message").(string)
			if !isStr {
				e.Fail("SONDE-CALL-2", resp.Seq, fmt.Sprintf("tool %q answered ok false without error.message", name),
					"error.message (a string)", string(resp.Raw))
			} else {
				e.Pass("SONDE-CALL-2", resp.Seq)
			}
			runtimeError(e, c, resp, name, msg)
		default:
			e.Fail("SONDE-CALL-2", resp.Seq, fmt.Sprintf("tool %q answered neither ok true nor ok false", name),
				"ok true or ok false", string(resp.Raw))
		}
	}
	if !sawError {
		e.Skip("SONDE-RUNTIME-1", runtimeUnseen(inside))
	}
	return nil
}

// runtimeUnseen is why SONDE-RUNTIME-1 was not observed when no call was
// answered ok false: no tool failed, or the tools that did were answered
// ok true with the failure in their output. The document returns "runtime
// execution errors" as ok false but does not say whether a tool that ran
// and reported failing (a command's exit status) is one, so such an answer
// is a reading it leaves open, not a violation.
func runtimeUnseen(inside []string) string {
	if len(inside) == 0 {
		return "no call of a listed tool was answered ok false, and none reported a failure in its output, so the error path was not observed"
	}
	return fmt.Sprintf("no call of a listed tool was answered ok false; tool %s reported a failed run in its output under ok true, "+
		"which the document leaves open (it returns runtime execution errors as ok false, and does not say whether a tool's own failure is one), "+
		"so the error path was not observed", strings.Join(inside, ", "))
}

// failedInside says how a tool's output reports that its run failed (""
// when it does not): an exit status other than 0, success or ok false, an
// error, a failed status.
func failedInside(output any) string {
	o, _ := output.(map[string]any)
	if o == nil {
		return ""
	}
	for _, k := range []string{"exitCode", "exit_code", "exitStatus", "returncode", "status"} {
		switch v := o[k].(type) {
		case json.Number:
			if v.String() != "0" {
				return k + " " + v.String()
			}
		case float64:
			if v != 0 {
				return fmt.Sprintf("%s %v", k, v)
			}
		case string:
			if s := strings.ToLower(v); s == "failed" || s == "failure" || s == "error" {
				return fmt.Sprintf("%s %q", k, v)
			}
		}
	}
	for _, k := range []string{"success", "ok"} {
		if o[k] == false {
			return k + " false"
		}
	}
	for _, k := range []string{"isError", "is_error"} {
		if o[k] == true {
			return k + " true"
		}
	}
	switch v := o["error"].(type) {
	case string:
		if v != "" {
			return "error " + show(v)
		}
	case map[string]any:
		return "error " + show(v)
	}
	return ""
}

// inputFor checks the tool's inputSchema (SONDE-LIST-2) and generates an
// input from it; an unusable schema gets an empty object.
func inputFor(e *scenario.Env, list *peer.Inbound, name string, raw any, seed uint64) any {
	b, _ := json.Marshal(raw)
	obj, isObj := raw.(map[string]any)
	if !isObj {
		e.Fail("SONDE-LIST-2", list.Seq, fmt.Sprintf("tool %q: inputSchema is not a JSON object", name),
			"an object schema", string(b))
		return map[string]any{}
	}
	s, err := gen.Compile(b)
	if err != nil {
		e.Fail("SONDE-LIST-2", list.Seq, fmt.Sprintf("tool %q: inputSchema is not a valid JSON Schema", name),
			"a valid JSON Schema", err.Error())
		return map[string]any{}
	}
	if t, _ := obj["type"].(string); t != "object" {
		e.Fail("SONDE-LIST-2", list.Seq, fmt.Sprintf("tool %q: inputSchema does not describe an object", name),
			`"type": "object"`, fmt.Sprintf(`"type": %s`, show(obj["type"])))
		return map[string]any{}
	}
	e.Pass("SONDE-LIST-2", list.Seq)
	if v, isMap := gen.Example(s, seed).(map[string]any); isMap {
		return v
	}
	return map[string]any{}
}

// runtimeError judges an ok:false answer to a call of a listed tool: it must
// carry the request's id (SONDE-RUNTIME-1).
func runtimeError(e *scenario.Env, c *peer.Call, resp *peer.Inbound, name, msg string) {
	if c.Mismatch != "" {
		got, _ := resp.Field("/id")
		e.Fail("SONDE-RUNTIME-1", resp.Seq, fmt.Sprintf("tool %q failed (%q) and the error does not carry the request id", name, msg),
			"id "+c.Key, "id "+show(got))
		return
	}
	e.Pass("SONDE-RUNTIME-1", resp.Seq)
}

func field(in *peer.Inbound, ptr string) any {
	v, _ := in.Field(ptr)
	return v
}

func show(v any) string { return scenario.Show(v, 0) }

// longLine sends one request far longer than a typical read buffer (the
// document sets no limit), to a tool that does not exist so any server
// can answer it.
func longLine(e *scenario.Env) error {
	in, _, err := e.Call(map[string]any{
		"id": scenario.NextID("long"), "method": "tools/call",
		"params": map[string]any{"name": "wirecheck-no-such-tool", "input": map[string]any{"pad": strings.Repeat("x", 100<<10)}},
	})
	if err != nil {
		e.FailUnanswered("SONDE-UNKNOWN-TOOL-1", "no answer to a 100 KiB request line: "+err.Error(), "ok false with error.message")
		return err
	}
	if ok, _ := in.Field("/ok"); ok != false {
		e.Fail("SONDE-UNKNOWN-TOOL-1", in.Seq, "a call of an unknown tool (in a 100 KiB line) was not answered ok false", "ok false", string(in.Raw))
	} else {
		e.Pass("SONDE-UNKNOWN-TOOL-1", in.Seq)
	}
	if _, err := e.Probe(); err != nil {
		e.Fail("SONDE-GEN-SURVIVE", -1, "the server stopped answering after a 100 KiB line", "an answer to the probe", err.Error())
		return err
	}
	e.Pass("SONDE-GEN-SURVIVE", -1)
	return nil
}
