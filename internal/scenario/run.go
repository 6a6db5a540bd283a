package scenario

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
	"unsafe"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Settler is a frame judge that leaves some frames undecided until the
// conversation ends: what only the absence of a later frame settles. The
// end of a step scenario (a fixture, a replayed file) calls Settle, as
// the fuzzer does after each sequence; a Go scenario calls it where its
// own end is judged.
type Settler interface{ Settle(*Env) }

// Settle lets the process's frame judge, if it is a Settler, decide what
// it left open.
func (e *Env) Settle() {
	if s, ok := e.Judge().(Settler); ok {
		s.Settle(e)
	}
}

// Execute runs a scenario: its Go function, or its steps in order. It stops
// at the first step that cannot go on (the server is gone) and returns why.
func (s *Scenario) Execute(e *Env) error {
	if s.Run != nil {
		return s.Run(e)
	}
	defer e.Settle()
	e.named = map[string]*peer.Call{}
	for i := 0; i < len(s.Steps); i++ {
		// Consecutive sends go out in one write, all in flight before the
		// server can answer the first (see peer.Hold): "written before any
		// is read" holds however the writer is scheduled.
		j := i
		for j < len(s.Steps) && s.Steps[j].plainSend() {
			j++
		}
		if j-i > 1 {
			e.p.Hold()
			for k := i; k < j; k++ {
				if err := e.Do(&s.Steps[k]); err != nil {
					_ = e.p.Flush()
					return fmt.Errorf("step %d (line %d): %w", k+1, s.Steps[k].Line, err)
				}
			}
			if err := e.p.Flush(); err != nil {
				return fmt.Errorf("step %d (line %d): %w", j, s.Steps[j-1].Line, e.writeFailed(err))
			}
			i = j - 1
			continue
		}
		if err := e.Do(&s.Steps[i]); err != nil {
			return fmt.Errorf("step %d (line %d): %w", i+1, s.Steps[i].Line, err)
		}
	}
	return nil
}

// plainSend reports whether a step sends a request whole.
func (st *Step) plainSend() bool { return st.Send != nil && st.Split == 0 }

// SplitPause bounds the pause between the two writes of a split send. It
// only has to outlast the server's read of the first part, which a blocked
// reader does at once: the stdio transport ends it as soon as the pipe is
// empty (transport.ReadAwaiter). Longer would cap how fast the fuzzer,
// whose split sends run through here too, can go.
const SplitPause = time.Millisecond

// Do runs one step, as Execute runs each: the fuzzer drives its generated
// steps through here, so what it saves is what it ran.
func (e *Env) Do(st *Step) error {
	if e.named == nil {
		e.named = map[string]*peer.Call{}
	}
	return st.run(e)
}

// Answer returns the response to the send named name, read after an
// expect step on that name has returned (nil when it got none).
func (e *Env) Answer(name string) *peer.Inbound {
	if c := e.named[name]; c != nil {
		return c.Response
	}
	return nil
}

// ForgetNamed drops the send named name: a later step can no longer wait on
// it, Answer returns nil for it, and its response is no longer held. The
// fuzzer runs hundreds of sequences on one Env, each request under a name
// of its own; without this every response it was ever sent, decoded,
// would be held until the process ends.
func (e *Env) ForgetNamed(name string) { delete(e.named, name) }

func (st *Step) run(e *Env) error {
	switch {
	case st.Send != nil:
		// resolve builds the message anew (every map and array a copy),
		// so the step's own value is never changed by what is sent.
		msg, err := e.resolve(st.Send)
		if err != nil {
			return err
		}
		var c *peer.Call
		if st.Open {
			// A request answered late or never: no wait counts it in
			// flight, and its exchange may stay open past --timeout.
			if c, err = e.SendUnjudged(msg); err == nil && c != nil {
				e.p.Patient(c)
				e.p.Forget(c)
			}
		} else if st.Split > 0 {
			var b []byte
			if b, err = json.Marshal(msg); err == nil {
				c, err = e.p.RequestSplit(b, st.Split, SplitPause)
			}
		} else {
			c, err = e.Send(msg)
		}
		if err != nil {
			return e.writeFailed(err)
		}
		if st.As != "" {
			e.named[st.As] = c
		}
	case st.SendLine != nil:
		if err := e.p.SendRaw([]byte(*st.SendLine+"\n"), st.answerable()); err != nil {
			return e.writeFailed(err)
		}
	case st.SendRaw != nil:
		if err := e.p.SendRaw(readOnly(*st.SendRaw), st.answerable()); err != nil {
			return e.writeFailed(err)
		}
	case st.SendBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*st.SendBase64)
		if err != nil {
			return fmt.Errorf("send_base64: %v", err)
		}
		if err := e.p.SendRaw(b, st.answerable()); err != nil {
			return e.writeFailed(err)
		}
	case st.Expect != "":
		c := e.named[st.Expect]
		if c == nil {
			return fmt.Errorf("expect %q: no send step is named so", st.Expect)
		}
		if st.Cancelled {
			st.cancelled(e, c)
			return nil
		}
		if st.Slow {
			if slow, err := st.slow(e, c); slow || err != nil {
				return err
			}
		}
		in, err := e.Await(c, st.Within.D())
		if errors.Is(err, peer.ErrUnsent) {
			// Nothing to judge, and nothing wrong with the server: the
			// scenario goes on (the transcript says why it was not sent).
			e.Notef("%v", err)
			if st.Rule != "" {
				e.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Skip, Seq: c.Seq, Message: err.Error()})
			}
			return nil
		}
		if err != nil {
			if st.Rule != "" {
				e.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: c.Seq, Unanswered: e.unanswered[c.Seq],
					Message: "no response to the request named " + st.Expect + ": " + err.Error(), Expected: st.describe(), Actual: "nothing"})
			}
			return err
		}
		if st.Optional && st.Rule != "" && e.Unimplemented(in) {
			e.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Skip, Seq: in.Seq,
				Message: fmt.Sprintf("the server does not implement %s (it answered that the method is not implemented)", c.Method)})
			return nil
		}
		st.judge(e, in)
	case st.ExpectFrame:
		// Frames a rule expects and the server did not send once, it does
		// not send the next time either: the same fault costs one wait.
		// Steps that declare what their frame depends on share that wait
		// across rules: the rule of each is failed by it (the one that
		// waited has failed its own).
		dep := "frame for " + st.Rule
		if st.Depends != "" {
			dep = st.Depends
		}
		next := e.nextProtocolFrame
		if st.Seek {
			next = func(timeout time.Duration) (*peer.Inbound, error) { return e.seek(timeout, &Assert{Match: st.Match}) }
		}
		if why := e.Cause(dep); why != "" && st.Rule != "" {
			if in, err := next(0); err == nil {
				st.judge(e, in)
				return nil
			}
			msg := NotWaited(st.describe()+" (line "+fmt.Sprint(st.Line)+")", why)
			if st.Depends != "" {
				msg = NotWaited(fmt.Sprintf("%s (line %d), which depends on %s", st.describe(), st.Line, st.Depends), why)
				st.missing(e, msg)
				return nil
			}
			for _, r := range st.rules() {
				e.Observe(verdict.Observation{Rule: r, Verdict: verdict.Skip, Seq: -1, Message: msg})
			}
			return nil
		}
		seq := e.p.Recorder().Len() - 1
		start, quiet := time.Now(), e.Unheard()
		in, err := next(st.timeout(e))
		if err != nil {
			bound := e.Waited(st.timeout(e), start, quiet)
			what := "no frame within " + bound + e.Meanwhile(seq)
			if errors.Is(err, peer.ErrExited) {
				what = e.Gone()
			}
			st.missing(e, what)
			if errors.Is(err, peer.ErrExited) {
				return fmt.Errorf("%w: %s", ErrGone, what)
			}
			e.Learn(dep, fmt.Sprintf("the server sent no %s within %s in scenario %s (line %d)", st.describe(), bound, e.p.Scenario(), st.Line))
			return nil
		}
		st.judge(e, in)
	case st.ExpectSilence > 0:
		before := e.p.ProtocolFrames()
		seqBefore := -1
		select {
		case <-time.After(st.ExpectSilence.D()):
		case <-e.p.Gone():
		}
		if n := e.p.ProtocolFrames() - before; n > 0 {
			st.fail(e, seqBefore, fmt.Sprintf("%d frame(s) arrived", n), "no output for "+st.ExpectSilence.D().String(), "see the transcript")
		} else {
			st.pass(e, -1)
		}
	case st.ExpectAlive:
		in, err := e.Probe()
		if err != nil {
			st.fail(e, -1, "the server did not answer a known-good request: "+err.Error(), "an answer to the probe request", "nothing")
			return err
		}
		st.pass(e, in.Seq)
	case st.CloseStdin:
		// A process still starting would count its start-up against the
		// exit deadline that follows.
		e.Ready()
		e.Closed = true
		if err := e.p.Transport().CloseInput(); err != nil {
			return fmt.Errorf("%w: closing stdin: %v", ErrGone, err)
		}
	case st.ExpectExit != nil:
		within := st.ExpectExit.Within.D()
		if within == 0 {
			within = e.Timeout
		}
		t := e.p.Transport()
		select {
		case <-t.Exited():
			es := t.ExitStatus()
			if st.ExpectExit.Code != nil && (es.Signal != "" || es.Code != *st.ExpectExit.Code) {
				st.fail(e, -1, "the server ended with "+es.String(), fmt.Sprintf("exit %d", *st.ExpectExit.Code), es.String())
			} else {
				st.pass(e, -1)
			}
		case <-time.After(within):
			e.Hung = true
			st.fail(e, -1, "the server was still running "+within.String()+" after stdin closed", "the process exits", "still running")
		}
	case st.Restart:
		if err := e.Restart(); err != nil {
			return fmt.Errorf("%w: restart: %v", ErrGone, err)
		}
	case st.Sleep > 0:
		time.Sleep(st.Sleep.D())
	case st.Disturb != "":
		d, ok := e.p.Transport().(transport.Disturber)
		if !ok {
			return fmt.Errorf("disturb %q: this transport has no disturbances", st.Disturb)
		}
		did, err := d.Disturb(st.Disturb)
		// No stream open yet (a client opens its GET stream after its
		// initialized notification is accepted, on its own time): wait
		// for one a while, so a reproducer disturbs what the campaign
		// did whatever the machine's load.
		for wait := time.Now().Add(min(e.Timeout, time.Second)); err == nil && did == "" && time.Now().Before(wait); {
			time.Sleep(10 * time.Millisecond)
			did, err = d.Disturb(st.Disturb)
		}
		if err != nil {
			return fmt.Errorf("disturb %q: %w", st.Disturb, err)
		}
		if did == "" {
			did = "nothing to disturb: " + st.Disturb
		}
		e.Annotate("wirecheck disturbs the transport: " + did)
	case st.Drain:
		for {
			if _, err := e.p.Next(0); err != nil {
				break
			}
		}
	default:
		return fmt.Errorf("step has no action")
	}
	return nil
}

// readOnly is s's bytes, not a copy of them: the peer and the transports
// only read what they write (transport.Transport.WriteRaw), and a fuzzed
// line can be a MiB, copied on every send (BenchmarkSendRaw).
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func (st *Step) answerable() bool { return st.Answered == nil || *st.Answered }

func (st *Step) timeout(e *Env) time.Duration {
	if st.Within > 0 {
		return st.Within.D()
	}
	return e.Timeout
}

func (st *Step) judge(e *Env, in *peer.Inbound) {
	for _, a := range st.Also {
		(&Step{Rule: a.Rule, Assert: a.Assert}).judge(e, in)
	}
	if st.Rule == "" {
		return
	}
	if prob, want := st.Check(in); prob != "" {
		st.fail(e, in.Seq, prob, want, string(in.Raw))
		return
	}
	st.pass(e, in.Seq)
}

// rules are the rules an expect_frame step decides: its own and Also's.
func (st *Step) rules() []string {
	out := []string{st.Rule}
	for _, a := range st.Also {
		out = append(out, a.Rule)
	}
	return out
}

// missing fails every rule of an expect_frame step whose frame never
// came.
func (st *Step) missing(e *Env, msg string) {
	st.fail(e, -1, msg, st.describe(), "nothing")
	for _, a := range st.Also {
		sub := &Step{Rule: a.Rule, Assert: a.Assert}
		sub.fail(e, -1, msg, sub.describe(), "nothing")
	}
}

func (st *Step) pass(e *Env, seq int) {
	if st.Rule != "" {
		e.Pass(st.Rule, seq)
	}
}

// slow waits the timeout for the answer to a slow step's request (see
// Step.Slow). Unanswered, the request is forgotten and the probe sent:
// answered, the request was slow and is not judged (true); unanswered
// too, the server hangs (the error). Answered in time, the expect step
// judges the answer as any other (false).
func (st *Step) slow(e *Env, c *peer.Call) (bool, error) {
	timeout := st.Within.D()
	if timeout == 0 {
		timeout = e.Timeout
	}
	e.p.Patient(c)
	if _, err := e.p.WaitUp(c, timeout); !errors.Is(err, peer.ErrTimeout) {
		return false, nil
	}
	e.p.Forget(c)
	if _, err := e.Probe(); err != nil {
		e.Hung = true
		msg := fmt.Sprintf("no response to %s within %s, nor to the probe sent after it: %v", c.Describe(), e.Bound(timeout), err)
		e.p.Check(verdict.CheckTimely, verdict.Fail, c.Seq, msg, "a response within "+timeout.String(), "nothing")
		return true, fmt.Errorf("%w: %s", ErrNoAnswer, msg)
	}
	msg := fmt.Sprintf("%s not judged: no answer within %s, and the server answered the probe sent after it (a slow request: the protocol bounds no time for it); raise --timeout to judge it", c.Describe(), e.Bound(timeout))
	e.p.Recorder().Add(transcript.Note, []byte(msg))
	e.Notef("%s", msg)
	if st.Rule != "" {
		e.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Skip, Seq: c.Seq, Message: msg})
	}
	return true, nil
}

func (st *Step) fail(e *Env, seq int, msg, expected, actual string) {
	if st.Rule != "" {
		e.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: seq, Message: msg, Expected: expected, Actual: actual})
	}
}

// describe says in words what an expectation wants, for the Expected line.
func (st *Step) describe() string {
	var parts []string
	if st.Kind != "" {
		parts = append(parts, "a "+st.Kind+" frame")
	}
	for _, k := range sortedKeys(st.Match) {
		parts = append(parts, fmt.Sprintf("%s = %s", k, show(st.Match[k])))
	}
	for _, p := range st.Present {
		parts = append(parts, p+" present")
	}
	for _, k := range sortedKeys(st.Pattern) {
		parts = append(parts, fmt.Sprintf("%s matching /%s/", k, st.Pattern[k]))
	}
	if len(parts) == 0 {
		return "a frame"
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += ", " + p
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// cancelled judges a cancelled request's answer (Step.Cancelled): none
// may have come. The request is forgotten either way.
func (st *Step) cancelled(e *Env, c *peer.Call) {
	e.p.Forget(c)
	select {
	case <-c.Done():
		if c.Response != nil && c.Refused == "" {
			st.fail(e, c.Response.Seq, c.Describe()+" was answered after wirecheck cancelled it",
				"no message for a cancelled request", string(c.Response.Raw))
			return
		}
	default:
	}
	st.pass(e, -1)
}

// seek is the first protocol frame matching a within timeout, the frames
// before it passed over (Step.Seek).
func (e *Env) seek(timeout time.Duration, a *Assert) (*peer.Inbound, error) {
	start := time.Now()
	for {
		in, err := e.p.NextUp(start, timeout)
		if err != nil {
			return in, err
		}
		if in.Kind == nil {
			continue
		}
		if prob, _ := a.Check(in); prob == "" {
			return in, nil
		}
	}
}

// nextProtocolFrame skips frames of no known kind: the peer has already
// judged them, and one arriving late from an earlier exchange (a log line
// on stdout) must not stand in for the frame a step expects.
func (e *Env) nextProtocolFrame(timeout time.Duration) (*peer.Inbound, error) {
	start := time.Now()
	for {
		in, err := e.p.NextUp(start, timeout)
		if err != nil || in.Kind != nil {
			return in, err
		}
	}
}
