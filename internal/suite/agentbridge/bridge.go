// Package agentbridge holds the agent-bridge scenarios: everything that
// follows a session's sdk.message stream, answers the backend's
// callback.request frames by a policy, or judges one session against
// another.
//
// sdk.message frames carry only the session's id, not the id of the request
// that caused them: the peer delivers them as notifications, and a scenario
// collects one session's frames with Peer.NextWhere until the turn's result
// message (a bounded wait), leaving other sessions' frames queued.
package agentbridge

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// Params the scenarios read (--param KEY=VALUE).
const (
	// ParamPrompt is the prompt that makes the backend use a tool.
	ParamPrompt = "prompt"
	// ParamCallback is the callback policy of the scenarios that do not
	// judge one policy: allow, deny, allow-updated or never.
	ParamCallback = "callback"
	// ParamCallbackTimeout bounds the wait for CALLBACK_TIMEOUT after an
	// unanswered callback.request (default five times --timeout).
	ParamCallbackTimeout = "callback_timeout"
	// ParamTurnTimeout bounds one turn, from the request that starts it to
	// its result message (default three times --timeout).
	ParamTurnTimeout = "turn_timeout"
	// ParamCwd is the working directory sent in session.create (default the
	// system temporary directory).
	ParamCwd = "cwd"
)

// DefaultPrompt asks for one harmless tool use.
const DefaultPrompt = "Use the Bash tool to run the command `echo wirecheck` and tell me what it printed."

// plainPrompt needs no tool.
const plainPrompt = "Reply with one word: ready."

// noToolWhy explains a skipped callback rule.
const noToolWhy = "no can_use_tool callback.request arrived, so how the backend carries an answer through was not observed " +
	"(a real backend asks only when its model wants a tool: pass a prompt that makes it use one with --param prompt=TEXT)"

// bridge is one scenario's view of the backend.
type bridge struct {
	e      *scenario.Env
	a      *Answerer
	cwd    string
	prompt string
	turn   time.Duration
	cb     time.Duration
}

// start sets the scenario's callback policy and reads the params.
func start(e *scenario.Env, p Policy) (*bridge, error) {
	b := &bridge{e: e, a: NewAnswerer(p), cwd: os.TempDir(), prompt: DefaultPrompt,
		turn: 3 * e.Timeout, cb: 5 * e.Timeout}
	if v := e.Params[ParamCwd]; v != "" {
		b.cwd = v
	}
	if v := e.Params[ParamPrompt]; v != "" {
		b.prompt = v
	}
	for key, d := range map[string]*time.Duration{ParamTurnTimeout: &b.turn, ParamCallbackTimeout: &b.cb} {
		if v := e.Params[key]; v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return nil, fmt.Errorf("--param %s=%q: want a duration such as 30s", key, v)
			}
			*d = t
		}
	}
	e.Peer.SetHandler(b.a.Handle)
	return b, nil
}

// userPolicy is the policy the user picked.
func userPolicy(e *scenario.Env) (Policy, error) { return ParsePolicy(e.Params[ParamCallback]) }

// session is one session the scenario created.
type session struct {
	id, sdkID string
	init      string // model named by system/init, if any
	created   int    // transcript line of session.created
	turns     int
	cbIDs     map[string]bool
}

// turn is what one turn of a session sent, up to its result.
type turn struct {
	frames    []*peer.Inbound // sdk.message frames, in order
	callbacks []*peer.Inbound
	errors    []*peer.Inbound
	result    *peer.Inbound
	err       error
}

func field(in *peer.Inbound, ptr string) any {
	if in == nil {
		return nil
	}
	v, _ := in.Field(ptr)
	return v
}

func str(in *peer.Inbound, ptr string) string {
	s, _ := field(in, ptr).(string)
	return s
}

func show(v any) string { return scenario.Show(v, 300) }

func kindName(in *peer.Inbound) string {
	if in == nil || in.Kind == nil {
		return "(unclassified)"
	}
	return in.Kind.Name
}

// create sends session.create; the session is nil when the backend did not
// answer session.created (BRIDGE-CREATE-1 is judged here).
func (b *bridge) create(prompt string, options map[string]any) (*session, *peer.Inbound, error) {
	payload := map[string]any{"prompt": prompt, "cwd": b.cwd}
	if options != nil {
		payload["options"] = options
	}
	in, _, err := b.e.Call(map[string]any{"type": "session.create", "id": scenario.NextID("create"), "payload": payload})
	if err != nil {
		return nil, nil, err
	}
	if kindName(in) != "session.created" || str(in, "/session_id") == "" {
		b.e.Fail("BRIDGE-CREATE-1", in.Seq, "session.create was not answered session.created with a session_id",
			"session.created", string(in.Raw))
		return nil, in, nil
	}
	b.e.Pass("BRIDGE-CREATE-1", in.Seq)
	return &session{id: str(in, "/session_id"), sdkID: str(in, "/payload/sdk_session_id"), created: in.Seq, cbIDs: map[string]bool{}}, in, nil
}

// mine says whether a queued frame belongs to the session: its session_id,
// or the id of one of its callbacks (an error about that callback).
func (s *session) mine(in *peer.Inbound) bool {
	if sid, _ := in.Field("/session_id"); sid == s.id {
		return true
	}
	id, _ := in.Field("/id")
	ids, _ := id.(string)
	return ids != "" && s.cbIDs[ids]
}

// depSend names what a session.send should start: a turn. A backend that
// started none once (it ignores session.send) starts none the next time,
// so later waits for one end at once (scenario.Causes).
const depSend = "a turn after session.send"

// sendBound is how long to wait for the turn a session.send starts: the
// turn bound, or nothing when an earlier session.send of the lane started
// no turn (why names it).
func (b *bridge) sendBound() (bound time.Duration, why string) {
	if why := b.e.Cause(depSend); why != "" {
		return 0, why
	}
	return b.turn, ""
}

// sent records what a turn after session.send showed: none at all teaches
// the lane that the backend ignores session.send.
func (b *bridge) sent(s *session, t *turn, bound time.Duration) {
	if bound > 0 && t.result == nil && len(t.frames) == 0 && len(t.callbacks) == 0 && len(t.errors) == 0 {
		b.e.Learn(depSend, fmt.Sprintf("session.send to live session %q in scenario %s started no turn within %s", s.id, b.e.Peer.Scenario(), bound))
	}
}

// collect follows the session's frames until a result sdk.message or the
// bound, judging BRIDGE-SESSIONS-1 on each SDK message.
func (b *bridge) collect(s *session, bound time.Duration) *turn { return b.collectUntil(s, bound, nil) }

// collectUntil is collect that also stops after the first frame for which
// until (when set) holds.
func (b *bridge) collectUntil(s *session, bound time.Duration, until func(*peer.Inbound) bool) *turn {
	t := &turn{}
	b.collectInto(t, s, bound, until)
	return t
}

// collectAnswered is collect after a session.send, which a live session
// does not answer: it also stops when the send is answered (an error), and
// returns that answer.
func (b *bridge) collectAnswered(s *session, bound time.Duration, c *peer.Call) (*turn, *peer.Inbound) {
	t := &turn{}
	deadline := time.Now().Add(bound)
	for {
		t.err = nil
		b.collectInto(t, s, min(100*time.Millisecond, time.Until(deadline)), nil)
		if ans, err := b.e.Peer.Wait(c, time.Millisecond); err == nil {
			return t, ans
		}
		if t.result != nil || (t.err != nil && !errors.Is(t.err, peer.ErrTimeout)) || !time.Now().Before(deadline) {
			return t, nil
		}
	}
}

// collectInto adds the session's frames to t, up to a result sdk.message,
// the first frame for which until holds, or the bound.
func (b *bridge) collectInto(t *turn, s *session, bound time.Duration, until func(*peer.Inbound) bool) {
	deadline := time.Now().Add(bound)
	for {
		in, err := b.e.Peer.NextWhere(time.Until(deadline), s.mine)
		if err != nil {
			t.err = err
			if errors.Is(err, peer.ErrExited) {
				t.err = fmt.Errorf("%w: %s", scenario.ErrGone, b.e.Gone())
			}
			return
		}
		switch str(in, "/type") {
		case "sdk.message":
			t.frames = append(t.frames, in)
			b.sameSession(s, in)
			if str(in, "/payload/type") == "result" {
				t.result = in
				s.turns++
				return
			}
		case "callback.request":
			if id := str(in, "/id"); id != "" {
				s.cbIDs[id] = true
			}
			t.callbacks = append(t.callbacks, in)
		case "error":
			t.errors = append(t.errors, in)
		}
		if until != nil && until(in) {
			return
		}
	}
}

// sameSession judges that an SDK message under the session's id comes from
// its SDK session.
func (b *bridge) sameSession(s *session, in *peer.Inbound) {
	got, has := in.Field("/payload/session_id")
	if !has || s.sdkID == "" {
		return
	}
	if got != s.sdkID {
		b.e.Fail("BRIDGE-SESSIONS-1", in.Seq,
			fmt.Sprintf("an sdk.message under session_id %q carries the SDK session %s, not the one session.created announced", s.id, show(got)),
			"payload.session_id "+show(s.sdkID), "payload.session_id "+show(got))
		return
	}
	b.e.Pass("BRIDGE-SESSIONS-1", in.Seq)
}

// judgeStream decides BRIDGE-STREAM-1 (and, on a session's first turn,
// BRIDGE-STREAM-2) on a collected turn.
func (b *bridge) judgeStream(s *session, t *turn, first bool, what string) {
	if t.result == nil {
		why := fmt.Sprintf("no result sdk.message for session %q within %s after %s", s.id, b.turn, what)
		if t.err != nil && !errors.Is(t.err, peer.ErrTimeout) {
			why += ": " + t.err.Error()
		}
		b.e.Fail("BRIDGE-STREAM-1", -1, why, "sdk.message frames with the session's id, ending with a result message",
			fmt.Sprintf("%d sdk.message frame(s) of the session", len(t.frames)))
		return
	}
	early := false
	for _, f := range t.frames {
		if f.Seq < s.created {
			b.e.Fail("BRIDGE-STREAM-1", f.Seq, fmt.Sprintf("an sdk.message of session %q arrived before its session.created (transcript line %d)", s.id, s.created),
				"session.created first, then the session's sdk.message stream", string(f.Raw))
			early = true
			break
		}
	}
	if !early {
		b.e.Pass("BRIDGE-STREAM-1", t.result.Seq)
	}
	if !first {
		return
	}
	if f := t.frames[0]; str(f, "/payload/type") != "system" || str(f, "/payload/subtype") != "init" {
		b.e.Fail("BRIDGE-STREAM-2", f.Seq, "the session's first sdk.message is not system/init",
			"system/init first", string(f.Raw))
		return
	}
	b.e.Pass("BRIDGE-STREAM-2", t.frames[0].Seq)
	if m := str(t.frames[0], "/payload/model"); m != "" {
		s.init = m
	}
}

// quiet judges that nothing of the session's stream arrived since its
// result, before the next request (BRIDGE-STREAM-2).
func (b *bridge) quiet(s *session) {
	in, err := b.e.Peer.NextWhere(0, func(in *peer.Inbound) bool {
		t, _ := in.Field("/type")
		return t == "sdk.message" && s.mine(in)
	})
	if err == nil {
		b.e.Fail("BRIDGE-STREAM-2", in.Seq, "an sdk.message followed the turn's result before any session.send",
			"nothing after the result message until the next session.send", string(in.Raw))
	}
}

// send sends session.send, which has no response of its own: the stream
// continues. A response that does come (an error) is still correlated.
func (b *bridge) send(s *session, message string) (*peer.Call, error) {
	c, err := b.e.Send(map[string]any{"type": "session.send", "id": scenario.NextID("send"), "session_id": s.id,
		"payload": map[string]any{"message": message}})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	b.e.Peer.Forget(c)
	return c, nil
}

// request sends a message that names the session and waits for its answer.
func (b *bridge) request(s *session, typ string, payload map[string]any) (*peer.Inbound, error) {
	in, _, err := b.e.Call(map[string]any{"type": typ, "id": scenario.NextID(strings.TrimPrefix(typ, "session.")), "session_id": s.id, "payload": payload})
	return in, err
}

// kill ends a session, judging BRIDGE-KILL-1 on the answer.
func (b *bridge) kill(s *session) error {
	in, err := b.request(s, "session.kill", map[string]any{})
	if err != nil {
		return err
	}
	if kindName(in) != "session.killed" || str(in, "/session_id") != s.id {
		b.e.Fail("BRIDGE-KILL-1", in.Seq, fmt.Sprintf("session.kill of live session %q was not answered session.killed with its session_id", s.id),
			"session.killed with session_id "+show(s.id), string(in.Raw))
		return nil
	}
	b.e.Pass("BRIDGE-KILL-1", in.Seq)
	return nil
}

// canUseTool returns the turn's can_use_tool callbacks.
func (t *turn) canUseTool() []*peer.Inbound {
	var out []*peer.Inbound
	for _, c := range t.callbacks {
		if str(c, "/payload/callback_type") == "can_use_tool" {
			out = append(out, c)
		}
	}
	return out
}

// toolResult finds the tool_result block that follows a callback: the one
// for its tool_use_id, or the first after it when the callback names none.
func (t *turn) toolResult(cb *peer.Inbound) (map[string]any, *peer.Inbound) {
	want := str(cb, "/payload/tool_use_id")
	for _, f := range t.frames {
		if f.Seq < cb.Seq || str(f, "/payload/type") != "user" {
			continue
		}
		blocks, _ := field(f, "/payload/message/content").([]any)
		for _, bl := range blocks {
			m, _ := bl.(map[string]any)
			if m == nil || m["type"] != "tool_result" {
				continue
			}
			if want == "" || m["tool_use_id"] == want {
				return m, f
			}
		}
	}
	return nil, nil
}

// failure describes what ended a turn other than a model that chose no
// tool: the backend gone, error frames (a CLI the backend drives that
// died), an error result; with the backend's last stderr lines. "" when
// the turn shows none.
func (t *turn) failure(e *scenario.Env) string {
	var parts []string
	if t.err != nil && !errors.Is(t.err, peer.ErrTimeout) {
		parts = append(parts, t.err.Error())
	}
	for _, in := range t.errors {
		parts = append(parts, fmt.Sprintf("the backend sent error %s: %s", str(in, "/payload/code"), str(in, "/payload/message")))
	}
	if r := t.result; r != nil && (field(r, "/payload/is_error") == true || str(r, "/payload/subtype") != "success") {
		parts = append(parts, "the turn's result is an error ("+show(field(r, "/payload/subtype"))+")")
	}
	if len(parts) == 0 {
		return ""
	}
	if e.Peer != nil {
		if tail := e.Peer.StderrTail(); len(tail) > 0 {
			parts = append(parts, "last stderr: "+strings.Join(tail[max(0, len(tail)-3):], " | "))
		}
	}
	return strings.Join(parts, "; ")
}

// judgeCallbacks decides the rule of the answering policy on a turn that
// ran with it.
func (b *bridge) judgeCallbacks(s *session, t *turn, p Policy) {
	rules := map[Policy][]string{
		Allow: {"BRIDGE-CB-ALLOW-1"}, AllowUpdated: {"BRIDGE-CB-ALLOW-1", "BRIDGE-CB-UPDATED-1"},
		Deny: {"BRIDGE-CB-DENY-1"}, Never: {"BRIDGE-CB-TIMEOUT-1"},
	}[p]
	cbs := t.canUseTool()
	if len(cbs) == 0 {
		why := noToolWhy
		if cause := t.failure(b.e); cause != "" {
			// The prompt is not why no tool was asked for: name what went wrong.
			why = "no can_use_tool callback.request arrived: " + cause
		}
		if len(t.callbacks) > 0 {
			why = fmt.Sprintf("the backend sent %d callback.request(s), none with callback_type can_use_tool, so a tool permission was not observed", len(t.callbacks))
		}
		for _, r := range rules {
			b.e.Skip(r, why)
		}
		return
	}
	for _, cb := range cbs {
		if p == Never {
			b.judgeTimeout(s, t, cb)
			continue
		}
		res, at := t.toolResult(cb)
		if res == nil {
			for _, r := range rules {
				b.e.Fail(r, cb.Seq, fmt.Sprintf("no tool_result followed the %s answer to callback %s (tool %q)", p, str(cb, "/id"), str(cb, "/payload/tool_name")),
					"a user sdk.message with the tool's tool_result", fmt.Sprintf("%d sdk.message frame(s), result %v", len(t.frames), t.result != nil))
			}
			continue
		}
		isErr := res["is_error"] == true
		switch p {
		case Deny:
			if isErr {
				b.e.Pass("BRIDGE-CB-DENY-1", at.Seq)
			} else {
				b.e.Fail("BRIDGE-CB-DENY-1", at.Seq, "the tool ran although wirecheck denied it: its tool_result is not an error",
					"a tool_result with is_error true (the denial)", show(res))
			}
		default:
			if isErr {
				b.e.Fail("BRIDGE-CB-ALLOW-1", at.Seq, "wirecheck allowed the tool but its tool_result is an error (the allow was not carried through)",
					"a tool_result that is not an error", show(res))
			} else {
				b.e.Pass("BRIDGE-CB-ALLOW-1", at.Seq)
			}
			if p != AllowUpdated {
				continue
			}
			if in, _ := field(cb, "/payload/tool_input").(map[string]any); in == nil || in["command"] == nil {
				b.e.Skip("BRIDGE-CB-UPDATED-1", "the tool's input has no command, so the updated input cannot be recognised in its result")
				continue
			}
			if strings.Contains(show(res["content"]), UpdatedMarker) {
				b.e.Pass("BRIDGE-CB-UPDATED-1", at.Seq)
			} else {
				b.e.Fail("BRIDGE-CB-UPDATED-1", at.Seq, "the tool ran with its original input, not the updated_input wirecheck answered",
					"a tool result of `"+UpdatedCommand+"` (containing "+UpdatedMarker+")", show(res))
			}
		}
	}
}

// judgeTimeout decides BRIDGE-CB-TIMEOUT-1 for one unanswered callback.
func (b *bridge) judgeTimeout(s *session, t *turn, cb *peer.Inbound) {
	for _, e := range t.errors {
		if e.Seq < cb.Seq || str(e, "/payload/code") != "CALLBACK_TIMEOUT" {
			continue
		}
		if id := str(e, "/id"); id != "" && id != str(cb, "/id") {
			continue
		}
		if d := e.At.Sub(cb.At); d > b.cb {
			b.e.Fail("BRIDGE-CB-TIMEOUT-1", e.Seq, fmt.Sprintf("CALLBACK_TIMEOUT came %s after the callback.request, later than the bound %s", d.Round(time.Millisecond), b.cb),
				"error CALLBACK_TIMEOUT within "+b.cb.String()+" (--param callback_timeout)", string(e.Raw))
			return
		}
		b.e.Pass("BRIDGE-CB-TIMEOUT-1", e.Seq)
		return
	}
	b.e.Fail("BRIDGE-CB-TIMEOUT-1", cb.Seq, fmt.Sprintf("callback %s was never answered and no error CALLBACK_TIMEOUT followed within %s", str(cb, "/id"), b.cb),
		"error CALLBACK_TIMEOUT for the session within "+b.cb.String()+" (--param callback_timeout)", "nothing")
}
