package agentbridge

import (
	"fmt"
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
			lifecycle, "BRIDGE-CREATE-1", "BRIDGE-STREAM-1", "BRIDGE-STREAM-2", "BRIDGE-SEND-1", "BRIDGE-KILL-1"),
		s("callback-allow", "a can_use_tool callback answered allow: the tool runs", policyRun(Allow), "BRIDGE-CB-ALLOW-1"),
		s("callback-deny", "a can_use_tool callback answered deny: the tool is refused", policyRun(Deny), "BRIDGE-CB-DENY-1"),
		s("callback-allow-updated", "a can_use_tool callback answered allow with updated_input: the tool runs with it",
			policyRun(AllowUpdated), "BRIDGE-CB-UPDATED-1"),
		s("callback-never", "a can_use_tool callback never answered: error CALLBACK_TIMEOUT", policyRun(Never), "BRIDGE-CB-TIMEOUT-1"),
		s("partial-messages", "include_partial_messages on: stream_event messages", partial, "BRIDGE-PARTIAL-1"),
		s("options", "session.create with every option the document lists, hooks on every hook event", options,
			"BRIDGE-OPTIONS-1", "BRIDGE-HOOK-1"),
		s("query-methods", "query.call of every method the document lists, and of one that fails", queries,
			"BRIDGE-QUERY-1", "BRIDGE-QUERY-2"),
		s("interrupt-kill", "session.interrupt and session.kill, then every message for the killed session", interruptKill,
			"BRIDGE-INTERRUPT-1", "BRIDGE-KILL-1", "BRIDGE-KILL-2"),
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
	b, err := start(e, p)
	if err != nil {
		return err
	}
	s, _, err := b.create(b.prompt, toolOptions())
	if err != nil || s == nil {
		return err
	}
	bound := b.turn
	if p == Never {
		bound += b.cb
	}
	t := b.collect(s, bound)
	b.judgeStream(s, t, true, "session.create")
	b.judgeCallbacks(s, t, p)
	if t.result == nil {
		e.Skip("BRIDGE-SEND-1", "the first turn never ended, so session.send was not tried")
		return b.kill(s)
	}
	b.quiet(s)
	if _, err := b.send(s, plainPrompt); err != nil {
		return err
	}
	t2 := b.collect(s, b.turn)
	if t2.result == nil {
		e.Fail("BRIDGE-SEND-1", -1, fmt.Sprintf("session.send to live session %q did not continue its stream up to a result within %s", s.id, b.turn),
			"sdk.message frames of the session ending with a result", fmt.Sprintf("%d sdk.message frame(s)", len(t2.frames)))
	} else {
		e.Pass("BRIDGE-SEND-1", t2.result.Seq)
	}
	return b.kill(s)
}

// policyRun judges one answering policy on one tool use.
func policyRun(p Policy) func(*scenario.Env) error {
	return func(e *scenario.Env) error {
		b, err := start(e, p)
		if err != nil {
			return err
		}
		s, _, err := b.create(b.prompt, toolOptions())
		if err != nil || s == nil {
			return err
		}
		bound := b.turn
		if p == Never {
			bound += b.cb
		}
		t := b.collect(s, bound)
		if t.result == nil && len(t.canUseTool()) == 0 {
			b.judgeStream(s, t, false, "session.create")
		}
		b.judgeCallbacks(s, t, p)
		return b.kill(s)
	}
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
	b.judgeStream(s, t, false, "session.create")
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
	if s == nil {
		e.Fail("BRIDGE-OPTIONS-1", in.Seq, "session.create with every option the document lists was not answered session.created",
			"session.created", string(in.Raw))
		e.Skip("BRIDGE-HOOK-1", "no session, so no hook could run")
		return nil
	}
	e.Pass("BRIDGE-OPTIONS-1", in.Seq)
	t := b.collect(s, b.turn)
	hooked := false
	for _, c := range t.callbacks {
		if str(c, "/payload/callback_type") == "hook" {
			e.Pass("BRIDGE-HOOK-1", c.Seq)
			hooked = true
		}
	}
	if !hooked {
		if t.result == nil {
			e.Fail("BRIDGE-HOOK-1", -1, "no hook callback.request arrived and the turn did not end within "+b.turn.String(),
				"hook callback.requests for the configured events", fmt.Sprintf("%d callback(s), %d sdk.message frame(s)", len(t.callbacks), len(t.frames)))
		} else {
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
		in, err := b.request(s, "query.call", map[string]any{"method": m, "args": a})
		if err != nil {
			return err
		}
		answered := kindName(in) == "query.result" && str(in, "/session_id") == s.id
		failed := kindName(in) == "error" && str(in, "/payload/code") == "QUERY_METHOD_FAILED"
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
	in, err := b.request(s, "session.interrupt", map[string]any{})
	if err != nil {
		return err
	}
	if kindName(in) == "session.interrupted" && str(in, "/session_id") == s.id {
		e.Pass("BRIDGE-INTERRUPT-1", in.Seq)
	} else {
		e.Fail("BRIDGE-INTERRUPT-1", in.Seq, fmt.Sprintf("session.interrupt of live session %q was not answered session.interrupted with its session_id", s.id),
			"session.interrupted with session_id "+show(s.id), string(in.Raw))
	}
	if err := b.kill(s); err != nil {
		return err
	}
	notFound := func(what string, in *peer.Inbound) {
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
	if in, err := e.Peer.Wait(c, e.Timeout); err != nil {
		e.Fail("BRIDGE-KILL-2", c.Seq, fmt.Sprintf("session.send for killed session %q got no answer within %s", s.id, e.Timeout),
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
		in, err := b.request(s, m.typ, m.payload)
		if err != nil {
			return err
		}
		notFound(m.typ, in)
	}
	if in, err := e.Peer.NextWhere(20*time.Millisecond, func(in *peer.Inbound) bool {
		t, _ := in.Field("/type")
		sid, _ := in.Field("/session_id")
		return t == "sdk.message" && sid == s.id
	}); err == nil {
		e.Fail("BRIDGE-KILL-2", in.Seq, fmt.Sprintf("an sdk.message of session %q arrived after session.killed", s.id),
			"no message of a killed session", string(in.Raw))
	}
	return nil
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
	ta, tc := b.collect(a, b.turn), b.collect(c, b.turn)
	if ta.result == nil || tc.result == nil {
		e.Fail("BRIDGE-SESSIONS-1", -1, "with two sessions open, a session's turn did not end with a result under its own session_id",
			"each session's stream under its own session_id", fmt.Sprintf("first: %d frame(s), result %v; second: %d frame(s), result %v",
				len(ta.frames), ta.result != nil, len(tc.frames), tc.result != nil))
	} else {
		e.Pass("BRIDGE-SESSIONS-1", tc.result.Seq)
	}
	if err := b.kill(a); err != nil {
		return err
	}
	in, err := b.request(c, "query.call", map[string]any{"method": "supportedModels", "args": []any{}})
	if err != nil {
		return err
	}
	if kindName(in) != "query.result" {
		e.Fail("BRIDGE-SESSIONS-2", in.Seq, fmt.Sprintf("after session %q was killed, session %q no longer answers query.call", a.id, c.id),
			"query.result for the live session", string(in.Raw))
		return nil
	}
	if _, err := b.send(c, plainPrompt); err != nil {
		return err
	}
	t := b.collect(c, b.turn)
	if t.result == nil {
		e.Fail("BRIDGE-SESSIONS-2", -1, fmt.Sprintf("after session %q was killed, session.send to session %q did not stream to a result within %s", a.id, c.id, b.turn),
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
	in, _, err := e.Call(map[string]any{"type": "session.create", "id": scenario.NextID("create"),
		"payload": map[string]any{"prompt": plainPrompt, "cwd": b.cwd}})
	if err != nil {
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
