package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ErrOverCap ends a wait whose answer came in a frame over --max-frame
// (with ErrRefused): the server answered, wirecheck could not read it, so
// a scenario may go on as if that one request had not been sent.
var ErrOverCap = errors.New("the answer was over wirecheck's --max-frame")

// OverCap is what wirecheck says of a frame over its --max-frame cap: its
// own bound, which the user can raise, not a fault of the server's (no
// document bounds a message's size).
func OverCap(limit int) string {
	return fmt.Sprintf("the server sent a frame of more than %s, wirecheck's --max-frame; raise it to judge this frame", transport.SizeString(limit))
}

// overCap takes a frame over the cap: the rule of its framing is not
// judged (an error: wirecheck could not tell), and a request its first
// bytes answer by id ends at once, unjudged, instead of running out its
// timeout.
func (p *Peer) overCap(f transport.Frame, in *Inbound, scen string) {
	msg := OverCap(f.Limit)
	if f.Limit <= 0 {
		msg = "the server sent a frame over wirecheck's --max-frame; raise it to judge this frame"
	}
	in.Problem = msg
	p.check(verdict.CheckJSON, scen, verdict.Error, in.Seq, msg, "", excerpt(f.Raw))
	p.mu.Lock()
	p.overCapSeq, p.overCapMsg = in.Seq, msg
	var call *Call
	if f.HTTP == nil {
		// Over HTTP the exchange ends its request itself (Via.OverCap).
		if idv, ok := leadingID(f.Raw); ok && idv != nil {
			call = p.pending[Key(idv)]
		}
	}
	if call != nil {
		delete(p.pending, call.Key)
		p.answer(call)
		call.Refused, call.overCap = msg, true
		call.Response = &Inbound{Seq: in.Seq, At: in.At, Call: call, Problem: msg}
	}
	p.mu.Unlock()
	if call == nil {
		p.deliver(in)
		return
	}
	if !call.unjudged {
		why := fmt.Sprintf("the answer to request id %s (%s) is not judged: %s", call.Key, call.Method, msg)
		p.check(verdict.CheckTimely, call.Scenario, verdict.Error, in.Seq, why, "", "")
		p.check(verdict.CheckOneResponse, call.Scenario, verdict.Error, in.Seq, why, "", "")
	}
	close(call.done)
}

// OverCapAfter is the message of the last frame over the cap read after
// transcript line seq, "" when none was: a request left unanswered then
// may have been answered by that frame.
func (p *Peer) OverCapAfter(seq int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.overCapMsg == "" || p.overCapSeq <= seq {
		return ""
	}
	return fmt.Sprintf("%s (transcript line %d), which may have been this answer", p.overCapMsg, p.overCapSeq)
}

// leadingID reads the "id" member of the JSON object b begins, when it
// comes before the object is cut off: a response's id and jsonrpc usually
// precede its result, the bulk of a frame over the cap.
func leadingID(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if k == "id" {
			return v, true
		}
	}
	return nil, false
}

// endedOverCap is ended for an exchange whose answer went over the cap:
// the request is not judged.
func (p *Peer) endedOverCap(call *Call, seq int, what, end string) {
	if call.unjudged {
		return
	}
	msg := fmt.Sprintf("the answer to %s is not judged: %s; raise --max-frame to judge it", what, end)
	p.check(verdict.CheckTimely, call.Scenario, verdict.Error, seq, msg, "", "")
	p.check(verdict.CheckOneResponse, call.Scenario, verdict.Error, seq, msg, "", "")
}
