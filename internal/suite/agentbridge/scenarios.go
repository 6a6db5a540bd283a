package agentbridge

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

const file = "internal/suite/agentbridge/scenarios.go"

// HookEvents are the hook events the document lists.
var HookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification", "UserPromptSubmit",
	"SessionStart", "SessionEnd", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "PermissionRequest"}

// QueryMethods are the query.call methods the document lists.
var QueryMethods = []string{"supportedModels", "supportedCommands", "mcpServerStatus", "accountInfo",
	"setModel", "setPermissionMode", "setMaxThinkingTokens", "rewindFiles"}

// Scenarios returns the Go scenarios of agent-bridge.
func Scenarios() []*scenario.Scenario {
	s := func(name, title string, run func(*scenario.Env) error, rules ...string) *scenario.Scenario {
		return &scenario.Scenario{Name: name, Title: title, Rules: rules, Run: run, File: file}
	}
	return []*scenario.Scenario{
		s("lifecycle", "session.create with the tool prompt, answered by the --param callback policy: session.created, "+
			"a stream from system/init to result, session.send continuing it, session.kill",
			lifecycle, "BRIDGE-CREATE-1", "BRIDGE-STREAM-1", "BRIDGE-STREAM-2", "BRIDGE-SEND-1", "BRIDGE-KILL-1", "BRIDGE-CB-ASK-1"),
		s("callback-allow", "a can_use_tool callback answered allow: the tool runs", policyRun(Allow), "BRIDGE-CB-ALLOW-1", "BRIDGE-CB-ASK-1"),
		s("callback-deny", "a can_use_tool callback answered deny: the tool is refused", policyRun(Deny), "BRIDGE-CB-DENY-1"),
		s("callback-allow-updated", "a can_use_tool callback answered allow with updated_input: the tool runs with it",
			policyRun(AllowUpdated), "BRIDGE-CB-UPDATED-1", "BRIDGE-CB-ASK-1"),
		s("callback-never", "a can_use_tool callback never answered: error CALLBACK_TIMEOUT (within --param callback_timeout, default 60s)",
			policyRun(Never), "BRIDGE-CB-TIMEOUT-1", "BRIDGE-CB-TIMEOUT-2"),
		s("callback-unknown", "a callback.response whose id is no pending callback (a permission answer, a hook answer): error CALLBACK_NOT_FOUND",
			callbackUnknown, "BRIDGE-CB-NOTFOUND-1"),
		s("partial-messages", "include_partial_messages on: stream_event messages", partial, "BRIDGE-PARTIAL-1"),
		s("options", "session.create with every option the document lists, hooks on every hook event", options,
			"BRIDGE-OPTIONS-1", "BRIDGE-HOOK-1"),
		s("query-methods", "query.call of every method the document lists, and of one that fails", queries,
			"BRIDGE-QUERY-1", "BRIDGE-QUERY-2"),
		s("interrupt-kill", "session.interrupt and session.kill, then every message for the killed session", interruptKill,
			"BRIDGE-INTERRUPT-1", "BRIDGE-KILL-1", "BRIDGE-KILL-2"),
		s("interrupt-callback", "session.interrupt while a can_use_tool callback is pending, then the late answer: "+
			"session.interrupted, the callback gone, no tool run, the turn ended and the session usable", interruptCallback,
			"BRIDGE-INTERRUPT-1", "BRIDGE-INTERRUPT-2", "BRIDGE-INTERRUPT-3", "BRIDGE-INTERRUPT-4"),
		s("hook-block", "a PreToolUse hook answered with decision block: the tool does not run", hookBlock, "BRIDGE-HOOK-BLOCK-1"),
		s("sessions", "two sessions at once stay separate, and killing one leaves the other working", sessions,
			"BRIDGE-SESSIONS-1", "BRIDGE-SESSIONS-2"),
		s("create-fail", "session.create in a directory that does not exist", createFail, "BRIDGE-CREATE-2"),
	}
}

// toolOptions keep the permission prompt: the default mode asks.
func toolOptions() map[string]any { return map[string]any{"permission_mode": "default"} }

func lifecycle(e *scenario.Env) error {
	p, err := userPolicy(e)
	if err != nil {
		return err
	}
	b, s, t, err := toolTurn(e, p)
	if err != nil || s == nil {
		return err
	}
	if t.gone() {
		return t.err
	}
	b.judgeStream(s, t, true, "session.create")
	b.judgeAsked(t)
	b.judgeCallbacks(s, t, p)
	if t.result == nil {
		e.Skip("BRIDGE-SEND-1", "the first turn brought no result (BRIDGE-STREAM-1), so session.send was not tried")
		return b.kill(s)
	}
	b.quiet(s)
	sc, err := b.send(s, plainPrompt)
	if err != nil {
		return err
	}
	bound, why := b.sendBound()
	t2, ans := b.collectAnswered(s, bound, sc)
	if ans == nil {
		b.sent(s, t2, bound)
	}
	switch {
	case t2.gone():
		return t2.err
	case t2.result == nil && ans != nil:
		e.Fail("BRIDGE-SEND-1", ans.Seq, fmt.Sprintf("session.send to live session %q was answered with an error instead of continuing its stream", s.id),
			"sdk.message frames of the session ending with a result", string(ans.Raw))
	case t2.result == nil && why != "":
		e.Skip("BRIDGE-SEND-1", scenario.NotWaited("the turn session.send should start", why))
	case t2.result == nil:
		e.Absent("BRIDGE-SEND-1", -1, fmt.Sprintf("session.send to live session %q did not continue its stream up to a result %s", s.id, t2.how(bound, "--param turn_timeout")),
			"sdk.message frames of the session ending with a result", fmt.Sprintf("%d sdk.message frame(s)", len(t2.frames)))
	default:
		e.Pass("BRIDGE-SEND-1", t2.result.Seq)
	}
	return b.kill(s)
}

// toolTurn starts the bridge answering by p, creates a session with the
// tool-use prompt and collects its first turn (waiting out the callback
// timeout too when p never answers). s is nil when the session could not
// be created (already reported).
func toolTurn(e *scenario.Env, p Policy) (*bridge, *session, *turn, error) {
	b, err := start(e, p)
	if err != nil {
		return nil, nil, nil, err
	}
	s, _, err := b.create(b.prompt, toolOptions())
	if err != nil || s == nil {
		return b, nil, nil, err
	}
	if p != Never {
		return b, s, b.collect(s, b.turn), nil
	}
	return b, s, b.unansweredTurn(s), nil
}

// unansweredTurn collects a turn whose callbacks go unanswered. Each wait
// is the backend's own step: up to the turn bound for the permission
// request, then the callback bound from its arrival for CALLBACK_TIMEOUT
// (or the turn going on), then the turn bound again for the rest. A
// backend that never gives up costs the callback bound once.
func (b *bridge) unansweredTurn(s *session) *turn {
	asked := func(in *peer.Inbound) bool {
		return str(in, "/type") == "callback.request" && str(in, "/payload/callback_type") == "can_use_tool"
	}
	t := b.collectUntil(s, b.turn, asked)
	cbs := t.canUseTool()
	if t.result != nil || len(cbs) == 0 || t.err != nil {
		return t
	}
	gaveUp := func(in *peer.Inbound) bool {
		return str(in, "/type") == "error" || (str(in, "/type") == "sdk.message" && str(in, "/payload/type") == "user")
	}
	b.collectInto(t, s, time.Until(cbs[0].At.Add(b.cb)), gaveUp)
	if t.result != nil || t.err != nil && !errors.Is(t.err, peer.ErrTimeout) {
		return t
	}
	if t.err != nil { // still waiting for the answer: no turn to finish
		t.settle(s)
		return t
	}
	b.collectInto(t, s, b.turn, nil)
	if errors.Is(t.err, peer.ErrTimeout) {
		t.settle(s)
	}
	return t
}

// policyRun judges one answering policy on one tool use.
func policyRun(p Policy) func(*scenario.Env) error {
	return func(e *scenario.Env) error {
		b, s, t, err := toolTurn(e, p)
		if err != nil || s == nil {
			return err
		}
		if t.gone() {
			return t.err
		}
		if t.result == nil && len(t.canUseTool()) == 0 {
			b.judgeStream(s, t, false, "session.create")
		}
		if p == Allow || p == AllowUpdated {
			b.judgeAsked(t)
		}
		b.judgeCallbacks(s, t, p)
		return b.kill(s)
	}
}

// depNotFound names the answer to a callback.response for no pending
// callback (CALLBACK_NOT_FOUND): a backend that left one unanswered leaves
// the next unanswered too.
const depNotFound = "an answer to a callback.response for no pending callback"

// callbackUnknown answers callbacks the backend never asked for. The
// document gives callback.response no response of its own: only the error
// CALLBACK_NOT_FOUND is awaited, and its absence fails that rule alone.
func callbackUnknown(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	s, _, err := b.create(plainPrompt, nil)
	if err != nil || s == nil {
		if err == nil {
			e.Skip("BRIDGE-CB-NOTFOUND-1", "no session (session.create was not answered session.created), so an answer to an unknown callback was not tried")
		}
		return err
	}
	b.collect(s, b.turn)
	unanswered := "" // set once a callback.response of this scenario went unanswered
	for _, p := range []struct {
		prefix  string
		payload map[string]any
	}{
		{"wirecheck-no-such-callback", map[string]any{"behavior": "allow", "updated_input": map[string]any{}}},
		{"wirecheck-no-such-hook", map[string]any{"continue": true}},
	} {
		id := scenario.NextID(p.prefix)
		c, err := e.Send(map[string]any{"type": "callback.response", "id": id, "session_id": s.id, "payload": p.payload})
		if err != nil {
			return fmt.Errorf("%w: %v", scenario.ErrGone, err)
		}
		why := e.Cause(depNotFound)
		if why == "" {
			why = unanswered
		}
		wait := e.Timeout
		if why != "" {
			wait = 0
		}
		in, werr := e.Response(c, wait)
		if werr != nil {
			e.Forget(c)
			if errors.Is(werr, peer.ErrExited) {
				return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
			}
			if why != "" {
				e.Skip("BRIDGE-CB-NOTFOUND-1", scenario.NotWaited("an answer to the callback.response for "+id, why))
				continue
			}
			e.Fail("BRIDGE-CB-NOTFOUND-1", c.Seq, fmt.Sprintf("a callback.response for %s, which no callback.request carried, got no answer within %s (--timeout)", id, e.Timeout),
				"error CALLBACK_NOT_FOUND with id "+show(id), "nothing")
			// One wait is enough to know; learned for the lane once the
			// probe shows the backend alive.
			unanswered = fmt.Sprintf("the callback.response for %s, which no callback.request carried, got no answer within %s (--timeout) in scenario %s", id, e.Timeout, e.Scenario())
			e.Suspect(depNotFound, unanswered)
			continue
		}
		if kindName(in) == "error" && str(in, "/payload/code") == "CALLBACK_NOT_FOUND" && str(in, "/id") == id {
			e.Pass("BRIDGE-CB-NOTFOUND-1", in.Seq)
		} else {
			e.Fail("BRIDGE-CB-NOTFOUND-1", in.Seq, fmt.Sprintf("a callback.response for %s, which no callback.request carried, was not answered error CALLBACK_NOT_FOUND with its id", id),
				"error CALLBACK_NOT_FOUND with id "+show(id), string(in.Raw))
		}
	}
	return b.kill(s)
}

func partial(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	s, _, err := b.create(plainPrompt, map[string]any{"include_partial_messages": true, "system_prompt": "Answer in one word."})
	if err != nil || s == nil {
		return err
	}
	t := b.collect(s, b.turn)
	if t.gone() {
		return t.err
	}
	b.judgeStream(s, t, false, "session.create")
	if t.result == nil {
		e.Skip("BRIDGE-PARTIAL-1", "the turn brought no result "+t.how(b.turn, "--param turn_timeout")+", so whether it streamed partial messages was not settled (BRIDGE-STREAM-1 judges the turn)")
		return b.kill(s)
	}
	if t.early != "" {
		e.Skip("BRIDGE-PARTIAL-1", "the turn was not followed to its end: "+t.failure(e))
		return b.kill(s)
	}
	found := false
	for _, f := range t.frames {
		if str(f, "/payload/type") == "stream_event" {
			e.Pass("BRIDGE-PARTIAL-1", f.Seq)
			found = true
			break
		}
	}
	if !found {
		e.Fail("BRIDGE-PARTIAL-1", -1, "include_partial_messages was on but the turn carried no stream_event message",
			"at least one sdk.message with payload.type stream_event", fmt.Sprintf("%d sdk.message frame(s)", len(t.frames)))
	}
	return b.kill(s)
}

// AllOptions is a session.create options object with every option the
// document lists, each configuration type in its every form.
func AllOptions(cwd string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range HookEvents {
		hooks[ev] = []any{map[string]any{}}
	}
	hooks["PreToolUse"] = []any{map[string]any{"matcher": "Bash"}}
	hooks["PostToolUse"] = []any{map[string]any{"matcher": "Bash|Write|Edit"}}
	return map[string]any{
		"permission_mode":           "default",
		"allowed_tools":             []any{"Read"},
		"disallowed_tools":          []any{"WebFetch"},
		"system_prompt":             map[string]any{"type": "preset", "preset": "claude_code", "append": "Be brief."},
		"max_turns":                 3,
		"max_budget_usd":            0.25,
		"max_thinking_tokens":       1024,
		"include_partial_messages":  false,
		"enable_file_checkpointing": true,
		"additional_directories":    []any{cwd},
		"mcp_servers": map[string]any{
			"wirecheck-stdio": map[string]any{"type": "stdio", "command": "true", "args": []any{}, "env": map[string]any{}},
			"wirecheck-bare":  map[string]any{"command": "true"},
			"wirecheck-sse":   map[string]any{"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": map[string]any{}},
			"wirecheck-http":  map[string]any{"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": map[string]any{"X-Wirecheck": "1"}},
		},
		"agents": map[string]any{
			"wirecheck-reviewer": map[string]any{"description": "Reviews text when asked.", "prompt": "You review text.", "tools": []any{"Read"}, "model": "inherit"},
			"wirecheck-minimal":  map[string]any{"description": "Never used.", "prompt": "You do nothing."},
		},
		"hooks": hooks,
		"sandbox": map[string]any{
			"enabled": false, "auto_allow_bash_if_sandboxed": false, "excluded_commands": []any{"git"},
			"allow_unsandboxed_commands": true,
			"network":                    map[string]any{"allow_local_binding": false, "allow_unix_sockets": []any{}, "allow_all_unix_sockets": false},
			"ignore_violations":          map[string]any{"file": []any{}, "network": []any{}},
		},
		"setting_sources": []any{"project"},
		"betas":           []any{},
		"output_format":   map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object"}},
		"fallback_model":  "claude-haiku-4-5",
	}
}

func options(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	s, in, err := b.create(b.prompt, AllOptions(b.cwd))
	if err != nil {
		return err
	}
	if in == nil {
		e.Fail("BRIDGE-OPTIONS-1", -1, "session.create with every option the document lists got no answer within "+b.turn.String()+" (--param turn_timeout)",
			"session.created", "nothing")
		e.Skip("BRIDGE-HOOK-1", "no session, so no hook could run")
		return nil
	}
	if s == nil {
		e.Fail("BRIDGE-OPTIONS-1", in.Seq, "session.create with every option the document lists was not answered session.created",
			"session.created", string(in.Raw))
		e.Skip("BRIDGE-HOOK-1", "no session, so no hook could run")
		return nil
	}
	e.Pass("BRIDGE-OPTIONS-1", in.Seq)
	t := b.collect(s, b.turn)
	if t.gone() {
		return t.err
	}
	hooked := false
	for _, c := range t.callbacks {
		if str(c, "/payload/callback_type") == "hook" {
			e.Pass("BRIDGE-HOOK-1", c.Seq)
			hooked = true
		}
	}
	if !hooked {
		switch {
		case t.ended != nil || t.early != "":
			// The SDK failed before any hook could run (BRIDGE-STREAM-1's),
			// or the turn was not followed past its early result.
			e.Skip("BRIDGE-HOOK-1", "no hook callback.request arrived: "+t.failure(e))
		case t.result == nil:
			// A backend that died meanwhile could not send one: not
			// observed (Absent), its death is the scenario's finding.
			e.Absent("BRIDGE-HOOK-1", -1, "no hook callback.request arrived and the turn brought no result "+t.how(b.turn, "--param turn_timeout"),
				"hook callback.requests for the configured events", fmt.Sprintf("%d callback(s), %d sdk.message frame(s)", len(t.callbacks), len(t.frames)))
		default:
			e.Fail("BRIDGE-HOOK-1", t.result.Seq, "the turn ended without any hook callback.request, although hooks were configured for every event "+
				"(UserPromptSubmit and Stop run on every turn)", "hook callback.requests for the configured events", fmt.Sprintf("%d sdk.message frame(s), none preceded by a hook", len(t.frames)))
		}
	}
	return b.kill(s)
}

func queries(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	s, _, err := b.create(plainPrompt, map[string]any{"enable_file_checkpointing": true})
	if err != nil || s == nil {
		return err
	}
	t := b.collect(s, b.turn)
	if t.gone() {
		return t.err
	}
	b.judgeStream(s, t, true, "session.create")
	model := s.init
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	args := map[string][]any{
		"setModel": {model}, "setPermissionMode": {"default"}, "setMaxThinkingTokens": {1024},
		"rewindFiles": {"wirecheck-no-such-message"},
	}
	for _, m := range QueryMethods {
		a := args[m]
		if a == nil {
			a = []any{}
		}
		in, _, err := b.request(s, "query.call", map[string]any{"method": m, "args": a}, "BRIDGE-QUERY-1",
			"query.result {success, result} with session_id "+show(s.id)+", or error QUERY_METHOD_FAILED")
		if err != nil {
			return err
		}
		if in == nil {
			if m == "rewindFiles" {
				e.Skip("BRIDGE-QUERY-2", "rewindFiles got no answer (BRIDGE-QUERY-1), so how a failing query method is reported was not observed")
			}
			continue
		}
		answered := kindName(in) == "query.result" && str(in, "/session_id") == s.id
		failed := kindName(in) == "error" && str(in, "/payload/code") == "QUERY_METHOD_FAILED"
		if why := unsupportedWhy(in); why != "" {
			// The document lists the method: a backend that says it has
			// none answered in the right form, but not the call.
			e.Fail("BRIDGE-QUERY-1", in.Seq, fmt.Sprintf("query.call %s, a method the document lists, was answered as unknown or unsupported: %s", m, show(why)),
				"query.result {success, result} with session_id "+show(s.id)+" from the method itself", string(in.Raw))
			if m == "rewindFiles" {
				e.Skip("BRIDGE-QUERY-2", "rewindFiles was answered as an unknown or unsupported method (BRIDGE-QUERY-1), so how a query method that fails is reported was not observed")
			}
			continue
		}
		if answered || failed {
			e.Pass("BRIDGE-QUERY-1", in.Seq)
		} else {
			e.Fail("BRIDGE-QUERY-1", in.Seq, fmt.Sprintf("query.call %s was answered neither query.result with the session_id nor error QUERY_METHOD_FAILED", m),
				"query.result {success, result} with session_id "+show(s.id), string(in.Raw))
		}
		if m != "rewindFiles" {
			continue
		}
		switch {
		case failed, answered && field(in, "/payload/success") == false && str(in, "/payload/error") != "":
			e.Pass("BRIDGE-QUERY-2", in.Seq)
		case answered && field(in, "/payload/success") == true:
			e.Skip("BRIDGE-QUERY-2", "the backend rewound files to a message id that never existed, so no failing query method was observed")
		default:
			e.Fail("BRIDGE-QUERY-2", in.Seq, "rewindFiles to a message that does not exist failed, but not as query.result {success: false, error} or error QUERY_METHOD_FAILED",
				"query.result success false with an error, or error QUERY_METHOD_FAILED", string(in.Raw))
		}
	}
	return b.kill(s)
}

// unsupportedWords mark an error that says a method does not exist, as
// opposed to one the method raised ("unknown message id" is rewindFiles
// failing, not missing: the text must speak of the method).
var unsupportedWords = regexp.MustCompile(`(?i)\b(unknown|unsupported|not supported|not implemented|unimplemented|unrecogni[sz]ed|no such)\b`)

// unsupportedWhy returns the error text of an answer to a query.call that
// says the backend has no such method ("" when it says otherwise): a
// failure (query.result success false, or an error) whose text calls the
// method unknown or unsupported.
func unsupportedWhy(in *peer.Inbound) string {
	var text string
	switch {
	case kindName(in) == "query.result" && field(in, "/payload/success") == false:
		text = str(in, "/payload/error")
	case kindName(in) == "error":
		text = str(in, "/payload/message")
	}
	if unsupportedWords.MatchString(text) && strings.Contains(strings.ToLower(text), "method") {
		return text
	}
	return ""
}

func interruptKill(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	s, _, err := b.create(plainPrompt, nil)
	if err != nil || s == nil {
		return err
	}
	b.collect(s, b.turn)
	in, _, err := b.request(s, "session.interrupt", map[string]any{}, "BRIDGE-INTERRUPT-1", interruptedWant(s))
	if err != nil {
		return err
	}
	b.judgeInterrupted(s, in)
	killed, err := b.killed(s)
	if err != nil {
		return err
	}
	if kindName(killed) != "session.killed" {
		e.Skip("BRIDGE-KILL-2", "session.kill was not answered session.killed (BRIDGE-KILL-1), so what follows a kill was not observed")
		return nil
	}
	notFound := func(what string, in *peer.Inbound) {
		if in == nil {
			return // no answer: already failed by unanswered
		}
		if kindName(in) == "error" && str(in, "/payload/code") == "SESSION_NOT_FOUND" {
			e.Pass("BRIDGE-KILL-2", in.Seq)
			return
		}
		e.Fail("BRIDGE-KILL-2", in.Seq, what+" for a killed session was not answered error SESSION_NOT_FOUND",
			"error SESSION_NOT_FOUND with the request id", string(in.Raw))
	}
	// session.send has no response of its own when the session lives.
	c, err := b.send(s, plainPrompt)
	if err != nil {
		return err
	}
	if in, err := e.Response(c, e.Timeout); errors.Is(err, peer.ErrExited) {
		return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	} else if err != nil {
		e.Fail("BRIDGE-KILL-2", c.Seq, fmt.Sprintf("session.send for killed session %q got no answer within %s (--timeout)", s.id, e.Timeout),
			"error SESSION_NOT_FOUND with the request id", "nothing")
	} else {
		notFound("session.send", in)
	}
	for _, m := range []struct {
		typ     string
		payload map[string]any
	}{
		{"session.interrupt", map[string]any{}},
		{"query.call", map[string]any{"method": "accountInfo", "args": []any{}}},
		{"session.kill", map[string]any{}},
	} {
		in, _, err := b.request(s, m.typ, m.payload, "BRIDGE-KILL-2", "error SESSION_NOT_FOUND with the request id")
		if err != nil {
			return err
		}
		notFound(m.typ, in)
	}
	// Frames of the session still queued were read after the kill but may
	// have arrived before session.killed: only the order of arrival
	// (transcript lines) is evidence.
	for {
		in, err := e.NextFrame(20*time.Millisecond, func(in *peer.Inbound) bool {
			t, _ := in.Field("/type")
			sid, _ := in.Field("/session_id")
			return t == "sdk.message" && sid == s.id
		})
		if err != nil {
			return nil
		}
		if in.Seq > killed.Seq {
			e.Fail("BRIDGE-KILL-2", in.Seq, fmt.Sprintf("an sdk.message of session %q arrived after session.killed (transcript line %d)", s.id, killed.Seq),
				"no message of a killed session", string(in.Raw))
			return nil
		}
	}
}

func sessions(e *scenario.Env) error {
	p, err := userPolicy(e)
	if err != nil {
		return err
	}
	b, err := start(e, p)
	if err != nil {
		return err
	}
	a, _, err := b.create("Reply with the letter A.", nil)
	if err != nil || a == nil {
		return err
	}
	c, _, err := b.create("Reply with the letter B.", nil)
	if err != nil || c == nil {
		return err
	}
	if a.id == c.id {
		e.Fail("BRIDGE-SESSIONS-1", -1, "two session.create answered the same session_id "+show(a.id), "a session_id of its own per session", a.id)
	}
	// Evidence against BRIDGE-SESSIONS-1 is a frame of one session carrying
	// the other's ids (sameSession judges each while collecting). A turn
	// that does not end is no such evidence: BRIDGE-STREAM-1 judges it.
	ta, tc := b.collect(a, b.turn), b.collect(c, b.turn)
	if ta.gone() || tc.gone() {
		return errors.Join(ta.err, tc.err)
	}
	for _, x := range []struct {
		s *session
		t *turn
	}{{a, ta}, {c, tc}} {
		if x.t.result == nil {
			b.judgeStream(x.s, x.t, false, "session.create")
		}
	}
	if ta.result != nil && tc.result != nil {
		e.Pass("BRIDGE-SESSIONS-1", tc.result.Seq)
	} else if a.id != c.id {
		e.Skip("BRIDGE-SESSIONS-1", "a session's turn did not end (BRIDGE-STREAM-1), and no frame of one session carried the other's ids")
	}
	if err := b.kill(a); err != nil {
		return err
	}
	in, _, err := b.request(c, "query.call", map[string]any{"method": "supportedModels", "args": []any{}}, "BRIDGE-SESSIONS-2", "query.result for the live session")
	if err != nil || in == nil {
		return err
	}
	if kindName(in) != "query.result" {
		e.Fail("BRIDGE-SESSIONS-2", in.Seq, fmt.Sprintf("after session %q was killed, session %q no longer answers query.call", a.id, c.id),
			"query.result for the live session", string(in.Raw))
		return nil
	}
	sc, err := b.send(c, plainPrompt)
	if err != nil {
		return err
	}
	bound, why := b.sendBound()
	t, ans := b.collectAnswered(c, bound, sc)
	if ans == nil {
		b.sent(c, t, bound)
	}
	if t.gone() {
		return t.err
	}
	if t.result == nil && ans == nil && why != "" {
		e.Skip("BRIDGE-SESSIONS-2", scenario.NotWaited("the turn session.send should start in the other session", why))
		return b.kill(c)
	}
	if t.result == nil && tc.result == nil {
		e.Skip("BRIDGE-SESSIONS-2", fmt.Sprintf("session %q brought no result before session %q was killed either (BRIDGE-STREAM-1), so whether the kill stopped it was not observed", c.id, a.id))
		return b.kill(c)
	}
	if t.result == nil && ans != nil {
		e.Fail("BRIDGE-SESSIONS-2", ans.Seq, fmt.Sprintf("after session %q was killed, session.send to session %q was answered with an error instead of continuing its stream", a.id, c.id),
			"the other session keeps working", string(ans.Raw))
		if str(ans, "/payload/code") == "SESSION_NOT_FOUND" {
			return nil // the backend forgot the session: nothing left to kill
		}
		return b.kill(c)
	}
	if t.result == nil {
		e.Absent("BRIDGE-SESSIONS-2", -1, fmt.Sprintf("after session %q was killed, session.send to session %q did not stream to a result %s", a.id, c.id, t.how(bound, "--param turn_timeout")),
			"the other session keeps working", fmt.Sprintf("%d sdk.message frame(s)", len(t.frames)))
	} else {
		e.Pass("BRIDGE-SESSIONS-2", t.result.Seq)
	}
	return b.kill(c)
}

func createFail(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	b.cwd = "/nonexistent/" + scenario.NextID("wirecheck-cwd")
	in, _, err := b.await(map[string]any{"type": "session.create", "id": scenario.NextID("create"),
		"payload": map[string]any{"prompt": plainPrompt, "cwd": b.cwd}}, "BRIDGE-CREATE-2", "session.created, or error SESSION_CREATE_FAILED with the request id")
	if err != nil || in == nil {
		return err
	}
	switch {
	case kindName(in) == "error" && str(in, "/payload/code") == "SESSION_CREATE_FAILED":
		e.Pass("BRIDGE-CREATE-2", in.Seq)
	case kindName(in) == "session.created":
		e.Skip("BRIDGE-CREATE-2", "the backend created a session in a directory that does not exist, so a failing session.create was not observed")
		return b.kill(&session{id: str(in, "/session_id"), cbIDs: map[string]bool{}})
	default:
		e.Fail("BRIDGE-CREATE-2", in.Seq, "session.create in a directory that does not exist was answered neither session.created nor error SESSION_CREATE_FAILED",
			"session.created, or error SESSION_CREATE_FAILED with the request id", string(in.Raw))
	}
	return nil
}

func interruptedWant(s *session) string {
	return "session.interrupted with session_id " + show(s.id) + ", or error with the request id"
}

// judgeInterrupted decides BRIDGE-INTERRUPT-1 on the answer to a
// session.interrupt of a live session ("Response: session.interrupted or
// error": an error, say because no turn was running, is an answer too,
// except SESSION_NOT_FOUND, which a live session is not). in is nil when no
// answer came (already failed).
func (b *bridge) judgeInterrupted(s *session, in *peer.Inbound) {
	if in == nil {
		return
	}
	if kindName(in) == "session.interrupted" && str(in, "/session_id") == s.id ||
		kindName(in) == "error" && str(in, "/payload/code") != "SESSION_NOT_FOUND" {
		b.e.Pass("BRIDGE-INTERRUPT-1", in.Seq)
		return
	}
	b.e.Fail("BRIDGE-INTERRUPT-1", in.Seq, fmt.Sprintf("session.interrupt of live session %q was answered neither session.interrupted with its session_id nor an error a live session can get", s.id),
		interruptedWant(s), string(in.Raw))
}

// interruptRules are the rules interruptCallback decides beyond
// BRIDGE-INTERRUPT-1.
var interruptRules = []string{"BRIDGE-INTERRUPT-2", "BRIDGE-INTERRUPT-3", "BRIDGE-INTERRUPT-4"}

// interruptCallback starts a turn that asks for a tool permission, leaves
// the can_use_tool callback unanswered, interrupts the session, then
// answers the callback allow (too late): the backend is to have answered
// session.interrupted, resolved the callback (the late answer finds none),
// run no tool for the turn, ended the turn with a result and kept the
// session.
func interruptCallback(e *scenario.Env) error {
	b, err := start(e, Never)
	if err != nil {
		return err
	}
	s, _, err := b.create(b.prompt, toolOptions())
	if err != nil || s == nil {
		return err
	}
	asked := func(in *peer.Inbound) bool {
		return str(in, "/type") == "callback.request" && str(in, "/payload/callback_type") == "can_use_tool"
	}
	t := b.collectUntil(s, b.turn, asked)
	if t.gone() {
		return t.err
	}
	cbs := t.canUseTool()
	if len(cbs) == 0 {
		if t.result == nil {
			b.judgeStream(s, t, false, "session.create")
		}
		why := noToolWhy
		if cause := t.failure(e); cause != "" {
			why = "no can_use_tool callback.request arrived: " + cause
		}
		for _, r := range append([]string{"BRIDGE-INTERRUPT-1"}, interruptRules...) {
			e.Skip(r, why)
		}
		return b.kill(s)
	}
	cb := cbs[0]
	cbID := str(cb, "/id")
	in, ic, err := b.request(s, "session.interrupt", map[string]any{}, "BRIDGE-INTERRUPT-1", interruptedWant(s))
	if err != nil {
		return err
	}
	b.judgeInterrupted(s, in)
	answeredAt := ic.Seq
	if in != nil {
		answeredAt = in.Seq
	}

	// The client's answer arrives after the interrupt: allow, as a user
	// clicking approve on a prompt the interrupt should have withdrawn.
	c, err := e.Send(map[string]any{"type": "callback.response", "id": cbID, "session_id": s.id,
		"payload": map[string]any{"behavior": "allow", "updated_input": field(cb, "/payload/tool_input")}})
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	// A backend known to leave a callback.response for no pending
	// callback unanswered says nothing by leaving this one unanswered.
	notFoundWhy := e.Cause(depNotFound)
	wait := e.Timeout
	if notFoundWhy != "" {
		wait = 0
	}
	late, werr := e.Response(c, wait)
	if werr != nil {
		// A callback.response that is taken has no answer of its own.
		e.Forget(c)
		if errors.Is(werr, peer.ErrExited) {
			return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
		}
	}
	rest := b.collect(s, b.turn)
	if rest.gone() {
		return rest.err
	}

	// A callback the backend's own timeout ended before the interrupt came
	// was no longer pending: nothing here is then about the interrupt.
	for _, er := range append(t.errors, rest.errors...) {
		if str(er, "/payload/code") == "CALLBACK_TIMEOUT" && er.Seq < answeredAt {
			why := fmt.Sprintf("the backend's callback timeout ended callback %s (transcript line %d) before session.interrupt reached it, "+
				"so an interrupt with a pending callback was not observed (the backend's callback timeout is shorter than one round trip of wirecheck)", cbID, er.Seq)
			for _, r := range interruptRules {
				e.Skip(r, why)
			}
			return b.kill(s)
		}
	}

	// BRIDGE-INTERRUPT-3: the late answer finds no pending callback.
	switch {
	case late == nil && notFoundWhy != "":
		e.Skip("BRIDGE-INTERRUPT-3", scenario.NotWaited(fmt.Sprintf("an answer to the callback.response for %s sent after session.interrupted", cbID), notFoundWhy))
	case late == nil:
		e.Fail("BRIDGE-INTERRUPT-3", c.Seq, fmt.Sprintf("the callback.response for %s sent after session.interrupted got no answer within %s (--timeout): "+
			"the backend still held the callback as pending and took the answer", cbID, e.Timeout),
			"error CALLBACK_NOT_FOUND with id "+show(cbID), "nothing")
	case kindName(late) == "error" && str(late, "/payload/code") == "CALLBACK_NOT_FOUND":
		e.Pass("BRIDGE-INTERRUPT-3", late.Seq)
	default:
		e.Fail("BRIDGE-INTERRUPT-3", late.Seq, fmt.Sprintf("the callback.response for %s sent after session.interrupted was not answered error CALLBACK_NOT_FOUND", cbID),
			"error CALLBACK_NOT_FOUND with id "+show(cbID), string(late.Raw))
	}

	// BRIDGE-INTERRUPT-2: nothing of the turn ran after the interrupt.
	ran := false
	for _, f := range rest.frames {
		if str(f, "/payload/type") != "user" {
			continue
		}
		blocks, _ := field(f, "/payload/message/content").([]any)
		for _, bl := range blocks {
			if m, _ := bl.(map[string]any); m != nil && m["type"] == "tool_result" && m["is_error"] != true {
				e.Fail("BRIDGE-INTERRUPT-2", f.Seq, fmt.Sprintf("a tool ran in the turn interrupted while callback %s was pending: its tool_result is not an error", cbID),
					"no tool run after session.interrupted (the pending tool refused, or no tool_result at all)", show(m))
				ran = true
			}
		}
	}
	for _, more := range rest.canUseTool() {
		e.Fail("BRIDGE-INTERRUPT-2", more.Seq, "the interrupted turn went on to ask for another tool permission",
			"no further callback.request of the interrupted turn", string(more.Raw))
		ran = true
	}
	if !ran {
		at := ic.Seq
		if rest.result != nil {
			at = rest.result.Seq
		}
		e.Pass("BRIDGE-INTERRUPT-2", at)
	}

	// BRIDGE-INTERRUPT-4: the turn ended, and the session takes another.
	if rest.result == nil {
		e.Fail("BRIDGE-INTERRUPT-4", ic.Seq, fmt.Sprintf("the turn interrupted while callback %s was pending brought no result message %s", cbID, rest.how(b.turn, "--param turn_timeout")),
			"a result sdk.message (subtype error_* fits) after session.interrupted", fmt.Sprintf("%d sdk.message frame(s) of the session", len(rest.frames)))
	}
	sc, err := b.send(s, plainPrompt)
	if err != nil {
		return err
	}
	bound, why := b.sendBound()
	next, ans := b.collectAnswered(s, bound, sc)
	if ans == nil {
		b.sent(s, next, bound)
	}
	if next.gone() {
		return next.err
	}
	if next.result == nil && ans == nil && why != "" {
		e.Skip("BRIDGE-INTERRUPT-4", scenario.NotWaited("the turn session.send should start after the interrupt", why))
		return b.kill(s)
	}
	if next.result != nil {
		if rest.result != nil {
			e.Pass("BRIDGE-INTERRUPT-4", next.result.Seq)
		}
		return b.kill(s)
	}
	if ans != nil {
		e.Fail("BRIDGE-INTERRUPT-4", ans.Seq, fmt.Sprintf("after the interrupt, session.send to session %q was answered with an error instead of continuing its stream", s.id),
			"the interrupted session still takes session.send and streams to a result", string(ans.Raw))
		if str(ans, "/payload/code") == "SESSION_NOT_FOUND" {
			return nil // the backend forgot the session: nothing left to kill
		}
		return b.kill(s)
	}
	e.Fail("BRIDGE-INTERRUPT-4", sc.Seq, fmt.Sprintf("after the interrupt, session.send to session %q did not stream to a result %s", s.id, next.how(bound, "--param turn_timeout")),
		"the interrupted session still takes session.send and streams to a result", fmt.Sprintf("%d sdk.message frame(s) of the session", len(next.frames)))
	return b.kill(s)
}

// hookBlock configures a PreToolUse hook for Bash, answers it with
// decision block and every permission with allow: the blocked tool must
// not run.
func hookBlock(e *scenario.Env) error {
	b, err := start(e, Allow)
	if err != nil {
		return err
	}
	b.a.Block = map[string]bool{"PreToolUse": true}
	opts := toolOptions()
	opts["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash"}}}
	s, _, err := b.create(b.prompt, opts)
	if err != nil || s == nil {
		return err
	}
	t := b.collect(s, b.turn)
	if t.gone() {
		return t.err
	}
	var blocked []*peer.Inbound
	for _, c := range t.callbacks {
		if str(c, "/payload/callback_type") == "hook" && str(c, "/payload/hook_event") == "PreToolUse" {
			blocked = append(blocked, c)
		}
	}
	switch {
	case len(blocked) == 0 && len(t.canUseTool()) == 0 && t.result != nil:
		e.Skip("BRIDGE-HOOK-BLOCK-1", "no PreToolUse hook callback.request arrived and the turn used no tool, so a blocked tool was not observed "+
			"(a real backend asks only when its model wants a tool: pass a prompt that makes it use one with --param prompt=TEXT)")
		return b.kill(s)
	case len(blocked) == 0:
		why := "a PreToolUse hook was configured for Bash, but no PreToolUse hook callback.request arrived"
		switch cause := t.failure(e); {
		case len(t.canUseTool()) > 0:
			why += " although the turn asked for a tool permission"
		case cause != "":
			why += " (" + cause + ")"
		}
		e.Skip("BRIDGE-HOOK-BLOCK-1", why+", so a blocked tool was not observed (BRIDGE-HOOK-1 judges whether hooks reach the client)")
		if t.result == nil {
			b.judgeStream(s, t, false, "session.create")
		}
		return b.kill(s)
	case t.result == nil:
		b.judgeStream(s, t, false, "session.create")
		e.Skip("BRIDGE-HOOK-BLOCK-1", "the turn whose PreToolUse hook was answered block did not end, so whether the tool ran was not settled")
		return b.kill(s)
	}
	ok := true
	for _, h := range blocked {
		res, at := t.toolResult(h)
		if res != nil && res["is_error"] != true {
			e.Fail("BRIDGE-HOOK-BLOCK-1", at.Seq, fmt.Sprintf("the tool ran although wirecheck answered its PreToolUse hook %s with decision block", str(h, "/id")),
				"no tool_result, or one with is_error true (the block)", show(res))
			ok = false
		}
	}
	if ok {
		e.Pass("BRIDGE-HOOK-BLOCK-1", t.result.Seq)
	}
	return b.kill(s)
}
