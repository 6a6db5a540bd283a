package peer

import (
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Judge is a protocol module's frame judge for one server process: the
// rules a frame's schema cannot decide because they depend on what came
// before it in this process (a capability declared, a token sent). The
// peer shows it every frame in both directions, whichever command sent
// the request (run, replay, fuzz), so a rule it decides is judged the
// same on every path. A Judge is called from the peer's reader and from
// whoever sends: it guards its own state.
type Judge interface {
	// Sent sees a frame wirecheck writes, before it is written: raw is
	// its bytes, c its call when it is a request the peer tracks.
	Sent(raw []byte, c *Call)
	// Received sees a frame the server wrote that is of a kind of the
	// protocol, after its schema checks; method is the method of the
	// request it answers ("" when none).
	Received(in *Inbound, method string, v Verdicts)
}

// NewJudge makes the judge of one server process, for the protocol (and
// revision) the peer judges it by when it starts.
type NewJudge func(*spec.Protocol) Judge

// Verdicts records a judge's observations in the scenario a frame
// belongs to (scenario.Env is one too).
type Verdicts interface {
	Pass(rule string, seq int)
	Fail(rule string, seq int, msg, expected, actual string)
	Skip(rule, why string)
}

// verdicts is the peer's Verdicts for one frame.
type verdicts struct {
	p    *Peer
	scen string
}

func (v verdicts) Pass(rule string, seq int) {
	v.p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Pass, Scenario: v.scen, Seq: seq})
}

func (v verdicts) Fail(rule string, seq int, msg, expected, actual string) {
	v.p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Fail, Scenario: v.scen, Seq: seq, Message: msg, Expected: expected, Actual: actual})
}

func (v verdicts) Skip(rule, why string) {
	v.p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Skip, Scenario: v.scen, Seq: -1, Message: why})
}

// Answer is the call's response once the peer has routed it, nil before:
// unlike Response it may be read on any goroutine (a judge reading
// frames on another reader than the one routing the answer). A Call made
// outside a peer has only its Response.
func (c *Call) Answer() *Inbound {
	if c.done == nil {
		return c.Response
	}
	select {
	case <-c.done:
		return c.Response
	default:
		return nil
	}
}

// Judge is the frame judge of this peer's process (nil when the protocol
// brings none): a scenario asks it what it judged.
func (p *Peer) Judge() Judge { return p.judge }

// sent shows a frame wirecheck writes to the judge.
func (p *Peer) sent(raw []byte, c *Call) {
	if p.judge != nil {
		p.judge.Sent(raw, c)
	}
}
