package sondeserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The scenarios of what the document is silent on (docs/silence.md,
// sonde-serve): each asks only what every reasonable reading agrees on, so
// a server that rejects and one that serves both pass.
func silenceScenarios() []*scenario.Scenario {
	const file = "internal/suite/sondeserve/silence.go"
	return []*scenario.Scenario{
		{Name: "no-id", Run: noID, File: file,
			Title: "a request without an id, or with an id neither string nor number, gets one answer: id null, absent, or as given",
			Rules: []string{"SONDE-GEN-NO-ID"}},
		{Name: "non-object", Run: nonObject, File: file,
			Title: "JSON values that are not objects answer ok false, id null or absent, and the server goes on",
			Rules: []string{"SONDE-GEN-NON-OBJECT", "SONDE-GEN-SURVIVE"}},
		{Name: "unknown-method", Run: unknownMethod, File: file,
			Title: "a method the protocol does not define is not served, even with the params of a tools/call that succeeds",
			Rules: []string{"SONDE-GEN-UNKNOWN-METHOD"}},
	}
}

// answerTo sends one raw line owed one answer and waits for that answer:
// the next protocol frame (junk on stdout is judged by the framing rules
// and is no answer).
func answerTo(e *scenario.Env, line string) (*peer.Inbound, error) {
	if err := e.SendRaw([]byte(line+"\n"), true); err != nil {
		return nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return nextAnswer(e)
}

// nextAnswer waits --timeout in all for the answer: one deadline, not one
// per junk frame, so a server flooding stdout with junk cannot keep the
// wait alive for ever.
func nextAnswer(e *scenario.Env) (*peer.Inbound, error) {
	deadline := time.Now().Add(e.Timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w: only frames that are no protocol frame within %s", peer.ErrTimeout, e.Timeout)
		}
		in, err := e.NextFrame(left, nil)
		if err != nil {
			if errors.Is(err, peer.ErrExited) {
				return nil, fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
			}
			return nil, err
		}
		if in.Kind != nil {
			return in, nil
		}
	}
}

// noWait says what a missing answer means, naming the wait and its flag.
func noWait(e *scenario.Env, err error) string {
	if errors.Is(err, scenario.ErrGone) {
		return err.Error()
	}
	return fmt.Sprintf("no answer within %s (--timeout)", e.Timeout)
}

func noID(e *scenario.Env) error {
	cases := []struct {
		line string
		id   any // the id sent, or nil when none was
		sent bool
	}{
		{line: `{"method":"tools/list"}`},
		{line: `{"id":true,"method":"tools/list"}`, id: true, sent: true},
		{line: `{"id":{"n":1},"method":"tools/list"}`, id: map[string]any{"n": json.Number("1")}, sent: true},
		{line: `{"id":[7],"method":"tools/list"}`, id: []any{json.Number("7")}, sent: true},
	}
	for _, c := range cases {
		in, err := answerTo(e, c.line)
		if err != nil {
			e.Fail("SONDE-GEN-NO-ID", -1, "the request "+c.line+" got no answer: "+noWait(e, err),
				"one answer (served or rejected)", "nothing")
			if errors.Is(err, scenario.ErrGone) {
				return err
			}
			// One missing answer decides the rule; waiting out the
			// others would cost a timeout each.
			e.ForgetRaw()
			return nil
		}
		got, has := in.Field("/id")
		switch {
		case !has, got == nil, c.sent && peer.Equal(got, normal(c.id)):
			e.Pass("SONDE-GEN-NO-ID", in.Seq)
		default:
			want := "id null or no id"
			if c.sent {
				want = "id null, no id, or the id as given (" + show(c.id) + ")"
			}
			e.Fail("SONDE-GEN-NO-ID", in.Seq, "the answer to "+c.line+" carries an id the request did not",
				want, string(in.Raw))
		}
	}
	return nil
}

// normal turns json.Number leaves into what peer.Equal compares.
func normal(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normal(x[i])
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, y := range x {
			out[k] = normal(y)
		}
		return out
	}
	return v
}

func nonObject(e *scenario.Env) error {
	for _, line := range []string{"[]", "42", "null", `"tools/list"`} {
		in, err := answerTo(e, line)
		if err != nil {
			e.Fail("SONDE-GEN-NON-OBJECT", -1, "the line "+line+" got no answer: "+noWait(e, err),
				"one answer, ok false", "nothing")
			if errors.Is(err, scenario.ErrGone) {
				return err
			}
			e.ForgetRaw()
			break
		}
		okv, _ := in.Field("/ok")
		id, hasID := in.Field("/id")
		switch {
		case okv != false:
			e.Fail("SONDE-GEN-NON-OBJECT", in.Seq, "the line "+line+" (not a request object) was not answered ok false",
				"ok false", string(in.Raw))
		case hasID && id != nil:
			e.Fail("SONDE-GEN-NON-OBJECT", in.Seq, "the answer to "+line+" carries an id, though the line had none",
				"id null or no id", string(in.Raw))
		default:
			e.Pass("SONDE-GEN-NON-OBJECT", in.Seq)
		}
	}
	if _, err := e.Probe(); err != nil {
		e.Fail("SONDE-GEN-SURVIVE", -1, "the server stopped answering after values that are not objects", "an answer to the probe", err.Error())
		return err
	}
	e.Pass("SONDE-GEN-SURVIVE", -1)
	return nil
}

// unknownMethod sends an unknown method with params that a tools/call
// accepts (a listed tool, input generated from its schema, a call seen to
// succeed), so a server that runs unknown methods as calls shows it.
func unknownMethod(e *scenario.Env) error {
	params := map[string]any{}
	if p, err := succeedingCall(e); err != nil {
		// Those requests are other rules' business; this one is undecided.
		e.Skip("SONDE-GEN-UNKNOWN-METHOD", "not observed: the tools/list or tools/call that finds params a call accepts was not answered ("+err.Error()+")")
		return err
	} else if p != nil {
		params = p
	}
	in, _, err := e.Call(map[string]any{"id": scenario.NextID("unknown"), "method": "tools/destroy", "params": params})
	if err != nil {
		e.Fail("SONDE-GEN-UNKNOWN-METHOD", -1, "the unknown method tools/destroy got no answer: "+noWait(e, err),
			"ok false with error.message", "nothing")
		return err
	}
	okv, _ := in.Field("/ok")
	msg, isStr := field(in, "/error/message").(string)
	switch {
	case okv != false:
		e.Fail("SONDE-GEN-UNKNOWN-METHOD", in.Seq, "the unknown method tools/destroy was served (its params are those of a tools/call that succeeds)",
			"ok false with error.message", string(in.Raw))
	case !isStr || msg == "":
		e.Fail("SONDE-GEN-UNKNOWN-METHOD", in.Seq, "the unknown method was refused without an error.message",
			"ok false with error.message", string(in.Raw))
	default:
		e.Pass("SONDE-GEN-UNKNOWN-METHOD", in.Seq)
	}
	return nil
}

// succeedingCall returns the params of a tools/call that the server
// answers ok true, or nil when no listed tool succeeds with generated input.
func succeedingCall(e *scenario.Env) (map[string]any, error) {
	list, _, err := e.Call(map[string]any{"id": scenario.NextID("list"), "method": "tools/list"})
	if err != nil {
		return nil, err
	}
	tools, _ := field(list, "/result/tools").([]any)
	for i, t := range tools {
		tool, _ := t.(map[string]any)
		name, _ := tool["name"].(string)
		b, _ := json.Marshal(tool["inputSchema"])
		s, err := gen.Compile(b)
		if name == "" || err != nil {
			continue
		}
		input, isMap := gen.Example(s, e.Seed+uint64(i)).(map[string]any)
		if !isMap {
			continue
		}
		params := map[string]any{"name": name, "input": input}
		in, _, err := e.Call(map[string]any{"id": scenario.NextID("call"), "method": "tools/call", "params": params})
		if err != nil {
			return nil, err
		}
		if okv, _ := in.Field("/ok"); okv == true {
			return params, nil
		}
	}
	return nil, nil
}
