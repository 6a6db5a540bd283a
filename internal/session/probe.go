package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// State is what the liveness probe found of a process after a scenario or
// a fuzz sequence.
type State int

// The states, from the probe's answer.
const (
	// Unknown: nothing tells whether the process is well (the protocol
	// has no probe, the server never answers it, or the scenario stopped
	// on its own finding and the probe went unanswered). Keep the process
	// only if the scenario left it in order.
	Unknown State = iota
	// Alive: the process answered the probe.
	Alive
	// Hung: the process runs but no longer answers the probe it answered
	// before.
	Hung
	// Dead: the process exited or closed its output.
	Dead
	// Closed: the scenario closed its stdin; the process is meant to end.
	Closed
	// Refused: the process ended the probe's exchange without an answer
	// (an HTTP server's 400 to a request outside a session, a 404 for a
	// session it ended): it runs, but its session is not one the next
	// scenario can be given.
	Refused
)

func (s State) String() string {
	return [...]string{"unknown", "alive", "hung", "dead", "closed", "refused"}[s]
}

// Health is the liveness probe's finding; Why says what was seen, for a
// dead or hung process.
type Health struct {
	State State
	Why   string
	// Keep says the process may serve the next scenario or sequence: it
	// is neither dead, hung nor closing, nothing went unanswered, and a
	// scenario that stopped on a finding (an error answer it could not go
	// on from) left it answering the probe, where a new process would
	// cost a start and show nothing more.
	Keep bool
	// answered says the scenario ran to its end and every request it made
	// was answered (nothing hung, stdin still open): with no probe
	// answer to go by, that is the evidence the server still serves.
	answered bool
}

// Untouched is the health of a process a scenario sent nothing: it cannot
// have broken it, it is kept, and it still serves as it did.
func Untouched() Health { return Health{Keep: true, answered: true} }

// Survival is the one health verdict run and fuzz give the rule that the
// server keeps running (verdict.CheckSurvives) after a scenario or a
// sequence; judged is false when nothing tells either way.
//
// A process that answered the probe is healthy whatever the answer: a
// result, an error, or a refusal that ends the exchange (an HTTP 400 to a
// request outside a session): it runs and it answers, whether or not the
// scenario stopped on a finding of its own or the next one can be given
// its session (that is Keep, a question of reuse, not of health). Where
// there was no probe answer to go by (the protocol has none, or this
// server never answers it), a process that is still running and answered
// every request the scenario made is healthy too. No answer within the
// timeout to a probe the server answered before is a hang and an exit is
// a death: both fail. A closed stdin (the exit rule judges what follows)
// and a scenario that stopped unanswered with no probe to tell are no
// evidence either way.
//
// The runner once passed only a scenario that ran to its end (an answered
// probe after a stopped scenario was no pass) and the fuzzer only an
// answered probe (a clean sequence against a server with no probe was
// none): each left out evidence the other took, and the same exchange was
// judged differently by run and fuzz.
func (h Health) Survival() (v verdict.Verdict, judged bool) {
	switch h.State {
	case Dead, Hung:
		return verdict.Fail, true
	case Alive, Refused:
		return verdict.Pass, true
	case Unknown:
		return verdict.Pass, h.answered
	}
	return "", false
}

// probeCause is the cause learned for a server that does not answer the
// probe at all.
const probeCause = "answer to the probe between scenarios"

// Probe looks at the process once a scenario (or fuzz sequence) driven
// through env is over, before the next one starts, so a death or a hang is
// charged to the scenario during which it happened rather than to the next
// one, which would find the server gone. stopped is the scenario's error
// (nil when it ran to its end). It checks whether the process has ended
// and, where the protocol has a probe, whether it still answers it: a
// server that crashes a moment after its last answer (a pending callback
// torn down by a kill) dies by the time the probe is read. The probe's
// answer is awaited for env.Timeout.
func Probe(env *scenario.Env, stopped error) Health {
	h := probe(env, stopped)
	h.answered = stopped == nil && !env.Hung && !env.Closed && h.State == Unknown
	h.Keep = !env.Hung && !env.Closed && (h.State == Alive || h.State == Unknown && stopped == nil)
	return h
}

func probe(env *scenario.Env, stopped error) Health {
	p := env.Peer()
	if env.Closed {
		return Health{State: Closed}
	}
	if Ended(p) {
		return Health{State: Dead, Why: env.Gone()}
	}
	// A scenario that stopped on its own finding (a request left
	// unanswered) has reported it, and the process is replaced; the probe
	// only tells whether the server was hung or left that request alone
	// unanswered, which later waits then need not wait out (Confirm).
	halted := stopped != nil || env.Hung
	if env.Hung && !env.Suspected() {
		return Health{}
	}
	proto := p.Protocol()
	if proto == nil || proto.Probe == nil {
		return Health{}
	}
	if env.Cause(probeCause) != "" {
		// This server does not answer the probe: asking again would only
		// cost another timeout.
		return Health{}
	}
	method, _ := proto.Probe[strings.TrimPrefix(proto.Correlation.Method, "/")].(string)
	// A server that answered the probe's method before and now does not
	// has stopped answering; one never seen to answer it may not
	// understand it, which says nothing about this scenario.
	known := p.Answered(method)
	c, serr := env.SendProbe()
	if serr != nil || c == nil {
		if Ended(p) || serr != nil {
			return Health{State: Dead, Why: env.Gone()}
		}
		return Health{}
	}
	_, werr := p.Wait(c, env.Timeout)
	switch {
	case werr == nil:
		env.Confirm()
		return Health{State: Alive}
	case halted && errors.Is(werr, peer.ErrTimeout):
		p.Forget(c)
		return Health{}
	case errors.Is(werr, peer.ErrTimeout) && !known:
		p.Forget(c)
		env.Learn(probeCause, fmt.Sprintf("the probe, %s, got no answer within %s (--timeout) after scenario %s", peer.DescribeRequest(c.Key, method), env.Timeout, p.Scenario()))
		return Health{}
	case errors.Is(werr, peer.ErrRefused):
		return Health{State: Refused, Why: werr.Error()}
	case errors.Is(werr, peer.ErrTimeout):
		p.Forget(c)
		return Health{State: Hung, Why: fmt.Sprintf("the server stopped answering during this scenario: the probe, %s, which it answered before, got no answer within %s (--timeout)", peer.DescribeRequest(c.Key, method), env.Timeout)}
	default:
		return Health{State: Dead, Why: env.Gone()}
	}
}
