package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ErrGone ends a scenario whose server exited or closed its pipes; the
// runner reports the rules it could no longer observe as errors.
var ErrGone = errors.New("the server is gone")

// ErrNoAnswer ends a scenario whose server is running but did not answer
// in time: a hang, not a death, and the message says which.
var ErrNoAnswer = errors.New("the server did not answer")

// Env is what a scenario drives: the current server process, reached only
// through Env's methods (a scenario never holds the peer or the transport,
// so how a wait ends, and what it reports, is decided here once), and the
// means to report on rules. Its exported fields other than Protocol,
// Timeout, Seed, Params, Restart, Hung and Closed are the runner's wiring
// (see api_test.go, which holds the suites to this).
type Env struct {
	// p is the peer of the current server process (SetPeer).
	p        *peer.Peer
	Protocol *spec.Protocol
	Timeout  time.Duration
	// Observe records an observation of a rule in the current scenario.
	Observe func(verdict.Observation)
	// Restart replaces the server process; it sets the new peer (SetPeer).
	Restart func() error
	// Seed drives anything a scenario generates, so a run is reproducible.
	Seed uint64
	// Params are --param KEY=VALUE settings for protocol-specific scenarios.
	Params map[string]string
	// Note, when set, adds a note to the report (see Notef).
	Note func(string)
	// Agreed, when set, is told the revision the server agreed to in the
	// handshake that opened a process's session (see Agree).
	Agreed func(revision string)
	// Identified, when set, is told the server's own name and version as
	// it states them (see Identify).
	Identified func(name, version string)

	// Waiting, when set, is told that the scenario waits by design (see
	// Idle) and returns the function that says the wait is over: the
	// runner lends the scenario's place among the lanes at once (--jobs)
	// to another lane meanwhile.
	Waiting func() (over func())

	// Causes is what the lane learned from earlier waits (see Causes);
	// the runner shares one per lane. Nil: nothing is learned, every wait
	// runs its course.
	Causes *Causes

	named    map[string]*peer.Call
	suspects [][2]string
	// unanswered is, by transcript line, how long a request Await gave up
	// on was waited for, so a step failing on it marks it unanswered too.
	unanswered map[int]string
	// awaited is the transcript line of the request the last Await waited
	// for (nil before any, and after a Call whose send failed), the one
	// FailUnanswered blames.
	awaited *int
	// Hung is set when the server stopped answering; Closed when the
	// scenario closed stdin. The runner starts a new process after either.
	Hung   bool
	Closed bool
}

// Causes is what a lane has learned from waits that ended without what
// they waited for, by dependency: a server that left a tools/call
// unanswered for --timeout leaves the next one unanswered too, and a
// backend that did not continue a session after session.send will not on
// the next. Later waits on a dependency whose cause is known end at once,
// naming it, so a fault costs a timeout once per lane, not once per step.
// A lane's scenarios run one after the other, so what is learned, and so
// the verdicts, do not depend on timing.
type Causes struct {
	mu sync.Mutex
	m  map[string]string
}

// Cause returns why waits on dep are known to end empty ("" when no
// earlier wait of the lane found so).
func (e *Env) Cause(dep string) string {
	if e.Causes == nil {
		return ""
	}
	e.Causes.mu.Lock()
	defer e.Causes.mu.Unlock()
	return e.Causes.m[dep]
}

// Learn records that a wait on dep ended empty, and why (the first cause
// is kept: it names the wait that paid the timeout).
func (e *Env) Learn(dep, why string) {
	if e.Causes == nil {
		return
	}
	e.Causes.mu.Lock()
	defer e.Causes.mu.Unlock()
	if e.Causes.m == nil {
		e.Causes.m = map[string]string{}
	}
	if _, ok := e.Causes.m[dep]; !ok {
		e.Causes.m[dep] = why
	}
}

// answerDep is the dependency of a request's answer: its method and the
// JSON type of its id (a server may drop requests with number ids only).
func answerDep(c *peer.Call) string {
	t := "string"
	if !isString(c.ID) {
		t = jsonType(c.ID)
	}
	return fmt.Sprintf("answer to %s with a %s id", c.Method, t)
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// quiet reports whether the server wrote nothing on stdout since
// transcript line seq: an answer with a mangled id would have been a line.
func (e *Env) quiet(seq int) bool {
	rec := e.p.Recorder()
	if rec == nil {
		return false
	}
	for _, en := range rec.Slice(seq+1, rec.Len()) {
		if en.Dir == transcript.Received {
			return false
		}
	}
	return true
}

// suspect records a cause that holds only if the server is otherwise
// alive and answering: a request left unanswered by a server that answers
// others is dropped by method, one left unanswered by a hung server says
// nothing of the next process. The runner's probe decides (Confirm).
func (e *Env) suspect(dep, why string) {
	if e.Causes == nil {
		return
	}
	e.suspects = append(e.suspects, [2]string{dep, why})
}

// Suspect records a cause a scenario's own wait found, to be learned once
// the runner's probe shows the server alive (see suspect): a request type
// the server leaves unanswered while it answers others.
func (e *Env) Suspect(dep, why string) { e.suspect(dep, why) }

// Suspected reports whether a wait of this scenario suspected a cause that
// the probe could confirm.
func (e *Env) Suspected() bool { return len(e.suspects) > 0 }

// Confirm learns the suspected causes: the server answered a probe after
// the waits that suspected them, so they were not a hang.
func (e *Env) Confirm() {
	for _, s := range e.suspects {
		e.Learn(s[0], s[1])
	}
	e.suspects = nil
}

// NotWaited is the message of a wait ended at once for a known cause.
func NotWaited(what, cause string) string {
	return "not waited for " + what + ": " + cause
}

var idSeq atomic.Int64

// NextID returns an id no other request of this run uses.
func NextID(prefix string) string { return fmt.Sprintf("%s-%d", prefix, idSeq.Add(1)) }

// Pass records that rule held, with the transcript line as evidence.
func (e *Env) Pass(rule string, seq int) {
	e.Observe(verdict.Observation{Rule: rule, Verdict: verdict.Pass, Seq: seq})
}

// Fail records a violation of rule.
func (e *Env) Fail(rule string, seq int, msg, expected, actual string) {
	e.Observe(verdict.Observation{Rule: rule, Verdict: verdict.Fail, Seq: seq, Message: msg, Expected: expected, Actual: actual})
}

// FailUnanswered records a failure of rule because the request the last
// wait (Await, Call, Probe) was for got no answer: the finding is about
// that request, and says how long it was waited for when the wait ran
// out, so a report marks the request rather than a reply that came.
func (e *Env) FailUnanswered(rule, msg, expected string) {
	o := verdict.Observation{Rule: rule, Verdict: verdict.Fail, Seq: -1, Message: msg, Expected: expected, Actual: "nothing"}
	if e.awaited != nil {
		o.Seq, o.Unanswered = *e.awaited, e.unanswered[*e.awaited]
	}
	e.Observe(o)
}

// Skip records that rule does not apply to this server, and why. A rule
// the spec leaves out of the run (versions:, transports:) is no rule of
// this server's to skip: the runner reports it once with the spec's
// reason, which a scenario's own words would only paraphrase.
func (e *Env) Skip(rule, why string) {
	if e.Protocol != nil && e.Protocol.WhyNotApplied(e.Protocol.Rule(rule)) != "" {
		return
	}
	e.Observe(verdict.Observation{Rule: rule, Verdict: verdict.Skip, Seq: -1, Message: why})
}

// Absent records that a wait for a frame the server owes no request of
// the scenario's (a callback, an event, a notification, a turn's end)
// ended without it. If the server is gone by then it could not have sent
// it: the rule was not observed, and the death is the finding the runner
// makes of the scenario (the rule that the server keeps running), so the
// observation is a skip naming the death (an error where no rule judges
// survival), never a failure. A live server's silence fails rule.
//
// A wait for the answer owed to the input under test is no Absent: a
// server that dies on that input fails the rule about it (and the
// survival rule names it as the cause, spec consequence-of).
func (e *Env) Absent(rule string, seq int, msg, expected, actual string) {
	if why := e.Dead(); why != "" {
		v := verdict.Error
		if e.Protocol != nil && len(e.Protocol.RulesForCheck(verdict.CheckSurvives)) > 0 {
			v = verdict.Skip
		}
		e.Observe(verdict.Observation{Rule: rule, Verdict: v, Seq: seq,
			Message: "not observed: " + why + " (the wait: " + msg + ")"})
		return
	}
	e.Fail(rule, seq, msg, expected, actual)
}

// Dead says how the server ended and, when its output ended with it, how
// long before now ("the server exited (exit 1) 4ms before the wait
// ended"); "" while it runs. A process that exited while a child holds
// its stdout open is dead too: a wait on that stdout runs its bound out.
func (e *Env) Dead() string {
	if e.p == nil {
		return ""
	}
	at := e.p.GoneAt()
	exited := false
	select {
	case <-e.p.Transport().Exited():
		exited = true
	default:
	}
	if at.IsZero() && !exited {
		return ""
	}
	when := "before the wait ended"
	if !at.IsZero() {
		ago := time.Since(at).Round(time.Millisecond)
		if ago < time.Millisecond {
			ago = time.Since(at).Round(time.Microsecond)
		}
		when = ago.String() + " " + when
	}
	status, tail := e.gone()
	return status + " " + when + tail
}

// Errorf records that the harness could not decide rule.
func (e *Env) Errorf(rule string, format string, args ...any) {
	e.Observe(verdict.Observation{Rule: rule, Verdict: verdict.Error, Seq: -1, Message: fmt.Sprintf(format, args...)})
}

// Notef adds a note to the report: something about the whole run, such as
// the hint to rerun with another revision. It does nothing when the runner
// set no Note.
func (e *Env) Notef(format string, args ...any) {
	if e.Note != nil {
		e.Note(fmt.Sprintf(format, args...))
	}
}

// Send sends a request (any JSON-encodable value) and returns its call.
func (e *Env) Send(v any) (*peer.Call, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode request: %w", err)
	}
	return e.p.RequestValue(v, b)
}

// SendProbe sends the protocol's probe request (ProbeRequest) as the
// liveness probe between scenarios sends it: a refusal of its HTTP
// exchange is no finding (see peer.RequestUnjudged).
func (e *Env) SendProbe() (*peer.Call, error) { return e.SendUnjudged(e.ProbeRequest()) }

// SendUnjudged is Send for a request whose HTTP exchange the server may
// refuse, or leave to time out, without breaking a rule (see
// peer.RequestUnjudged); its answer, when it comes, is judged.
func (e *Env) SendUnjudged(v any) (*peer.Call, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode request: %w", err)
	}
	return e.p.RequestUnjudged(b)
}

// Await waits for a call's response within timeout (0 means --timeout).
// A timeout is reported against the timeliness and one-response checks and
// marks the server hung; an exit returns ErrGone.
func (e *Env) Await(c *peer.Call, timeout time.Duration) (*peer.Inbound, error) {
	if timeout == 0 {
		timeout = e.Timeout
	}
	seq := c.Seq
	e.awaited = &seq
	dep := answerDep(c)
	if why := e.Cause(dep); why != "" && c.Method != "" {
		// Already answered, it is taken; otherwise not waited for.
		if in, err := e.p.Wait(c, 0); err == nil {
			return in, nil
		}
		e.p.Forget(c)
		msg := NotWaited("the response to "+c.Describe(), why)
		e.p.Check(verdict.CheckTimely, verdict.Skip, c.Seq, msg, "", "")
		return nil, fmt.Errorf("%w: %s", ErrNoAnswer, msg)
	}
	var in *peer.Inbound
	var err error
	// A request sent behind a line whose answer a step waited out (a
	// probe sent with it, to show a hang in the same wait) has had its
	// bound by now; if the server wrote nothing since, waiting again would
	// give its silence a second --timeout.
	inFlight := time.Since(c.SentAt)
	spent := !c.SentAt.IsZero() && inFlight >= timeout && e.heard() && e.quiet(c.Seq)
	start, quiet := time.Now(), e.Unheard()
	if spent {
		in, err = e.p.Wait(c, 0)
	} else {
		in, err = e.p.WaitUp(c, timeout)
	}
	switch {
	case err == nil:
		return in, nil
	case errors.Is(err, peer.ErrTimeout):
		e.p.Forget(c)
		bound := e.Waited(timeout, start, quiet)
		msg := fmt.Sprintf("no response to %s within %s", c.Describe(), bound)
		if over := e.p.OverCapAfter(c.Seq); over != "" {
			// The answer may be the frame wirecheck could not read: not
			// judged, and the server is no more hung than it is wrong.
			msg += "; not judged: " + over
			e.p.Check(verdict.CheckTimely, verdict.Error, c.Seq, msg, "", "")
			e.p.Check(verdict.CheckOneResponse, verdict.Error, c.Seq, msg, "", "")
			return nil, fmt.Errorf("%w: %s", ErrNoAnswer, msg)
		}
		e.Hung = true
		switch {
		case errors.Is(err, peer.ErrUnmatched):
			msg = fmt.Sprintf("no response to %s, and none owed: every request in flight had a response whose id matches none of them, one each, when the wait ended after %s (bound %s)",
				c.Describe(), time.Since(start).Round(time.Millisecond), e.Bound(timeout))
		case spent:
			msg = fmt.Sprintf("no response to %s in the %s since it was sent (bound %s), which other steps spent waiting", c.Describe(), inFlight.Round(time.Millisecond), e.Bound(timeout))
		}
		if c.Method != "" && !spent && e.quiet(c.Seq) {
			// Silent on this request alone, or hung: the probe after the
			// scenario tells (see Confirm). A request whose bound other
			// steps' waits spent went unanswered with them: a hang, which
			// a probe would only wait out again.
			e.suspect(dep, fmt.Sprintf("%s in scenario %s got no response within %s", c.Describe(), e.p.Scenario(), bound))
		}
		// The wait as the diagram shows it on the request: short, and
		// never shorter than the wait made.
		waited := timeout.String()
		switch {
		case spent:
			waited = inFlight.Round(time.Millisecond).String()
		case quiet:
			waited = time.Since(start).Round(time.Millisecond).String()
		}
		if e.unanswered == nil {
			e.unanswered = map[int]string{}
		}
		e.unanswered[c.Seq] = waited
		e.p.Unanswered(verdict.CheckTimely, c.Seq, waited, msg+e.Meanwhile(c.Seq), "a response within "+timeout.String(), "nothing")
		e.p.Unanswered(verdict.CheckOneResponse, c.Seq, waited, msg+e.Meanwhile(c.Seq), "exactly one response per request", "no response")
		return nil, fmt.Errorf("%w: %s%s", ErrNoAnswer, msg, e.Meanwhile(c.Seq))
	case errors.Is(err, peer.ErrOverCap):
		// Answered, but not readable within --max-frame: nothing of
		// the server's to report, and the caller may go on without it.
		why := c.Refused
		if !strings.Contains(why, "raise") {
			why += "; raise --max-frame to judge it"
		}
		return nil, fmt.Errorf("%w: the answer to request id %s (%s) is not judged: %s", peer.ErrOverCap, c.Key, c.Method, why)
	case errors.Is(err, peer.ErrUnsent):
		// The transport could not carry it: no server was asked.
		return nil, fmt.Errorf("%s %w", c.Describe(), err)
	case errors.Is(err, peer.ErrRefused):
		// Over HTTP: the exchange ended without an answer, and the peer
		// has judged that already.
		return nil, fmt.Errorf("%w: %s: %v", ErrNoAnswer, c.Describe(), err)
	default:
		return nil, fmt.Errorf("%w: %s", ErrGone, e.Gone())
	}
}

// heard reports whether the server has written its first line: before
// it, a wait's bound counts from that line (peer.Peer.WaitUp).
func (e *Env) heard() bool {
	select {
	case <-e.p.Heard():
		return true
	default:
		return false
	}
}

// Bound names a wait's bound and what sets it: --timeout when it is the
// run's timeout, the step's own bound otherwise.
func (e *Env) Bound(d time.Duration) string {
	if d == e.Timeout {
		return d.String() + " (--timeout)"
	}
	return d.String()
}

// Waited names a wait with bound d that ran out, begun at start by the
// peer's WaitUp or NextUp: the bound (Bound), or, when the server had
// written nothing yet as it began (quiet, see Unheard), so the wait was
// lengthened (a process still starting gets up to --startup-timeout more,
// peer.Options.StartupGrace), how long it lasted and why: a message never
// claims a wait shorter than the one made.
func (e *Env) Waited(d time.Duration, start time.Time, quiet bool) string {
	if !quiet {
		return e.Bound(d)
	}
	return fmt.Sprintf("%s (%s, lengthened as the server had written nothing yet: a process still starting gets up to --startup-timeout more)",
		time.Since(start).Round(time.Millisecond), e.Bound(d))
}

// Unheard reports whether the server has written nothing yet (no line on
// stdout) and the peer gives such a server a start-up grace: a WaitUp or
// NextUp begun now is lengthened by it.
func (e *Env) Unheard() bool {
	if e.p.StartupGrace() <= 0 {
		return false
	}
	select {
	case <-e.p.Heard():
		return false
	default:
		return true
	}
}

// Meanwhile says, after a wait that ended without what it waited for,
// whether the server is still running and what it wrote since transcript
// line seq: a server busy writing what wirecheck could not use reads
// differently from a silent one, and both differently from a dead one.
func (e *Env) Meanwhile(seq int) string {
	if seq < 0 {
		// The line waited after was not kept (the transcript was full):
		// where the wait began is unknown, so nothing is counted.
		return e.MeanwhileFrom(-1)
	}
	return e.MeanwhileFrom(seq + 1)
}

// MeanwhileFrom is Meanwhile counting what the server wrote from
// transcript line from on (a process's first line: a wait for its ready
// line); from < 0 counts nothing.
func (e *Env) MeanwhileFrom(from int) string {
	select {
	case <-e.p.Transport().Exited():
		return "; the server has exited (" + e.p.Transport().ExitStatus().String() + ")"
	case <-e.p.Gone():
		return "; the server closed its stdout"
	default:
	}
	rec := e.p.Recorder()
	out, errs := 0, 0
	var last string
	if rec == nil || from < 0 {
		return "; the server is still running"
	}
	for _, en := range rec.Slice(from, rec.Len()) {
		switch en.Dir {
		case transcript.Received:
			out++
			last = en.Text
		case transcript.Stderr:
			errs++
		}
	}
	if out == 0 && errs == 0 {
		return "; the server is still running and wrote nothing meanwhile"
	}
	msg := fmt.Sprintf("; the server is still running and wrote %d line(s) on stdout and %d on stderr meanwhile", out, errs)
	if last != "" {
		if len(last) > 160 {
			last = last[:160] + "…"
		}
		msg += ", the last on stdout: " + last
	}
	return msg
}

// Call sends a request and waits for its response.
func (e *Env) Call(v any) (*peer.Inbound, *peer.Call, error) {
	e.awaited = nil
	c, err := e.Send(v)
	if err != nil {
		return nil, nil, e.writeFailed(err)
	}
	if c == nil {
		return nil, nil, errors.New("request has no id: nothing to wait for")
	}
	in, err := e.Await(c, 0)
	return in, c, err
}

// Gone describes how the server ended: exited (with its status), or its
// stdout closed while the process runs on; with the tail of its stderr.
func (e *Env) Gone() string {
	status, tail := e.gone()
	return status + tail
}

// gone is Gone in two parts: how the server ended, and "; last stderr:
// …" (or "").
func (e *Env) gone() (status, tail string) {
	t := e.p.Transport()
	msg := "the server closed its stdout (the process is still running)"
	select {
	case <-t.Exited():
		msg = "the server exited (" + t.ExitStatus().String() + ")"
		// Its last words may still be in the stderr pipe; a child that
		// outlives it may hold the pipe open, so the wait is bounded.
		select {
		case <-e.p.StderrEnded():
		case <-time.After(200 * time.Millisecond):
		}
	case <-time.After(200 * time.Millisecond):
	}
	if lines := e.p.StderrTail(); len(lines) > 0 {
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		tail = "; last stderr: " + strings.Join(lines, " | ")
	}
	return msg, tail
}

// writeFailed is the error of a write the server did not take: its stdin
// is closed, which a server does by exiting.
func (e *Env) writeFailed(err error) error {
	return fmt.Errorf("%w: writing to its stdin failed (%v): %s", ErrGone, err, e.Gone())
}

// Unimplemented reports whether a response says the server does not
// implement the method it answers, by the protocol's unimplemented
// conditions.
func (e *Env) Unimplemented(in *peer.Inbound) bool {
	if in == nil || in.Value == nil {
		return false
	}
	for _, alt := range e.Protocol.Unimplemented {
		if peer.Matches(in.Value, alt) {
			return true
		}
	}
	return false
}

// Probe sends the protocol's known-good request and reports whether the
// server answered it.
func (e *Env) Probe() (*peer.Inbound, error) {
	// The process may speak another revision than the run asked for (a
	// server that fell back to an older handshake): ask in the peer's.
	if e.probeProtocol().Probe == nil {
		return nil, errors.New("the protocol defines no probe request")
	}
	n := len(e.suspects)
	in, _, err := e.Call(e.ProbeRequest())
	// The known-good request unanswered is a hang, not a method the
	// server leaves alone: nothing for the runner's probe to confirm.
	e.suspects = e.suspects[:n]
	return in, err
}

// probeProtocol is the protocol whose probe fits the process: it may speak
// another revision than the run asked for (a server that fell back to an
// older handshake), so ask in the peer's.
func (e *Env) probeProtocol() *spec.Protocol {
	if e.p != nil && e.p.Protocol() != nil {
		return e.p.Protocol()
	}
	return e.Protocol
}

// ProbeRequest builds the protocol's probe request with a fresh id (nil
// when the protocol has none).
func (e *Env) ProbeRequest() map[string]any {
	p := e.probeProtocol()
	if p.Probe == nil {
		return nil
	}
	req := make(map[string]any, len(p.Probe)+1) // and the id
	maps.Copy(req, p.Probe)
	if ptr := p.Correlation.ID; ptr != "" {
		req[strings.TrimPrefix(ptr, "/")] = NextID("probe")
	}
	return req
}

// Ready waits until the server has shown it is up, so a deadline that
// follows (an exit after stdin closes) measures the server's own step and
// not its start-up: a server has shown it when it has written a line (its
// ready line, an answer); one that has said nothing yet is sent the
// protocol's probe and given its answer (the wait counts from the server's
// first line, see peer.Options.StartupGrace). A probe left unanswered is
// not judged here: the step that follows judges what it waits for.
func (e *Env) Ready() {
	select {
	case <-e.p.Heard():
		return
	case <-e.p.Gone():
		return
	default:
	}
	req := e.ProbeRequest()
	if req == nil {
		return
	}
	c, err := e.Send(req)
	if err != nil || c == nil {
		return
	}
	if _, err := e.p.WaitUp(c, e.Timeout); err != nil {
		e.p.Forget(c)
	}
}

// Check evaluates assertions on a frame and returns a description of the
// first that fails ("" when all hold) and what was expected.
func (a *Assert) Check(in *peer.Inbound) (problem, expected string) {
	if a.Kind != "" {
		got := "(unclassified)"
		if in.Kind != nil {
			got = in.Kind.Name
		}
		if got != a.Kind {
			return "the frame is a " + got, "a " + a.Kind + " frame"
		}
	}
	for _, p := range sortedKeys(a.Match) {
		want := a.Match[p]
		got, ok := in.Field(p)
		if !ok {
			return p + " is absent", fmt.Sprintf("%s = %s", p, show(want))
		}
		if !peer.Equal(got, jsonval.Clone(want)) {
			return fmt.Sprintf("%s = %s", p, show(got)), fmt.Sprintf("%s = %s", p, show(want))
		}
	}
	for _, p := range a.Present {
		if _, ok := in.Field(p); !ok {
			return p + " is absent", p + " present"
		}
	}
	for _, p := range a.Absent {
		if v, ok := in.Field(p); ok {
			return fmt.Sprintf("%s = %s", p, show(v)), p + " absent"
		}
	}
	for _, p := range sortedKeys(a.Pattern) {
		re := a.Pattern[p]
		got, ok := in.Field(p)
		s, isStr := got.(string)
		if !ok || !isStr || !regexp.MustCompile(re).MatchString(s) {
			if !ok {
				return p + " is absent", fmt.Sprintf("%s matching /%s/", p, re)
			}
			return fmt.Sprintf("%s = %s", p, show(got)), fmt.Sprintf("%s matching /%s/", p, re)
		}
	}
	for _, p := range sortedKeys(a.Type) {
		want := a.Type[p]
		got, ok := in.Field(p)
		if !ok || jsonType(got) != want {
			if !ok {
				return p + " is absent", p + " of type " + want
			}
			return fmt.Sprintf("%s is a %s (%s)", p, jsonType(got), show(got)), p + " of type " + want
		}
	}
	return "", ""
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func show(v any) string { return Show(v, 200) }

// Show renders a value as JSON for a finding's message, cut at limit bytes
// (0: whole) so a server's huge answer cannot flood the report.
func Show(v any, limit int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if limit > 0 && len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}

// Identify records the server's own name and version as the protocol
// has it say them (a handshake's server info, a ready line's fields), for the
// report's certificate: what was certified, beside how it was reached.
func (e *Env) Identify(name, version string) {
	if e.Identified != nil && (name != "" || version != "") {
		e.Identified(name, version)
	}
}

// Agree records the revision the server agreed to when the suite opened
// the current process's session with the run's revision: a run over
// several revisions (run --revision all) learns from it which of them the
// server speaks.
func (e *Env) Agree(revision string) {
	if e.Agreed != nil {
		e.Agreed(revision)
	}
}

// Idle says the scenario waits by design from now until the returned
// function is called: a silence it listens to, a pause it keeps, not an
// answer it waits for. Against a running server the runner lends the
// lane's place meanwhile, so a run of many such waits is not held to
// --jobs of them at once; the wait may end later than asked (the lane
// waits for a place again), never sooner.
func (e *Env) Idle() (over func()) {
	if e.Waiting == nil {
		return func() {}
	}
	return e.Waiting()
}

// Pause sleeps d, a wait by design (see Idle).
func (e *Env) Pause(d time.Duration) {
	if d <= 0 {
		return
	}
	over := e.Idle()
	defer over()
	time.Sleep(d)
}
