// Package agentbridge holds the agent-bridge scenarios: everything that
// follows a session's sdk.message stream, answers the backend's
// callback.request frames by a policy, or judges one session against
// another.
//
// sdk.message frames carry only the session's id, not the id of the request
// that caused them: the peer delivers them as notifications, and a scenario
// collects one session's frames with Env.NextFrame until the turn's result
// message (a bounded wait), leaving other sessions' frames queued.
package agentbridge

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Params the scenarios read (--param KEY=VALUE).
const (
	// ParamPrompt is the prompt that makes the backend use a tool.
	ParamPrompt = "prompt"
	// ParamCallback is the callback policy of the scenarios that do not
	// judge one policy: allow, deny, allow-updated or never.
	ParamCallback = "callback"
	// ParamCallbackTimeout bounds the wait for CALLBACK_TIMEOUT after an
	// unanswered callback.request (default DefaultCallbackTimeout).
	ParamCallbackTimeout = "callback_timeout"
	// ParamTurnTimeout bounds one turn, from the request that starts it to
	// its result message, and the answer to session.create (default
	// TurnTimeouts times --timeout).
	ParamTurnTimeout = "turn_timeout"
	// ParamCwd is the working directory sent in session.create (default the
	// system temporary directory).
	ParamCwd = "cwd"
)

// DefaultCallbackTimeout bounds the wait for CALLBACK_TIMEOUT when --param
// callback_timeout is not given. The document names no number ("Callback
// response not received in time"), so the default is one no plausible
// backend misses, and it does not shrink with --timeout: a backend's
// callback timeout is a choice of its own, not a round trip.
const DefaultCallbackTimeout = 60 * time.Second

// TurnTimeouts is the default bound of a turn in units of --timeout (60s at
// the default 5s). The document bounds no turn, and a real turn waits for a
// model: the default is generous, and scales with --timeout so a fast test
// setup stays fast.
const TurnTimeouts = 12

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
	// open are the sessions created and not killed, in order: an
	// sdk.message without session_id is told to one of them by its SDK
	// session id, or to the only one.
	open []*session
}

// start sets the scenario's callback policy and reads the params.
func start(e *scenario.Env, p Policy) (*bridge, error) {
	b := &bridge{e: e, a: NewAnswerer(p), cwd: os.TempDir(), prompt: DefaultPrompt,
		turn: TurnTimeouts * e.Timeout, cb: DefaultCallbackTimeout}
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
	e.SetHandler(b.a.Handle)
	return b, nil
}

// userPolicy is the policy the user picked.
func userPolicy(e *scenario.Env) (Policy, error) { return ParsePolicy(e.Params[ParamCallback]) }

// session is one session the scenario created.
type session struct {
	b         *bridge
	id, sdkID string
	init      string // model named by system/init, if any
	created   int    // transcript line of session.created
	turns     int
	// system is set once a system message of the session arrived: a result
	// before it cannot end a turn that has not begun.
	system bool
	cbIDs  map[string]bool
}

// turn is what one turn of a session sent, up to its result.
type turn struct {
	frames    []*peer.Inbound // sdk.message frames, in order
	callbacks []*peer.Inbound
	errors    []*peer.Inbound
	result    *peer.Inbound
	// ended is the error frame of the session that ended the turn without
	// a result (the SDK failed: its CLI died), nil when none did.
	ended *peer.Inbound
	// waited is how long the turn was followed, for the messages about
	// what it did not show: the bound when it ran out, less when the
	// backend ended the turn or died first.
	waited time.Duration
	// stray holds result messages that arrived before the session's first
	// system message (BRIDGE-STREAM-2 judges them; the turn goes on).
	stray []*peer.Inbound
	// unasked counts Bash runs without a can_use_tool callback.request
	// (BRIDGE-CB-ASK-1), for the reason a callback rule is skipped.
	unasked int
	err     error
	last    *peer.Inbound // the last frame of the session collected
	lastAt  time.Time     // when it was collected
	// silent is set when the session stayed silent for --timeout after a
	// result taken for a stray: that result ends the turn (settle).
	silent bool
	// silence is how long that silence lasted: the time actually waited
	// past the last frame, for the finding that states the wait.
	silence time.Duration
	// early is set when the turn was taken to end at a result that came
	// before system/init, without waiting for more: why (depEarly).
	early string
}

// settle ends a turn whose bound passed: when the only result that came
// was one taken for a stray (the backend never sent a system message at
// all), that result ends the turn after all.
func (t *turn) settle(s *session) {
	if t.result == nil && len(t.stray) > 0 {
		t.result = t.stray[0]
		s.turns++
	}
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
	id := scenario.NextID("create")
	in, err := b.awaitCreated(map[string]any{"type": "session.create", "id": id, "payload": payload})
	if err != nil || in == nil {
		return nil, nil, err
	}
	created := kindName(in) == "session.created" || kindName(in) == unlabelled
	if !created || str(in, "/session_id") == "" {
		b.e.Fail("BRIDGE-CREATE-1", in.Seq, "session.create was not answered session.created with a session_id",
			"session.created", string(in.Raw))
		return nil, in, nil
	}
	b.e.Pass("BRIDGE-CREATE-1", in.Seq)
	// The title of BRIDGE-CREATED-1 promises the request's id: another id,
	// or none, breaks it even when the frame is otherwise well-formed.
	if got, has := in.Field("/id"); got != id {
		what := "no id"
		if has {
			what = "id " + show(got)
		}
		b.e.Fail("BRIDGE-CREATED-1", in.Seq, fmt.Sprintf("session.created carries %s, not the id of the session.create it answers (%q)", what, id),
			"session.created with id "+show(id), string(in.Raw))
	} else {
		b.e.Pass("BRIDGE-CREATED-1", in.Seq)
	}
	ss := &session{b: b, id: str(in, "/session_id"), sdkID: str(in, "/payload/sdk_session_id"), created: in.Seq, cbIDs: map[string]bool{}}
	b.open = append(b.open, ss)
	return ss, in, nil
}

// unlabelled is the kind of a session.created without an id.
const unlabelled = "session.created-unlabelled"

// awaitCreated sends a session.create and waits for its answer: the
// response with its id, or a session.created without an id, which can only
// answer the session.create in flight (its missing id is judged in
// create). No answer at all fails BRIDGE-CREATE-1. The wait is the turn's
// (--param turn_timeout), not --timeout: sdk_session_id is the SDK's own
// session id, which a backend may only learn once the SDK has started.
func (b *bridge) awaitCreated(msg map[string]any) (*peer.Inbound, error) {
	c, err := b.e.Send(msg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	deadline := time.Now().Add(b.turn)
	for {
		in, err := b.e.Response(c, max(0, min(50*time.Millisecond, time.Until(deadline))))
		if err == nil {
			return in, nil
		}
		if errors.Is(err, peer.ErrExited) {
			return nil, fmt.Errorf("%w: %s", scenario.ErrGone, b.e.Gone())
		}
		if u, _ := b.e.NextFrame(0, func(in *peer.Inbound) bool { return kindName(in) == unlabelled }); u != nil {
			b.e.Forget(c)
			return u, nil
		}
		if !time.Now().Before(deadline) {
			b.unanswered(c, b.turn, "--param turn_timeout", "BRIDGE-CREATE-1", "session.created or error")
			return nil, nil
		}
	}
}

// unanswered reports a request the backend, still running, did not answer
// within --timeout: a failure of rule (the request's own contract) and of
// BRIDGE-RESPONSE-1's timeliness. The scenario goes on: the backend is not
// gone, and calling it so would hide which promise it broke.
func (b *bridge) unanswered(c *peer.Call, bound time.Duration, flag, rule, want string) {
	b.e.Forget(c)
	why := fmt.Sprintf("no answer to %s within %s (%s); the backend is still running", c.Describe(), bound, flag)
	b.e.Check(verdict.CheckTimely, verdict.Fail, c.Seq, why, "a response within "+bound.String()+" ("+flag+")", "nothing")
	if rule != "" {
		b.e.Fail(rule, c.Seq, why, want, "nothing")
	}
}

// await sends a message and waits --timeout for its answer; a nil answer
// means none came (already reported against rule by unanswered, or, when
// the lane learned that the backend leaves this type unanswered, skipped
// against rule without a wait: a fault costs one timeout per lane).
func (b *bridge) await(msg map[string]any, rule, want string) (*peer.Inbound, *peer.Call, error) {
	c, err := b.e.Send(msg)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	dep := "an answer to " + c.Method
	if why := b.e.Cause(dep); why != "" {
		if in, err := b.e.Response(c, 0); err == nil {
			return in, c, nil
		}
		b.e.Forget(c)
		msg := scenario.NotWaited("the answer to "+c.Describe(), why)
		b.e.Check(verdict.CheckTimely, verdict.Skip, c.Seq, msg, "", "")
		if rule != "" {
			b.e.Skip(rule, msg)
		}
		return nil, c, nil
	}
	in, err := b.e.Response(c, b.e.Timeout)
	switch {
	case err == nil:
		return in, c, nil
	case errors.Is(err, peer.ErrTimeout):
		select {
		case <-b.e.Exited():
			return nil, c, fmt.Errorf("%w: %s", scenario.ErrGone, b.e.Gone())
		default:
		}
		b.unanswered(c, b.e.Timeout, "--timeout", rule, want)
		// Learned once the probe after the scenario is answered: a
		// backend that hung says nothing of what it leaves unanswered.
		b.e.Suspect(dep, fmt.Sprintf("%s in scenario %s got no answer within %s (--timeout)", c.Describe(), b.e.Scenario(), b.e.Timeout))
		return nil, c, nil
	default:
		return nil, c, fmt.Errorf("%w: %s", scenario.ErrGone, b.e.Gone())
	}
}

// mine says whether a queued frame belongs to the session: its session_id,
// or the id of one of its callbacks (an error about that callback). An
// sdk.message without a session_id (BRIDGE-SDK-1 judges it) is the
// session's when its payload names the session's SDK session, or when no
// other session is open: left unclaimed, it would leave the turn waiting
// for a result that came.
func (s *session) mine(in *peer.Inbound) bool {
	sid, _ := in.Field("/session_id")
	if sid == s.id {
		return true
	}
	id, _ := in.Field("/id")
	if ids, _ := id.(string); ids != "" && s.cbIDs[ids] {
		return true
	}
	if sid != nil && sid != "" || str(in, "/type") != "sdk.message" || s.b == nil {
		return false
	}
	if sdk := str(in, "/payload/session_id"); sdk != "" {
		for _, o := range s.b.open {
			if o.sdkID == sdk {
				return o == s
			}
		}
	}
	return len(s.b.open) == 1 && s.b.open[0] == s
}

// closed drops a killed session from the open ones.
func (b *bridge) closed(s *session) {
	b.open = slices.DeleteFunc(b.open, func(o *session) bool { return o == s })
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
		b.e.Learn(depSend, fmt.Sprintf("session.send to live session %q in scenario %s started no turn within %s", s.id, b.e.Scenario(), bound))
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
	if errors.Is(t.err, peer.ErrTimeout) {
		t.settle(s)
	}
	return t
}

// endsTurn says whether an error frame of the session ends its turn: one
// that answers no request of wirecheck's and is about no callback (an
// SDK_ERROR saying the CLI died). The backend has said the turn failed;
// no result will follow, and waiting out the turn bound for one would
// cost minutes on every turn.
func (s *session) endsTurn(in *peer.Inbound) bool {
	if str(in, "/type") != "error" {
		return false
	}
	switch str(in, "/payload/code") {
	case "CALLBACK_TIMEOUT", "CALLBACK_NOT_FOUND":
		return false
	}
	id := str(in, "/id")
	return id == "" || !s.cbIDs[id]
}

// gone reports whether the turn ended because the backend exited or closed
// its stdout.
func (t *turn) gone() bool { return errors.Is(t.err, scenario.ErrGone) }

// how says how a turn that brought no result ended, and after how long:
// the backend gone, an error of the session, or the bound run out.
func (t *turn) how(bound time.Duration, flag string) string {
	waited := t.waited.Round(time.Millisecond)
	if t.waited < time.Millisecond {
		waited = t.waited.Round(time.Microsecond)
	}
	switch {
	case t.gone():
		return fmt.Sprintf("before the backend was gone, %s later: %v", waited, t.err)
	case t.ended != nil:
		return fmt.Sprintf("before the turn ended, %s later, with error %s for the session: %s", waited,
			str(t.ended, "/payload/code"), str(t.ended, "/payload/message"))
	case t.waited < bound:
		return fmt.Sprintf("within %s (the wait, bounded by %s, %s, ended early)", waited, bound, flag)
	}
	return fmt.Sprintf("within %s (%s)", bound, flag)
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
		if ans, err := b.e.Response(c, time.Millisecond); err == nil {
			return t, ans
		}
		if t.result != nil || t.ended != nil || (t.err != nil && !errors.Is(t.err, peer.ErrTimeout)) {
			return t, nil
		}
		if t.silent || !time.Now().Before(deadline) {
			t.settle(s)
			return t, nil
		}
	}
}

// depEarly names what a result before system/init leaves to come: the
// turn's own result. A backend that sent none after it once (it sends the
// turn's result first) sends none the next time, so later turns take that
// first result for their end at once (scenario.Causes).
const depEarly = "a result after the result sent before system/init"

// collectInto adds the session's frames to t, up to a result sdk.message,
// an error that ends the turn, the first frame for which until holds, or
// the bound. After a result that came before any system message (taken
// for a stray), the backend may have sent the turn's only result: the
// wait then ends once the session has been silent for --timeout, unless
// the backend waits on a callback, and the lane learns it.
func (b *bridge) collectInto(t *turn, s *session, bound time.Duration, until func(*peer.Inbound) bool) {
	start := time.Now()
	defer func() { t.waited += time.Since(start) }()
	deadline := start.Add(bound)
	last := start
	if !t.lastAt.IsZero() {
		last = t.lastAt // a turn followed in slices (collectAnswered) is silent since its last frame
	}
	for {
		wait, quiet := time.Until(deadline), false
		if len(t.stray) > 0 && !b.asking(t) {
			if q := time.Until(last.Add(b.e.Timeout)); q < wait {
				wait, quiet = q, true
			}
		}
		in, err := b.e.NextFrame(max(0, wait), s.mine)
		if err != nil {
			t.err = err
			if errors.Is(err, peer.ErrExited) {
				t.err = fmt.Errorf("%w: %s", scenario.ErrGone, b.e.Gone())
			}
			if quiet && errors.Is(err, peer.ErrTimeout) {
				t.silent, t.silence = true, time.Since(last).Round(time.Millisecond)
				b.e.Learn(depEarly, fmt.Sprintf("in scenario %s, session %q sent its turn's result before its system/init (transcript line %d) and no other result in the %s (--timeout) of silence that followed",
					b.e.Scenario(), s.id, t.stray[0].Seq, b.e.Timeout))
			}
			return
		}
		last = time.Now()
		t.last, t.lastAt = in, last
		switch str(in, "/type") {
		case "sdk.message":
			t.frames = append(t.frames, in)
			b.sameSession(s, in)
			switch str(in, "/payload/type") {
			case "system":
				s.system = true
			case "result":
				if s.turns == 0 && !s.system {
					// The Session Lifecycle starts a session's stream with
					// system/init: a result before it ends no turn of this
					// session. BRIDGE-STREAM-2 judges it; the turn goes on.
					t.stray = append(t.stray, in)
					if why := b.e.Cause(depEarly); why != "" {
						// Known to come first: it is the turn's result.
						t.early = why
						t.result = in
						s.turns++
						return
					}
					break
				}
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
			if s.endsTurn(in) {
				t.ended = in
				return
			}
		}
		if until != nil && until(in) {
			return
		}
	}
}

// asking reports whether the backend waits on wirecheck: the last frame
// of the turn is a callback.request left unanswered (policy never), and
// its silence is no end of the turn.
func (b *bridge) asking(t *turn) bool {
	return b.a.Policy == Never && t.last != nil && str(t.last, "/type") == "callback.request"
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
		if t.gone() {
			return // the crash is the finding (the scenario ends with it)
		}
		seq, actual := -1, fmt.Sprintf("%d sdk.message frame(s) of the session", len(t.frames))
		if t.ended != nil {
			seq, actual = t.ended.Seq, string(t.ended.Raw)
			if tail := b.e.StderrTail(); len(tail) > 0 {
				actual += "; last stderr: " + strings.Join(tail[max(0, len(tail)-3):], " | ")
			}
		}
		// A backend that died as the wait ended is no more a failure
		// of the stream than one gone before it (Absent).
		b.e.Absent("BRIDGE-STREAM-1", seq, fmt.Sprintf("no result sdk.message for session %q after %s %s", s.id, what, t.how(b.turn, "--param turn_timeout")),
			"sdk.message frames with the session's id, ending with a result message", actual)
		if first && len(t.frames) == 0 {
			b.e.Skip("BRIDGE-STREAM-2", "no sdk.message of the session arrived (BRIDGE-STREAM-1), so how its stream starts was not observed")
		}
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
		msg := "the session's first sdk.message is not system/init"
		if t.silent {
			// The wait this finding cost is stated, as every wait is: the
			// early result was taken for the turn's end only after it.
			msg += fmt.Sprintf("; its result (transcript line %d) was taken for the turn's end as nothing more of the session came within %s of silence (%s) after its last frame",
				t.stray[0].Seq, t.silence, b.e.Bound(b.e.Timeout))
		}
		b.e.Fail("BRIDGE-STREAM-2", f.Seq, msg, "system/init first", string(f.Raw))
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
	in, err := b.e.NextFrame(0, func(in *peer.Inbound) bool {
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
	b.e.Forget(c)
	return c, nil
}

// request sends a message that names the session and waits --timeout for
// its answer; a nil answer means none came, reported against rule.
func (b *bridge) request(s *session, typ string, payload map[string]any, rule, want string) (*peer.Inbound, *peer.Call, error) {
	return b.await(map[string]any{"type": typ, "id": scenario.NextID(strings.TrimPrefix(typ, "session.")), "session_id": s.id, "payload": payload}, rule, want)
}

// kill ends a session, judging BRIDGE-KILL-1 on the answer.
func (b *bridge) kill(s *session) error {
	_, err := b.killed(s)
	return err
}

// killed is kill that returns the answer (nil when none came).
func (b *bridge) killed(s *session) (*peer.Inbound, error) {
	want := "session.killed with session_id " + show(s.id) + ", or error with the request id"
	b.closed(s)
	in, _, err := b.request(s, "session.kill", map[string]any{}, "BRIDGE-KILL-1", want)
	if err != nil || in == nil {
		return nil, err
	}
	// "Response: session.killed or error": an error is an answer too,
	// except SESSION_NOT_FOUND, which a live session is not.
	if kindName(in) == "error" && str(in, "/payload/code") != "SESSION_NOT_FOUND" {
		b.e.Pass("BRIDGE-KILL-1", in.Seq)
		return in, nil
	}
	if kindName(in) != "session.killed" || str(in, "/session_id") != s.id {
		b.e.Fail("BRIDGE-KILL-1", in.Seq, fmt.Sprintf("session.kill of live session %q was answered neither session.killed with its session_id nor an error a live session can get", s.id),
			want, string(in.Raw))
		return in, nil
	}
	b.e.Pass("BRIDGE-KILL-1", in.Seq)
	return in, nil
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
	return t.resultAfter(cb.Seq, str(cb, "/payload/tool_use_id"))
}

// resultAfter finds the first tool_result block for toolUseID (any, when
// "") in a user message that arrived after transcript line seq.
func (t *turn) resultAfter(seq int, toolUseID string) (map[string]any, *peer.Inbound) {
	for _, f := range t.frames {
		if f.Seq < seq || str(f, "/payload/type") != "user" {
			continue
		}
		blocks, _ := field(f, "/payload/message/content").([]any)
		for _, bl := range blocks {
			m, _ := bl.(map[string]any)
			if m == nil || m["type"] != "tool_result" {
				continue
			}
			if toolUseID == "" || m["tool_use_id"] == toolUseID {
				return m, f
			}
		}
	}
	return nil, nil
}

// judgeAsked decides BRIDGE-CB-ASK-1 on a turn run in permission_mode
// default with no allowed_tools: every Bash tool_use whose tool_result is
// not an error (the tool ran) had a can_use_tool callback.request for it
// arrive before that result. The callback may come before or after the
// assistant message carrying the tool_use; only its arrival before the
// result counts. A turn in which no Bash ran is no evidence.
func (b *bridge) judgeAsked(t *turn) {
	observed := false
	for _, f := range t.frames {
		if str(f, "/payload/type") != "assistant" {
			continue
		}
		blocks, _ := field(f, "/payload/message/content").([]any)
		for _, bl := range blocks {
			m, _ := bl.(map[string]any)
			if m == nil || m["type"] != "tool_use" || m["name"] != "Bash" {
				continue
			}
			id, _ := m["id"].(string)
			res, at := t.resultAfter(f.Seq, id)
			if res == nil || res["is_error"] == true {
				continue // the tool did not run
			}
			observed = true
			asked := false
			for _, c := range t.canUseTool() {
				cid := str(c, "/payload/tool_use_id")
				if c.Seq < at.Seq && (cid == id || (cid == "" && str(c, "/payload/tool_name") == "Bash")) {
					asked = true
					break
				}
			}
			if asked {
				b.e.Pass("BRIDGE-CB-ASK-1", at.Seq)
				continue
			}
			t.unasked++
			b.e.Fail("BRIDGE-CB-ASK-1", at.Seq, fmt.Sprintf("Bash ran (tool_use %s, its tool_result not an error) in permission_mode default without a can_use_tool callback.request for it "+
				"(or a permission rule from settings the backend loads allowed it)", id),
				"a can_use_tool callback.request for the tool_use before its tool_result", show(res))
		}
	}
	if !observed {
		why := "no Bash tool ran in the turn"
		if t.early != "" {
			why += " as wirecheck followed it (" + t.failure(b.e) + ")"
		}
		b.e.Skip("BRIDGE-CB-ASK-1", why+", so whether the backend asks before running one was not observed")
	}
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
	if len(t.stray) > 0 && t.result == t.stray[0] {
		why := "the turn's result came before its system/init (BRIDGE-STREAM-2) and was taken for the turn's end"
		if t.early != "" {
			why += ", not waited past: " + t.early
		}
		parts = append(parts, why)
	}
	if r := t.result; r != nil && (field(r, "/payload/is_error") == true || str(r, "/payload/subtype") != "success") {
		parts = append(parts, "the turn's result is an error ("+show(field(r, "/payload/subtype"))+")")
	}
	if len(parts) == 0 {
		return ""
	}
	if tail := e.StderrTail(); len(tail) > 0 {
		parts = append(parts, "last stderr: "+strings.Join(tail[max(0, len(tail)-3):], " | "))
	}
	return strings.Join(parts, "; ")
}

// judgeCallbacks decides the rule of the answering policy on a turn that
// ran with it.
func (b *bridge) judgeCallbacks(s *session, t *turn, p Policy) {
	rules := map[Policy][]string{
		Allow: {"BRIDGE-CB-ALLOW-1"}, AllowUpdated: {"BRIDGE-CB-ALLOW-1", "BRIDGE-CB-UPDATED-1"},
		Deny: {"BRIDGE-CB-DENY-1"}, Never: {"BRIDGE-CB-TIMEOUT-1", "BRIDGE-CB-TIMEOUT-2"},
	}[p]
	cbs := t.canUseTool()
	if len(cbs) == 0 {
		why := noToolWhy
		switch {
		case t.unasked > 0:
			why = fmt.Sprintf("the backend ran Bash %d time(s) without a can_use_tool callback.request (BRIDGE-CB-ASK-1), so how it carries an answer through was not observed", t.unasked)
		case len(t.callbacks) > 0:
			why = fmt.Sprintf("the backend sent %d callback.request(s), none with callback_type can_use_tool, so a tool permission was not observed", len(t.callbacks))
		default:
			if cause := t.failure(b.e); cause != "" {
				// The prompt is not why no tool was asked for: name what went wrong.
				why = "no can_use_tool callback.request arrived: " + cause
			}
		}
		for _, r := range rules {
			b.e.Skip(r, why)
		}
		return
	}
	for _, cb := range cbs {
		if p == Never {
			b.judgeTimeout(t, cb)
			continue
		}
		// A backend whose own callback timeout ran out before wirecheck's
		// answer reached it never saw the answer: what it ran then is no
		// evidence of how it carries one through.
		if e := t.timedOut(cb); e != nil {
			for _, r := range rules {
				b.e.Skip(r, fmt.Sprintf("the backend's callback timeout ended callback %s (error CALLBACK_TIMEOUT, transcript line %d) before wirecheck's %s answer reached it, "+
					"so how it carries an answer through was not observed", str(cb, "/id"), e.Seq, p))
			}
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

// timedOut returns the CALLBACK_TIMEOUT error that ended a callback: one
// with its id, or an asynchronous one (no id) of the session after it.
func (t *turn) timedOut(cb *peer.Inbound) *peer.Inbound {
	for _, e := range t.errors {
		eid := str(e, "/id")
		if e.Seq > cb.Seq && (eid == "" || eid == str(cb, "/id")) && str(e, "/payload/code") == "CALLBACK_TIMEOUT" {
			return e
		}
	}
	return nil
}

// judgeTimeout decides BRIDGE-CB-TIMEOUT-1 and -2 for one callback left
// unanswered. The document says how a timeout is reported
// (CALLBACK_TIMEOUT, MUST) but not after how long, nor that a backend must
// give up at all (SHOULD, within the generous --param callback_timeout).
// An asynchronous CALLBACK_TIMEOUT without an id counts: it responds to no
// request of the client.
func (b *bridge) judgeTimeout(t *turn, cb *peer.Inbound) {
	id := str(cb, "/id")
	for _, e := range t.errors {
		eid := str(e, "/id")
		if e.Seq < cb.Seq || (eid != "" && eid != id) {
			continue
		}
		code := str(e, "/payload/code")
		if code == "CALLBACK_TIMEOUT" {
			b.e.Pass("BRIDGE-CB-TIMEOUT-1", e.Seq)
			b.e.Pass("BRIDGE-CB-TIMEOUT-2", e.Seq)
			return
		}
		if eid == id {
			b.e.Fail("BRIDGE-CB-TIMEOUT-1", e.Seq, fmt.Sprintf("the backend gave up on unanswered callback %s with error %s, not CALLBACK_TIMEOUT", id, show(code)),
				"error CALLBACK_TIMEOUT for the callback", string(e.Raw))
			b.e.Pass("BRIDGE-CB-TIMEOUT-2", e.Seq)
			return
		}
	}
	// Gave up without saying so: the turn went on past the callback.
	if _, at := t.toolResult(cb); at != nil || t.result != nil {
		if at == nil {
			at = t.result
		}
		b.e.Fail("BRIDGE-CB-TIMEOUT-1", at.Seq, fmt.Sprintf("the backend stopped waiting for unanswered callback %s (the turn went on: transcript line %d) without error CALLBACK_TIMEOUT", id, at.Seq),
			"error CALLBACK_TIMEOUT for the callback before the turn goes on", string(at.Raw))
		b.e.Pass("BRIDGE-CB-TIMEOUT-2", at.Seq)
		return
	}
	b.e.Skip("BRIDGE-CB-TIMEOUT-1", fmt.Sprintf("the backend did not give up on callback %s within %s (--param callback_timeout), so how it reports a timeout was not observed", id, b.cb))
	bound := "--param callback_timeout"
	if b.e.Params[ParamCallbackTimeout] == "" {
		bound = "the default bound, as the document names none: set the backend's own timeout with --param callback_timeout=DUR"
	}
	b.e.Fail("BRIDGE-CB-TIMEOUT-2", cb.Seq, fmt.Sprintf("callback %s was never answered and no error CALLBACK_TIMEOUT followed within %s of its arrival (%s)", id, b.cb, bound),
		"error CALLBACK_TIMEOUT for the session within "+b.cb.String()+" (--param callback_timeout)", "nothing")
}
