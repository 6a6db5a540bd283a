package peer

import (
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ErrRefused ends a wait whose request's HTTP exchange ended without a
// JSON-RPC answer (an error status with no JSON-RPC body, a redirect
// loop, a stream closed early): nothing more will come on it, so the wait
// ends at once instead of running out its timeout. Call.Refused says why.
var ErrRefused = errors.New("the request's exchange ended without an answer")

// ErrUnsent ends a wait whose request the transport did not send, having
// no way to carry it (transport.Via.Unsent): no server was asked, so
// nothing is judged of it. Call.Refused says why.
var ErrUnsent = errors.New("not sent")

// ended takes a frame that carries no message but says why an HTTP
// exchange ended without one: the call the POST carried is answered by
// that refusal at once; the answer a raw POST was owed is the refusal,
// queued for the scenario that sent it.
func (p *Peer) ended(f transport.Frame) {
	via := f.HTTP
	if via.Unsent {
		p.unsent(f, via)
		return
	}
	p.mu.Lock()
	call := p.pending[via.For]
	raw := via.For == "" && p.anon > 0
	if raw {
		p.takeAnon()
		if p.onStream() {
			p.refusedRaw++
		}
	}
	p.mu.Unlock()
	if call == nil {
		seq := p.o.Recorder.Add(transcript.Note, []byte("an HTTP exchange ended without a JSON-RPC answer: "+via.End))
		if raw {
			p.deliver(&Inbound{Seq: seq, At: f.At, HTTP: via, Invalid: true, Problem: "no JSON-RPC answer: " + via.End})
		}
		return
	}
	what := call.Describe()
	seq := p.o.Recorder.Add(transcript.Note, []byte("the exchange of "+what+" ended without a JSON-RPC answer: "+via.End))
	p.mu.Lock()
	if p.pending[call.Key] != call {
		// Given up on meanwhile (its wait timed out and forgot it).
		p.mu.Unlock()
		return
	}
	delete(p.pending, call.Key)
	p.answer(call)
	call.Refused, call.overCap = via.End, via.OverCap
	call.Response = &Inbound{Seq: seq, At: f.At, HTTP: via, Call: call, Problem: "no JSON-RPC answer: " + via.End}
	p.mu.Unlock()
	// A dropped stream is the transport's http.stream-has-response to
	// judge; an authorization refusal is the answer the authorization
	// pages ask of a server, owed no JSON-RPC response.
	if via.OverCap {
		p.endedOverCap(call, seq, what, via.End)
	} else if !via.Dropped && !via.Authorization && !call.unjudged && !(via.TimedOut && call.patient) {
		msg := "no JSON-RPC response to " + what + ": " + via.End
		p.check(verdict.CheckTimely, call.Scenario, verdict.Fail, seq, msg, "a response", via.End)
		p.check(verdict.CheckOneResponse, call.Scenario, verdict.Fail, seq, msg, "exactly one response per request", "no response")
	}
	// Observations first, as for a response: a scenario that wakes on
	// done may end at once.
	close(call.done)
}

// unsent takes the end of an exchange the transport never sent: the call
// it carried is done, with no answer and no verdict; a raw line owes
// nothing.
func (p *Peer) unsent(f transport.Frame, via *transport.Via) {
	p.mu.Lock()
	call := p.pending[via.For]
	if via.For == "" {
		p.takeAnon()
	}
	p.mu.Unlock()
	what := "a raw line"
	if call != nil {
		what = call.Describe()
	}
	seq := p.o.Recorder.Add(transcript.Note, []byte(what+" not sent: "+via.End))
	if call == nil {
		return
	}
	p.mu.Lock()
	if p.pending[call.Key] != call {
		p.mu.Unlock()
		return
	}
	// Not answered: an answer with its id would answer a request never
	// sent.
	delete(p.pending, call.Key)
	call.Refused, call.unsent = via.End, true
	call.Response = &Inbound{Seq: seq, At: f.At, HTTP: via, Call: call, Problem: via.End}
	p.mu.Unlock()
	close(call.done)
}

// onStream reports whether the server answers on a stream apart from the
// request (transport.Apart), where nothing ties its answers to the
// request's status. A server may refuse a raw line's request with an
// error status, send its JSON-RPC error on the stream, or both, in either
// order; so the refusal is the line's answer but leaves room for one error
// after it, or the verdict would hang on which of the two came first.
func (p *Peer) onStream() bool {
	x, ok := p.o.Transport.(transport.Apart)
	return ok && x.AnswersApart()
}

// answer is what a wait on a call that is done returns.
func answer(c *Call) (*Inbound, error) {
	if c.Refused != "" && c.overCap {
		return nil, fmt.Errorf("%w: %w: %s", ErrRefused, ErrOverCap, c.Refused)
	}
	if c.Refused != "" && c.unsent {
		return nil, fmt.Errorf("%w: %s", ErrUnsent, c.Refused)
	}
	if c.Refused != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, c.Refused)
	}
	return c.Response, nil
}
