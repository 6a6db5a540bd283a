package scenario

import (
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// What a scenario may ask of the server process, besides sending (Send,
// SendUnjudged, SendProbe, SendRaw, Do) and reporting (Pass, Fail, Skip,
// Errorf, Notef). Waiting comes in four forms:
//
//   - Await (and Call, which sends first): a request's response, judged:
//     silence within the bound is a finding, death is ErrGone;
//   - Response: a request's response within a bound, judged nothing (the
//     scenario decides what silence means; Forget gives the call up);
//   - NextFrame: the next uncorrelated frame (a notification, a server's
//     request, an answer to raw input) that matches, within a bound;
//   - Drain: the frames that match as they arrive, until a bound passes.

// SetPeer makes p the peer of the current server process: the runner's and
// the session's, when a process starts.
func (e *Env) SetPeer(p *peer.Peer) { e.p = p }

// Peer is the peer of the current server process, for the runner and the
// session that set it (scenarios use Env's methods; api_test.go).
func (e *Env) Peer() *peer.Peer { return e.p }

// Response returns a call's response if it comes within d (0: only if it
// has come), judging nothing: ErrTimeout, or ErrExited once the server's
// output ended, leave the call in flight (Forget gives it up).
func (e *Env) Response(c *peer.Call, d time.Duration) (*peer.Inbound, error) {
	return e.p.Wait(c, d)
}

// Forget gives up a call left unanswered, so a late answer is judged late
// and not a stray.
func (e *Env) Forget(c *peer.Call) { e.p.Forget(c) }

// NextFrame takes the oldest uncorrelated frame that match accepts (nil:
// any), waiting up to d (0: only looks); frames passed over stay queued.
func (e *Env) NextFrame(d time.Duration, match func(*peer.Inbound) bool) (*peer.Inbound, error) {
	if match == nil {
		return e.p.Next(d)
	}
	return e.p.NextWhere(d, match)
}

// Drain yields the uncorrelated frames that match accepts (nil: any), each
// taken as the loop asks for it, until d has passed since the loop began
// (0: those already queued) or the server's output ended.
func (e *Env) Drain(d time.Duration, match func(*peer.Inbound) bool) iter.Seq[*peer.Inbound] {
	return func(yield func(*peer.Inbound) bool) {
		deadline := time.Now().Add(d)
		for {
			in, err := e.NextFrame(time.Until(deadline), match)
			if err != nil || !yield(in) {
				return
			}
		}
	}
}

// SendRaw writes bytes as they are, framing included (malformed input);
// when answerable, one response with a null id is owed and not a stray.
func (e *Env) SendRaw(b []byte, answerable bool) error { return e.p.SendRaw(b, answerable) }

// ForgetRaw gives up the answer owed to one raw line (SendRaw answerable).
func (e *Env) ForgetRaw() { e.p.ForgetRaw() }

// Patient marks a call whose answer may outlast --timeout without breaking
// a rule (peer.Peer.Patient).
func (e *Env) Patient(c *peer.Call) { e.p.Patient(c) }

// InFlight lists the calls still waiting for a response.
func (e *Env) InFlight() []*peer.Call { return e.p.InFlight() }

// CloseInput closes the server's stdin.
func (e *Env) CloseInput() error { return e.p.Transport().CloseInput() }

// Exited is closed once the server process has exited.
func (e *Env) Exited() <-chan struct{} { return e.p.Transport().Exited() }

// OutputEnded is closed once the server's output has ended (it exited, or
// closed stdout).
func (e *Env) OutputEnded() <-chan struct{} { return e.p.Gone() }

// OutputOver reports whether the server's output has ended by now: a
// call whose wait failed was on a server that died, not one that was
// slow (the peer knows which, with no timing of the scenario's own).
func (e *Env) OutputOver() bool {
	select {
	case <-e.OutputEnded():
		return true
	default:
		return false
	}
}

// StderrTail is the last lines the server wrote on stderr (none without a
// process: an Env a unit test made).
func (e *Env) StderrTail() []string {
	if e.p == nil {
		return nil
	}
	return e.p.StderrTail()
}

// Ability sets *ptr to the connection when its transport has the ability
// ptr's interface type names (one a protocol module defines, e.g. its HTTP
// probes) and says whether it did; the engine never names it. ptr must be
// a non-nil pointer to a variable of interface type.
func (e *Env) Ability(ptr any) bool {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Interface {
		panic(fmt.Sprintf("scenario.Env.Ability: want a pointer to an interface variable, got %T", ptr))
	}
	t := e.p.Transport()
	if t == nil || !reflect.TypeOf(t).Implements(v.Elem().Type()) {
		return false
	}
	v.Elem().Set(reflect.ValueOf(t))
	return true
}

// RequestCloser is the transport's way to end one request's stream, when
// it has one.
func (e *Env) RequestCloser() (transport.RequestCloser, bool) {
	rc, ok := e.p.Transport().(transport.RequestCloser)
	return rc, ok
}

// Scenario names the scenario running, for messages.
func (e *Env) Scenario() string { return e.p.Scenario() }

// Annotate adds a note to the transcript and returns its line.
func (e *Env) Annotate(text string) int { return e.p.Recorder().Add(transcript.Note, []byte(text)) }

// Lines is how many lines the transcript has: the next one's number.
func (e *Env) Lines() int { return e.p.Recorder().Len() }

// Check records a finding of one of the peer's own checks
// (verdict.CheckTimely, …).
func (e *Env) Check(name string, v verdict.Verdict, seq int, msg, expected, actual string) {
	e.p.Check(name, v, seq, msg, expected, actual)
}

// HoldChecks holds the peer's findings until ReleaseChecks, which keeps
// those keep accepts (nil: all).
func (e *Env) HoldChecks() { e.p.HoldChecks() }

// ReleaseChecks ends HoldChecks (peer.Peer.ReleaseChecks).
func (e *Env) ReleaseChecks(keep func(verdict.Observation) bool) { e.p.ReleaseChecks(keep) }

// PassNote is Pass saying on which reading the rule held.
func (e *Env) PassNote(rule string, seq int, msg string) {
	e.Observe(verdict.Observation{Rule: rule, Verdict: verdict.Pass, Seq: seq, Message: msg})
}

// State is the process's value under key, made by init on first use: what
// a protocol keeps per server process.
func (e *Env) State(key any, init func() any) any { return e.p.State(key, init) }

// Judge is the process's frame judge (peer.Judge).
func (e *Env) Judge() peer.Judge { return e.p.Judge() }

// SetProtocol makes the peer judge by p: the revision the process speaks.
func (e *Env) SetProtocol(p *spec.Protocol) { e.p.SetProtocol(p) }

// SessionProtocol is the protocol the peer judges by now: env.Protocol,
// or the revision SetProtocol gave it (a client that opened with an
// older revision's initialize).
func (e *Env) SessionProtocol() *spec.Protocol { return e.p.Protocol() }

// SetHandler answers the server's requests with h.
func (e *Env) SetHandler(h peer.Handler) { e.p.SetHandler(h) }

// Reply sends a message wirecheck owes no answer to track (peer.Reply):
// a response to a request the other side sent, or a notification. seq
// is its transcript line: a frame received on an earlier line was sent
// before the other side could have read it.
func (e *Env) Reply(v any) (seq int, err error) {
	b, err := json.Marshal(v)
	if err != nil {
		return -1, fmt.Errorf("cannot encode message: %w", err)
	}
	return e.p.Reply(b)
}
