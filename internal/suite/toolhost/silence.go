package toolhost

import (
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// The scenarios of this file judge input the document says nothing about
// (docs/silence.md): each asks only what every reasonable reading agrees on
// (one answer, the request's id or none, ok false where nothing could be
// served), at SHOULD; where serving and refusing are both reasonable, both
// pass, and the preference for refusing is a MAY rule.

// errUnanswered is a wait for an answer to an invalid request that ran out:
// the rule the scenario judges says so, not TOOLHOST-RESPONSE-1, and the
// host is not taken for hung (it may answer its next request).
var errUnanswered = errors.New("no answer")

// answerOf waits for the answer to a request sent with an id. Unlike
// Env.Await it charges no rule when none comes: the caller's rule is the
// one that speaks of such requests.
func answerOf(e *scenario.Env, c *peer.Call) (*peer.Inbound, error) {
	in, err := e.Response(c, e.Timeout)
	switch {
	case err == nil:
		return in, nil
	case errors.Is(err, peer.ErrTimeout):
		e.Forget(c)
		return nil, errUnanswered
	default:
		return nil, fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	}
}

// answerToLine writes one line that carries no id the host can echo (not
// JSON, not an object, no id, an id of another type) and waits for the
// answer the peer could not match to a request.
func answerToLine(e *scenario.Env, line string) (*peer.Inbound, error) {
	if err := e.SendRaw([]byte(line+"\n"), true); err != nil {
		return nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in, err := e.NextFrame(e.Timeout, func(in *peer.Inbound) bool {
		return in.Kind != nil && in.Kind.Role == spec.RoleResponse && in.Call == nil
	})
	switch {
	case err == nil:
		return in, nil
	case errors.Is(err, peer.ErrTimeout):
		e.ForgetRaw()
		return nil, errUnanswered
	default:
		return nil, fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	}
}

// alive sends the protocol's probe (init) and waits for any answer. A
// host that stopped answering after bad input fails the survival rule its
// caller judges, not TOOLHOST-RESPONSE-1, and is replaced before the next
// scenario (Hung).
func alive(e *scenario.Env) error {
	req := map[string]any{"id": scenario.NextID("probe")}
	for k, v := range e.Protocol.Probe {
		req[k] = v
	}
	c, err := e.Send(req)
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	_, err = answerOf(e, c)
	if errors.Is(err, errUnanswered) {
		e.Hung = true
		return errors.New(noAnswer(e, "the probe (init)"))
	}
	return err
}

// up initialises the host, as the core does before anything else, so the
// waits of the silence scenarios (which charge no timeliness rule and get
// no start-up allowance) measure the host's answer, not its start-up.
func up(e *scenario.Env) error {
	_, _, err := e.Call(request("init", map[string]any{"config": config(e)}))
	return err
}

// noAnswer is the message for a wait that ran out, naming the bound and
// the flag that sets it.
func noAnswer(e *scenario.Env, what string) string {
	return fmt.Sprintf("no answer within %s (--timeout) to %s", e.Timeout, what)
}

// unreadableLines are lines with no request in them; every reading agrees
// the host can only refuse them.
var unreadableLines = []struct{ what, line string }{
	{"a line of truncated JSON", `{"v": 1, "method": "init"`},
	{"a line of plain text", `init please`},
	{"a JSON list", `[1, 2, 3]`},
	{"a JSON string", `"init"`},
}

// idlessLines are requests the host could serve but whose id it cannot
// echo; serving and refusing both pass TOOLHOST-GEN-UNREADABLE.
var idlessLines = []struct {
	what, line string
	// echo is the id an answer may carry besides null or none: the
	// request's own, echoed as given.
	echo any
}{
	{"an init request without an id", `{"v": 1, "method": "init", "params": {"config": {}}}`, nil},
	{"an init request whose id is true", `{"v": 1, "id": true, "method": "init", "params": {"config": {}}}`, true},
}

func unreadable(e *scenario.Env) error {
	if err := up(e); err != nil {
		return err
	}
lines:
	for i, u := range unreadableLines {
		in, err := answerToLine(e, u.line)
		switch {
		case errors.Is(err, errUnanswered):
			msg := noAnswer(e, u.what)
			if i < len(unreadableLines)-1 {
				// One line left unanswered decides the rule; the others
				// would each wait out --timeout for the same finding.
				msg += "; the other lines with no request in them were not sent"
			}
			e.Fail("TOOLHOST-GEN-UNREADABLE", -1, msg, "one answer, ok false, id null or none", "nothing")
			break lines
		case err != nil:
			e.Fail("TOOLHOST-GEN-UNREADABLE", -1, "the host ended on "+u.what, "one answer, ok false, and the host goes on", err.Error())
			e.Skip("TOOLHOST-GEN-NO-ID-2", "the host ended before a request without an id was sent")
			return err
		}
		idv, hasID := in.Field("/id")
		switch {
		case field(in, "/ok") != false:
			e.Fail("TOOLHOST-GEN-UNREADABLE", in.Seq, fmt.Sprintf("%s was not refused", u.what), "ok false: there is no request to serve", string(in.Raw))
		case hasID && idv != nil:
			e.Fail("TOOLHOST-GEN-UNREADABLE", in.Seq, fmt.Sprintf("the answer to %s carries an id, but the line held none", u.what), "id null, or no id", string(in.Raw))
		default:
			e.Pass("TOOLHOST-GEN-UNREADABLE", in.Seq)
		}
	}
	for _, u := range idlessLines {
		in, err := answerToLine(e, u.line)
		switch {
		case errors.Is(err, errUnanswered):
			e.Fail("TOOLHOST-GEN-UNREADABLE", -1, noAnswer(e, u.what), "one answer (ok false, or served) with id null or none", "nothing")
			e.Skip("TOOLHOST-GEN-NO-ID-2", u.what+" was not answered")
			continue
		case err != nil:
			e.Fail("TOOLHOST-GEN-UNREADABLE", -1, "the host ended on "+u.what, "one answer (ok false, or served), and the host goes on", err.Error())
			return err
		}
		idv, hasID := in.Field("/id")
		if hasID && idv != nil && !peer.Equal(idv, u.echo) {
			e.Fail("TOOLHOST-GEN-UNREADABLE", in.Seq, fmt.Sprintf("the answer to %s carries id %s, which the request did not", u.what, show(idv)),
				"id null, no id, or the request's own id", string(in.Raw))
		} else {
			e.Pass("TOOLHOST-GEN-UNREADABLE", in.Seq)
		}
		if field(in, "/ok") == false {
			e.Pass("TOOLHOST-GEN-NO-ID-2", in.Seq)
		} else {
			e.Fail("TOOLHOST-GEN-NO-ID-2", in.Seq, fmt.Sprintf("%s was served; refusing it tells the client its request had no usable id", u.what),
				"ok false (a preference: serving it is also correct)", string(in.Raw))
		}
	}
	return nil
}

// badParamsCase is one request that breaks "params: JSON object".
type badParamsCase struct {
	what   string
	method string
	params any // absent when missing is set
	// missing leaves params out: reading it as {} is as good as refusing.
	missing bool
	// noTool: the call names no tool, so it cannot be a success.
	noTool bool
}

var badParamsCases = []badParamsCase{
	{what: "init without params", method: "init", missing: true},
	{what: "get_tool_schemas whose params is a list", method: "get_tool_schemas", params: []any{1, 2}},
	{what: "init whose config is a string", method: "init", params: map[string]any{"config": "not an object"}},
	{what: "get_tool_schemas whose state is a number", method: "get_tool_schemas", params: map[string]any{"state": 42}},
	{what: "execute_tool without a tool_name", method: "execute_tool", params: map[string]any{"arguments": map[string]any{}, "state": map[string]any{}}, noTool: true},
	{what: "execute_tool whose tool_name is a number", method: "execute_tool", params: map[string]any{"tool_name": 42, "arguments": map[string]any{}, "state": map[string]any{}}, noTool: true},
}

func badParams(e *scenario.Env) error {
	if err := up(e); err != nil {
		return err
	}
	preferred := false
	for _, bc := range badParamsCases {
		req := map[string]any{"v": 1, "id": scenario.NextID("bp"), "method": bc.method}
		if !bc.missing {
			req["params"] = bc.params
		}
		c, err := e.Send(req)
		if err != nil {
			return fmt.Errorf("%w: %v", scenario.ErrGone, err)
		}
		in, err := answerOf(e, c)
		if errors.Is(err, errUnanswered) {
			// One wait is enough to know; the rest would only repeat it.
			e.Fail("TOOLHOST-GEN-BAD-PARAMS", c.Seq, noAnswer(e, bc.what), "one answer with the request id: ok false, or served", "nothing")
			break
		}
		if err != nil {
			e.Fail("TOOLHOST-GEN-BAD-PARAMS", c.Seq, "the host ended on "+bc.what, "one answer, and the host goes on", err.Error())
			if !preferred {
				e.Skip("TOOLHOST-GEN-BAD-PARAMS-2", "the host ended before it answered a request with mistyped params")
			}
			return err
		}
		served := field(in, "/ok") == true
		if bc.noTool && served && field(in, "/result/value/success") != false {
			e.Fail("TOOLHOST-GEN-BAD-PARAMS", in.Seq, fmt.Sprintf("%s was answered as a success, yet it names no tool", bc.what),
				"ok false, or success false", string(in.Raw))
		} else {
			// Whether the answer carries the request's id is TOOLHOST-ID-1's
			// business: the peer has judged it.
			e.Pass("TOOLHOST-GEN-BAD-PARAMS", in.Seq)
		}
		if bc.missing || bc.noTool {
			continue
		}
		preferred = true
		if served {
			e.Fail("TOOLHOST-GEN-BAD-PARAMS-2", in.Seq, fmt.Sprintf("%s was served; refusing it tells the client its request was malformed", bc.what),
				"ok false (a preference: serving it leniently is also correct)", string(in.Raw))
		} else {
			e.Pass("TOOLHOST-GEN-BAD-PARAMS-2", in.Seq)
		}
	}
	if !preferred {
		e.Skip("TOOLHOST-GEN-BAD-PARAMS-2", "no request with mistyped params was answered")
	}
	if err := alive(e); err != nil {
		e.Fail("TOOLHOST-GEN-SURVIVE", -1, "the host stopped answering after requests with bad params", "an answer to the probe", err.Error())
		return err
	}
	e.Pass("TOOLHOST-GEN-SURVIVE", -1)
	return nil
}
