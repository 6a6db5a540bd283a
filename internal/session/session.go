// Package session is one server process as run, fuzz and replay see it:
// launched through a target.Target, its peer, its ready line awaited (the
// protocol's startup rule observed pass or fail), the error that says why
// it never started, the liveness probe between scenarios or sequences, and
// Close. Whoever holds sessions (the runner's lanes, the fuzzer) keeps only
// its own coordination: which scenarios share a process, how many start at
// once.
package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Defaults for Options.
const (
	DefaultTimeout        = 5 * time.Second
	DefaultStartupTimeout = 10 * time.Second
)

// ErrNotStarted means the target could not be started or never became
// ready; the CLI exits 3. Errors that say so wrap it (see NotStarted).
var ErrNotStarted = errors.New("the target could not be started")

// NotStarted is the error of a session that never began, with the evidence
// a user needs to tell a wrong command from a slow or broken server.
type NotStarted struct {
	// Cause says what went wrong: the launch error, or what the wait for
	// the ready line saw (the process exited, or wrote what meanwhile).
	Cause string
	// Launched says the process started, so a ready line was awaited.
	Launched bool
	// Stderr holds the last lines the process wrote on stderr.
	Stderr []string
	// Awaited, when set, is what the wait was for other than the ready
	// line (a launched HTTP server's port).
	Awaited string
	// Within and Flag, when set, bound the wait Awaited names and say
	// which flag sets it; else the startup timeout does.
	Within time.Duration
	Flag   string
	// URL, when set, is the running server (--url alone) that could not
	// be reached (see Reach); Check then says what to check.
	URL   string
	Check string
	// Client says the target is a client under test (--role client):
	// the block names it so. Hint is what to check for a launched one.
	Client bool
	Hint   string
}

func (e *NotStarted) Error() string {
	if e.URL != "" {
		return "the target could not be reached: " + e.Cause
	}
	return ErrNotStarted.Error() + ": " + e.Cause
}

// Unwrap makes errors.Is(err, ErrNotStarted) hold.
func (e *NotStarted) Unwrap() error { return ErrNotStarted }

// Options say what to start and how to judge it.
type Options struct {
	Target   target.Target
	Protocol *spec.Protocol
	Schemas  *schema.Registry
	// Recorder takes the transcript; several sessions may share one (a
	// runner lane's processes, one after the other). Nil: a new one.
	Recorder *transcript.Recorder
	// Observe receives every observation of the peer and of the ready
	// line (nil: they are dropped).
	Observe verdict.Observer
	// Handler answers requests the server sends.
	Handler peer.Handler
	// Judge makes the protocol's frame judge of each process (nil: none).
	Judge peer.NewJudge
	// Timeout bounds each response (the liveness probe's too);
	// StartupTimeout the ready line. 0: the defaults.
	Timeout        time.Duration
	StartupTimeout time.Duration
	// Abort, when closed, ends the wait for the ready line at once (the
	// runner closes it when another process of the run failed to start,
	// so the rest are not waited out one startup timeout each).
	Abort <-chan struct{}
	// Scenario names what the peer observes from its first frame on (the
	// runner's "startup"); see peer.Options.Scenario.
	Scenario string
	// Identified, when set, is told the server's name and version its
	// ready line states (spec Startup.Identify).
	Identified func(name, version string)
}

// PeerOptions are the options of the peer of a session of o over t: the
// one place where how a session's frames are judged is wired (the
// protocol that classifies them, the schemas that validate them, the
// handler of server requests, the frame judge), whichever command opened
// it (run and replay through the runner, fuzz through its campaign).
// Launch calls it after the defaults are filled in.
func (o Options) PeerOptions(t transport.Transport) peer.Options {
	return peer.Options{
		Protocol: o.Protocol, Schemas: o.Schemas, Transport: t,
		Recorder: o.Recorder, Observe: o.Observe, Handler: o.Handler, Judge: o.Judge,
		// A wait before the server's first line also covers its start-up.
		StartupGrace: o.StartupTimeout,
		Scenario:     o.Scenario,
	}
}

// Session is one launched server process and its peer.
type Session struct {
	o Options
	p *peer.Peer
	// from is the transcript line before which the process wrote nothing.
	from int
}

// Launch starts a fresh process of the target and its peer. It does not
// wait for the ready line (see AwaitReady): a caller that bounds the
// processes starting at once watches Peer().Heard() meanwhile. The error
// is a *NotStarted when the process could not be started (or, over HTTP,
// its port never answered), ErrAborted when Options.Abort ended the wait
// for the port.
func Launch(o Options) (*Session, error) {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartupTimeout == 0 {
		o.StartupTimeout = DefaultStartupTimeout
	}
	if o.Recorder == nil {
		o.Recorder = transcript.NewRecorder()
	}
	if o.Observe == nil {
		o.Observe = func(verdict.Observation) {}
	}
	from := o.Recorder.Len()
	t, err := o.Target.Launch(target.Bounds{Timeout: o.Timeout, Startup: o.StartupTimeout, Abort: o.Abort})
	var nr *target.NotReady
	switch {
	case errors.Is(err, target.ErrAborted):
		return nil, ErrAborted
	case errors.As(err, &nr):
		return nil, &NotStarted{Cause: nr.Cause, Launched: true, Stderr: nr.Stderr, Client: o.Target.Client, Hint: nr.Hint,
			Awaited: cmp.Or(nr.Awaited, "an answer on its port (OPTIONS *, or a TLS handshake)")}
	case err != nil:
		return nil, &NotStarted{Cause: err.Error(), Client: o.Target.Client}
	}
	p := peer.New(o.PeerOptions(t))
	hook(t, p, o.Recorder)
	s := &Session{o: o, p: p, from: from}
	if st, ok := t.(transport.Starter); ok {
		if err := st.Started(); err != nil {
			s.Close()
			// The server answered (or a process runs): it is there but
			// never began a session.
			return nil, &NotStarted{Cause: err.Error(), Launched: true, Stderr: s.stderr(),
				Awaited: st.Awaits(), Within: o.Timeout, Flag: "--timeout"}
		}
	}
	return s, nil
}

// Reach opens the run's first connection to a running server given by
// URL alone (target.Target.Reach), before any session: one that cannot be
// reached is a *NotStarted, the run ends as one whose command could not
// be started, rather than each scenario blaming the server for what no
// server did. Only the first connection is tried here: a server that
// goes away later is the run's finding. Nil for any other target.
func Reach(ctx context.Context, t target.Target, timeout time.Duration) error {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	var un *target.Unreachable
	if err := t.Reach(ctx, timeout); errors.As(err, &un) {
		ns := &NotStarted{Cause: un.Cause, URL: un.URL, Check: un.Check,
			Awaited: "a connection to the host and port --url names"}
		if un.Within > 0 {
			ns.Within, ns.Flag = un.Within, "--timeout"
		}
		return ns
	}
	return nil
}

// Open launches a process and waits until it is ready (AwaitReady).
func Open(o Options) (*Session, error) {
	s, err := Launch(o)
	if err != nil {
		return nil, err
	}
	if err := s.AwaitReady(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Peer is the session's peer.
func (s *Session) Peer() *peer.Peer { return s.p }

// Protocol is the protocol the session was opened with.
func (s *Session) Protocol() *spec.Protocol { return s.o.Protocol }

// AwaitReady waits for the protocol's ready line, when it has one, and
// observes its startup rule: pass for a ready line first, fail for another
// line first or none in time. Observations go to the peer's current
// scenario (the runner names it "startup"). The error is a *NotStarted
// when no ready line came; ErrAborted when Options.Abort ended the wait
// (and the process), and then nothing is observed.
func (s *Session) AwaitReady() error {
	st := s.o.Protocol.Startup
	if st == nil {
		return nil
	}
	p := s.p
	// An abort ends the process, unless the wait has ended first: a
	// process that became ready is the caller's to keep or close.
	var (
		mu              sync.Mutex
		waited, aborted bool
	)
	done := make(chan struct{})
	if s.o.Abort != nil {
		go func() {
			select {
			case <-s.o.Abort:
				mu.Lock()
				if !waited {
					aborted = true
					p.Transport().Close()
				}
				mu.Unlock()
			case <-done:
			}
		}()
	}
	first, err := p.AwaitKind(st.Kind, s.o.StartupTimeout)
	mu.Lock()
	waited = true
	mu.Unlock()
	close(done)
	if aborted {
		return ErrAborted
	}
	if first != nil && (first.Kind == nil || first.Kind.Name != st.Kind) {
		s.o.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: first.Seq,
			Message:  "the first stdout line is not the ready line",
			Expected: "a " + st.Kind + " frame first", Actual: string(first.Raw)})
	}
	if err != nil {
		env := s.Env()
		why := "no ready line within " + s.o.StartupTimeout.String() + " (--startup-timeout)" + env.MeanwhileFrom(s.from)
		if first != nil {
			// Which frame the wait saw first, when not the ready line: a
			// line recorded but never seen here was lost on the way.
			why += "; the first line read was " + kindName(first)
		} else if p.Frames() > 0 {
			why += "; no line reached the wait"
		}
		if errors.Is(err, peer.ErrExited) {
			why = env.Gone()
		}
		s.o.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: -1,
			Message: "the server never printed its ready line: " + why, Expected: "a " + st.Kind + " frame first", Actual: "nothing"})
		return &NotStarted{Cause: why, Launched: true, Stderr: s.stderr()}
	}
	if first.Kind != nil && first.Kind.Name == st.Kind {
		s.o.Observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Pass, Seq: first.Seq})
		if id := st.Identify; id != nil {
			env := s.Env()
			env.Identified = s.o.Identified
			env.Identify(stringAt(first, id.Name), stringAt(first, id.Version))
		}
	}
	return nil
}

// stringAt is the string at ptr in a frame, "" when ptr is unset or
// holds none.
func stringAt(in *peer.Inbound, ptr string) string {
	if ptr == "" {
		return ""
	}
	v, _ := in.Field(ptr)
	s, _ := v.(string)
	return s
}

// ErrAborted ends a wait for the ready line (or, over HTTP, for the port)
// that Options.Abort cut short.
var ErrAborted = errors.New("the wait for the ready line was aborted")

// stderr is the last stderr lines the process wrote.
func (s *Session) stderr() []string {
	return report.StartupStderr(s.o.Recorder.Slice(s.from, -1))
}

// Env is a scenario environment on the session's peer: its protocol, its
// timeout and its observer. The caller adds what its scenarios need (a
// seed, params, the causes its lane learned, Restart).
func (s *Session) Env() *scenario.Env {
	e := &scenario.Env{Protocol: s.o.Protocol, Timeout: s.o.Timeout, Observe: s.o.Observe, Identified: s.o.Identified}
	e.SetPeer(s.p)
	return e
}

// Up waits until a process with no ready line has shown it is up: it has
// written a line, or answered the protocol's probe (see scenario.Env.Ready),
// so a deadline that follows measures the server's own step and not its
// start-up. A process with a ready line has shown it in AwaitReady.
func (s *Session) Up() { s.Env().Ready() }

// Ended reports whether the server's output has ended or its process has
// exited.
func (s *Session) Ended() bool { return Ended(s.p) }

// Ended reports whether a peer's server has closed its output or exited.
func Ended(p *peer.Peer) bool {
	select {
	case <-p.Gone():
		return true
	case <-p.Transport().Exited():
		return true
	default:
		return false
	}
}

// Close ends the process and its peer.
func (s *Session) Close() {
	if s != nil && s.p != nil {
		s.p.Close()
	}
}

// kindName says what a frame was taken for, with its first bytes: a
// ready line taken for something else reads differently from another
// line read first.
func kindName(in *peer.Inbound) string {
	what := "a frame of no kind the protocol defines"
	switch {
	case in.Kind != nil:
		what = "a " + in.Kind.Name + " frame"
	case in.Problem != "":
		what = "refused: " + in.Problem
	}
	head := in.Raw
	if len(head) > 80 {
		head = head[:80]
	}
	return fmt.Sprintf("%s: %q", what, head)
}
