package peer

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// receive is the hot path: one call per inbound frame.
func (p *Peer) receive(f transport.Frame) {
	seq := p.o.Recorder.Add(transcript.Received, f.Raw)
	in := &Inbound{Raw: f.Raw, Seq: seq, At: f.At, HTTP: f.HTTP}
	p.mu.Lock()
	p.frames++
	scen := p.scenario
	p.mu.Unlock()

	if f.Oversize {
		p.overCap(f, in, scen)
		return
	}
	if prob := framing(f); prob != "" {
		in.Problem = prob
		p.check(verdict.CheckJSON, scen, verdict.Fail, seq, prob, "one complete JSON value per line, in UTF-8", excerpt(f.Raw))
		p.deliver(in)
		return
	}
	if !utf8.Valid(f.Raw) {
		// Still decodable (bad bytes become U+FFFD), so route it: a
		// response with one bad byte must not also look like a timeout.
		p.check(verdict.CheckJSON, scen, verdict.Fail, seq, "line is not valid UTF-8", "one complete JSON value per line, in UTF-8", excerpt(f.Raw))
	}
	v, err := schema.Decode(f.Raw)
	if err != nil {
		in.Problem = "not JSON: " + err.Error()
		p.check(verdict.CheckJSON, scen, verdict.Fail, seq, in.Problem, "one complete JSON value per line", excerpt(f.Raw))
		p.deliver(in)
		return
	}
	in.Value = v
	if utf8.Valid(f.Raw) {
		p.check(verdict.CheckJSON, scen, verdict.Pass, seq, "", "", "")
	}

	var idv any
	var hasID bool
	proto := p.protocol()
	if proto.Correlation.ID != "" {
		idv, hasID = Pointer(v, proto.Correlation.ID)
	}
	call, mismatch := p.lookup(idv, hasID, f.HTTP)
	method := ""
	if call != nil {
		method = call.Method
	}
	in.Kind = p.classify(v, method)
	if in.Kind == nil || in.Kind.Role == spec.RoleResponse {
		// The answer to a raw line, to a request without a usable id, or
		// to one that breaks the request schema: it is that request's one
		// answer whatever its id (none included), counted and routed like
		// any response, and judged by the protocol's invalid kind, not by
		// the kinds of valid answers. A frame that does not look like an
		// answer at all (a log object) is no answer and stays unclaimed.
		if ik := p.invalidKind(v, in.Kind); ik != nil {
			if call != nil && call.Invalid {
				in.Invalid, in.Kind = true, ik
			} else if owner, ok := p.takeRaw(call, idv, hasID); ok {
				// The raw line owed belongs to the scenario now running,
				// which may have started after this frame was read.
				in.Invalid, in.Kind, scen = true, ik, owner
			}
		}
	}
	if in.Kind == nil {
		in.Problem = "not a frame of any kind this protocol defines"
		p.check(verdict.CheckKnown, scen, verdict.Fail, seq, in.Problem, "only protocol frames on stdout", excerpt(f.Raw))
		p.deliver(in)
		return
	}
	p.check(verdict.CheckKnown, scen, verdict.Pass, seq, "", "", "")
	p.mu.Lock()
	p.known++
	p.mu.Unlock()

	// Late frames of an earlier scenario are judged in that scenario.
	if call != nil {
		scen = call.Scenario
	}
	p.validate(in, scen, method)
	if p.judge != nil {
		p.judge.Received(in, method, verdicts{p: p, scen: scen})
	}

	switch in.Kind.Role {
	case spec.RoleResponse:
		p.routeResponse(in, call, mismatch, hasID, idv, scen)
	case spec.RoleEvent:
		if call == nil || call.Response != nil || mismatch != "" {
			p.check(verdict.CheckEventInFlight, scen, verdict.Fail, seq,
				"event for id "+Key(idv)+", which is not a request in flight",
				"events only for a request in flight, before its final response", excerpt(f.Raw))
			p.deliver(in)
			return
		}
		p.check(verdict.CheckEventInFlight, scen, verdict.Pass, seq, "", "", "")
		in.Call = call
		p.addEvent(call, in)
	case spec.RoleRequest:
		if hasID && idv != nil {
			p.mu.Lock()
			p.rememberServerID(Key(idv))
			p.mu.Unlock()
		}
		p.deliver(in)
		if h := p.currentHandler(); h != nil {
			if resp := h(in); resp != nil {
				p.sent(resp, nil)
				p.o.Recorder.Add(transcript.Sent, resp)
				if err := p.transportSend(resp); err != nil {
					p.note("write failed: " + err.Error())
				}
			}
		}
	default:
		p.deliver(in)
	}
}

func (p *Peer) routeResponse(in *Inbound, call *Call, mismatch string, hasID bool, idv any, scen string) {
	seq := in.Seq
	if call == nil {
		if in.Invalid {
			p.deliver(in)
			return
		}
		p.mu.Lock()
		// A frame about a request the server sent (an error saying the
		// answer came too late) is not an answer to one of wirecheck's.
		aboutServer := hasID && idv != nil && p.serverIDs[Key(idv)]
		p.mu.Unlock()
		if !aboutServer {
			p.check(verdict.CheckNoStray, scen, verdict.Fail, seq,
				"response with id "+idText(idv, hasID)+", but no request with that id was sent",
				"responses only to requests wirecheck sent", excerpt(in.Raw))
		}
		p.deliver(in)
		if !aboutServer && hasID && idv != nil && in.HTTP == nil {
			p.mu.Lock()
			p.strays++
			close(p.straySig)
			p.straySig = make(chan struct{})
			p.mu.Unlock()
		}
		return
	}
	in.Call = call
	if call.Refused != "" {
		// Its exchange ended first (a stream closed, then the answer came
		// on another): the wait is over, the answer is kept in the inbox.
		p.note(fmt.Sprintf("the response to request id %s came after its exchange ended (%s)", call.Key, call.Refused))
		p.deliver(in)
		return
	}
	p.mu.Lock()
	dup := call.Response != nil
	if !dup {
		call.Response = in
		call.Mismatch = mismatch
		delete(p.pending, call.Key)
		p.answer(call)
	}
	p.mu.Unlock()
	if dup {
		p.check(verdict.CheckOneResponse, scen, verdict.Fail, seq,
			fmt.Sprintf("a second response to request id %s (the first is transcript line %d)", call.Key, call.Response.Seq),
			"exactly one response per request", excerpt(in.Raw))
		return
	}
	p.check(verdict.CheckOneResponse, scen, verdict.Pass, seq, "", "", "")
	p.mu.Lock()
	if call.Seq > p.noteSeq {
		// A server that reads in order has answered past the notification.
		p.noteOpen = false
	}
	if call.Seq > p.anonSeq && in.HTTP == nil {
		// ... and past every raw line owed an answer. Only one stdio
		// stream orders answers so: HTTP exchanges run side by side, a
		// raw POST's body may come after a later request's, and each raw
		// POST's answer (or the end of its exchange) is counted off as
		// it comes.
		p.stale = p.anon
	}
	p.mu.Unlock()
	switch {
	case mismatch == "value" && call.Invalid && idv == nil:
		// An answer to an invalid request may say it could not take the
		// id (null, or none): a reading the method accepts.
		p.check(verdict.CheckIDEcho, scen, verdict.Pass, seq, "", "", "")
	case strings.HasPrefix(mismatch, "type"):
		p.check(verdict.CheckIDType, scen, verdict.Fail, seq,
			"the id was echoed with another JSON type", "id "+call.Key, "id "+idText(idv, hasID))
		p.check(verdict.CheckIDEcho, scen, verdict.Pass, seq, "", "", "")
	case mismatch != "":
		p.check(verdict.CheckIDEcho, scen, verdict.Fail, seq,
			"the response does not carry the id of the request it answers (the only request in flight)",
			"id "+call.Key, "id "+idText(idv, hasID))
	default:
		p.check(verdict.CheckIDEcho, scen, verdict.Pass, seq, "", "", "")
		p.check(verdict.CheckIDType, scen, verdict.Pass, seq, "", "", "")
	}
	// Observations first: a scenario that wakes on done may end at once,
	// and what was observed of its response must already be recorded.
	close(call.done)
}

// lookup finds the call a frame answers: by exact id, by the id's text in
// another JSON type, or, when exactly one request is in flight and the id
// matches nothing ever sent, that one request (the id was not echoed).
// Over HTTP (via set) the exchange tells instead of that guess: a JSON
// body answers the request its POST carried; a stream event with an id
// nobody sent answers nothing, for a stream may carry other messages
// before the response.
func (p *Peer) lookup(idv any, hasID bool, via *transport.Via) (*Call, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !hasID {
		// An answer without an id answers the only request in flight
		// when that request was invalid (it may carry no id then).
		return p.onlyInvalid()
	}
	if idv != nil {
		k := Key(idv)
		if c := p.pending[k]; c != nil {
			return c, ""
		}
		if c := p.answered[k]; c != nil {
			return c, ""
		}
		if p.serverIDs[k] {
			return nil, ""
		}
		lk := looseKey(idv)
		for _, c := range p.pending {
			if looseKey(c.ID) == lk {
				return c, "type"
			}
		}
	}
	if via != nil {
		if c := p.pending[via.For]; c != nil && !via.Stream && via.For != "" {
			return c, "value"
		}
		return nil, ""
	}
	if idv == nil && p.noteOpen {
		// A null id may answer the notification sent last (a server that
		// answers notifications/initialized or /cancelled, which it must
		// not): taken for the request's, it would judge that request by
		// another's answer. Only an invalid request, whose id may not
		// have been readable, takes it then.
		return p.onlyInvalid()
	}
	if hasID && idv == nil {
		// A null id says the server could not read the id: the answer of
		// the one invalid request in flight, whatever else is in flight
		// (a valid request's answer must carry its id).
		if c, m := p.onlyInvalid(); c != nil {
			return c, m
		}
	}
	// Raw input may be answered with whatever id the server read from it,
	// so the only-request-in-flight guess is off while raw lines are owed,
	// but for an id none of them could carry (a notification sent as a
	// raw line gives none): such a frame answers the request, mangling
	// its id, and the wait for that request ends with it.
	if len(p.pending) == 1 && (p.anon == 0 || idv != nil && p.anonIDs == 0) {
		for _, c := range p.pending {
			return c, "value"
		}
	}
	return nil, ""
}

// onlyInvalid is the invalid request in flight sent first, when no raw
// line is owed an answer but stale ones (see Peer.stale). Answers that
// could not read an id are alike: which of several invalid requests each
// is taken for changes nothing judged, and a server reading in order
// answers the first first. The caller holds p.mu.
func (p *Peer) onlyInvalid() (*Call, string) {
	if p.anon > p.stale || p.refusedRaw > 0 {
		return nil, ""
	}
	var first *Call
	for _, c := range p.pending {
		if c.SentAt.IsZero() {
			// Tracked, its line not written yet: nothing can answer it.
			continue
		}
		if c.Invalid && (first == nil || c.Seq < first.Seq) {
			first = c
		}
	}
	if first == nil {
		return nil, ""
	}
	return first, "value"
}

// takeRaw reports whether a frame that answers no tracked request is the
// answer one raw line (or id-less request) is owed, counts it off, and
// returns the scenario that owes it.
func (p *Peer) takeRaw(call *Call, idv any, hasID bool) (string, bool) {
	if call != nil {
		return "", false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// A frame about a request the server sent (an error saying the answer
	// came too late) is not an answer to one of wirecheck's.
	if hasID && idv != nil && p.serverIDs[Key(idv)] {
		return "", false
	}
	switch {
	case p.anon > 0:
		p.takeAnon()
	case p.refusedRaw > 0:
		// The error a refused raw line's POST left for the stream (see
		// onStream): that line's answer after all, not a stray.
		p.refusedRaw--
	default:
		return "", false
	}
	return p.scenario, true
}

// invalidKind is the kind of an answer to an invalid request: the
// protocol's first invalid kind that matches, else the kind the frame
// classified as, else (when the protocol declares no invalid kind) a bare
// response kind, judged by no schema of valid answers. It is nil for a
// frame that matches none of the protocol's invalid kinds and no other.
func (p *Peer) invalidKind(v any, classified *spec.Kind) *spec.Kind {
	declared := false
	for _, k := range p.protocol().Kinds {
		if k.Invalid {
			declared = true
			if Matches(v, k.When) {
				return k
			}
		}
	}
	if classified != nil || declared {
		return classified
	}
	return rawAnswer
}

// rawAnswer is the kind of an answer to a raw line in a protocol that
// declares no invalid kind and no other kind it matches.
var rawAnswer = &spec.Kind{Name: "answer to a raw line", Role: spec.RoleResponse, Invalid: true}

// classify returns the first kind whose conditions hold; kinds restricted
// to a method only match answers to that method. Invalid kinds are only
// for answers to raw lines (see invalidKind).
func (p *Peer) classify(v any, method string) *spec.Kind {
	for _, k := range p.protocol().Kinds {
		if k.Role == spec.RoleRequestOut || k.Invalid {
			continue
		}
		if k.Method != "" && k.Method != method {
			continue
		}
		if Matches(v, k.When) {
			return k
		}
	}
	return nil
}

// Matches reports whether every condition holds for a decoded frame.
func Matches(v any, conds []spec.Cond) bool {
	for _, c := range conds {
		got, ok := Pointer(v, c.Path)
		if c.Present != nil {
			if ok != *c.Present {
				return false
			}
			continue
		}
		if c.Matches != "" {
			s, isStr := got.(string)
			if !ok || !isStr || !c.Regexp().MatchString(s) {
				return false
			}
			continue
		}
		if !ok || !Equal(got, c.Equals) {
			return false
		}
	}
	return true
}

// validate applies the kind's schema and every frame rule that covers the
// frame; method is the method of the request it answers, if any.
func (p *Peer) validate(in *Inbound, scen, method string) {
	for c := range schemaChecks(p.protocol(), in.Kind, method, in.Value) {
		p.validateAgainst(in, scen, c.Rule, c.Schema, c.At)
	}
}

// SchemaCheck is one schema a frame must satisfy, and the rule it decides.
type SchemaCheck struct {
	Rule   string
	Schema string
	At     string // JSON pointer of the part checked; "" for the whole frame
}

// SchemaChecks lists the schemas a frame of kind k answering method must
// satisfy: its kind's (when the kind names a rule) and every frame rule that
// applies to it. The peer and `wirecheck validate` judge frames by this one
// list.
func SchemaChecks(p *spec.Protocol, k *spec.Kind, method string, v any) []SchemaCheck {
	return slices.Collect(schemaChecks(p, k, method, v))
}

// schemaChecks is SchemaChecks one at a time, for the peer's per-frame
// path, which needs no list.
func schemaChecks(p *spec.Protocol, k *spec.Kind, method string, v any) iter.Seq[SchemaCheck] {
	return func(yield func(SchemaCheck) bool) {
		if k.Rule != "" && !yield(SchemaCheck{Rule: k.Rule, Schema: k.Schema, At: k.At}) {
			return
		}
		for _, r := range p.Rules {
			// A rule of some revisions only (versions:) judges frames of those.
			if r.Frames == nil || (k.Invalid && r.Frames.ValidOnly) || !r.AppliesTo(p.Version) || (r.Frames.Method != "" && r.Frames.Method != method) || !Matches(v, r.Frames.When) {
				continue
			}
			if slices.Contains(r.Frames.Roles, k.Role) && !yield(SchemaCheck{Rule: r.ID, Schema: r.Frames.Schema, At: r.Frames.At}) {
				return
			}
		}
	}
}

// validateAgainst applies a schema to the frame, or to the part of it at
// the JSON pointer at when at is set.
func (p *Peer) validateAgainst(in *Inbound, scen, rule, file, at string) {
	s := p.o.Schemas.Get(file)
	if s == nil {
		p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Error, Scenario: scen, Seq: in.Seq,
			Message: "schema " + p.o.Schemas.Path(file) + " is not compiled"})
		return
	}
	// in.Value is in.Raw decoded, so the part's bytes stand for its value.
	pb, cache := part(in.Raw, at)
	if !cache || !passed.has(s, pb) {
		v := in.Value
		if at != "" {
			v, _ = Pointer(in.Value, at)
		}
		if err := s.Validate(v); err != nil {
			what := " frame"
			if at != "" {
				what = " frame's " + at
			}
			p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Fail, Scenario: scen, Seq: in.Seq,
				Message:  in.Kind.Name + what + " does not match " + p.o.Schemas.Path(file),
				Expected: "a frame valid against " + p.o.Schemas.Path(file),
				Actual:   schema.Explain(err) + "\n" + excerpt(in.Raw)})
			return
		}
		if cache {
			passed.add(s, pb)
		}
	}
	p.emit(verdict.Observation{Rule: rule, Verdict: verdict.Pass, Scenario: scen, Seq: in.Seq})
}

// check reports a built-in check's verdict on every rule it stands for.
func (p *Peer) check(name, scen string, v verdict.Verdict, seq int, msg, expected, actual string) {
	p.checkObs(name, verdict.Observation{Verdict: v, Scenario: scen, Seq: seq, Message: msg, Expected: expected, Actual: actual})
}

// checkObs reports o, a built-in check's verdict, on every rule the check
// stands for.
func (p *Peer) checkObs(name string, o verdict.Observation) {
	for _, r := range p.protocol().RulesForCheck(name) {
		o.Rule = r.ID
		p.mu.Lock()
		if p.heldChecks != nil {
			p.heldChecks = append(p.heldChecks, o)
			p.mu.Unlock()
			continue
		}
		p.mu.Unlock()
		p.emit(o)
	}
}

// HoldChecks keeps the observations of built-in checks (a transport's
// among them) from now on, until ReleaseChecks: for an exchange whose rules only its
// answer tells (a server asked in a revision it then says it does not
// speak owes none of that revision's rules).
func (p *Peer) HoldChecks() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.heldChecks == nil {
		p.heldChecks = []verdict.Observation{}
	}
}

// ReleaseChecks ends HoldChecks, emitting the observations kept that keep
// accepts (nil: all of them) and dropping the others.
func (p *Peer) ReleaseChecks(keep func(verdict.Observation) bool) {
	p.mu.Lock()
	held := p.heldChecks
	p.heldChecks = nil
	p.mu.Unlock()
	for _, o := range held {
		if keep == nil || keep(o) {
			p.emit(o)
		}
	}
}

// Check lets the runner report a built-in check it decides (timeouts,
// exits) through the same mapping.
func (p *Peer) Check(name string, v verdict.Verdict, seq int, msg, expected, actual string) {
	p.check(name, p.Scenario(), v, seq, msg, expected, actual)
}

// Unanswered fails a built-in check on the request sent on transcript
// line seq, which got no answer within waited ("10s"): reports show the
// request as the frame at fault, and the wait.
func (p *Peer) Unanswered(name string, seq int, waited, msg, expected, actual string) {
	p.checkObs(name, verdict.Observation{Verdict: verdict.Fail, Scenario: p.Scenario(), Seq: seq, Unanswered: waited,
		Message: msg, Expected: expected, Actual: actual})
}

func (p *Peer) emit(o verdict.Observation) { p.o.Observe(o) }

// deliver queues a frame for Next, dropping the oldest past InboxCap
// frames or InboxBytes of footprint (the newest is always kept, and so is
// the server's first line until it is read).
func (p *Peer) deliver(in *Inbound) {
	cost := footprint(in)
	p.mu.Lock()
	if p.frames == 1 {
		p.firstLine = in
	}
	drops := 0
	for len(p.inbox) > 0 && (len(p.inbox) >= p.o.InboxCap || p.inboxB+cost > p.o.InboxBytes) {
		v := 0
		if p.inbox[0] == p.firstLine {
			if len(p.inbox) == 1 {
				break
			}
			v = 1
		}
		p.inboxB -= footprint(p.inbox[v])
		if v == 0 {
			p.inbox[0] = nil
			p.inbox = p.inbox[1:]
		} else {
			p.inbox = append(p.inbox[:1], p.inbox[2:]...)
		}
		drops++
	}
	p.dropped += drops
	p.inbox = append(p.inbox, in)
	p.inboxB += cost
	note := drops > 0 && !p.dropNoted
	p.dropNoted = p.dropNoted || note
	sig := p.signal
	p.signal = make(chan struct{})
	p.mu.Unlock()
	close(sig)
	if note {
		p.note(fmt.Sprintf("frames nobody read are being dropped, oldest first: more than %d frames or %d KiB of them were queued", p.o.InboxCap, p.o.InboxBytes>>10))
	}
}

// addEvent keeps an event with its call, within the inbox's bounds.
func (p *Peer) addEvent(call *Call, in *Inbound) {
	cost := footprint(in)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(call.Events) > 0 && (len(call.Events) >= p.o.InboxCap || call.eventBytes+cost > p.o.InboxBytes) {
		call.EventsDropped++
		return
	}
	call.Events = append(call.Events, in)
	call.eventBytes += cost
}

func framing(f transport.Frame) string {
	switch {
	case f.Partial:
		return "output ended in the middle of a line (no terminating newline)"
	case len(f.Raw) == 0:
		return "empty line on stdout"
	}
	return ""
}

func idText(idv any, has bool) string {
	if !has {
		return "(none)"
	}
	return Key(idv)
}

// excerpt keeps evidence short enough to read in a report.
func excerpt(b []byte) string {
	const max = 512
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}

// Pointer resolves a JSON pointer (RFC 6901) in a decoded value.
func Pointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	// Token by token, without splitting: every frame is matched against
	// the protocol's kinds and frame rules, each condition a pointer.
	for rest, more := ptr[1:], true; more; {
		var tok string
		tok, rest, more = strings.Cut(rest, "/")
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Equal compares a decoded frame value with an expected value from a YAML
// fixture (ints, floats, strings, bools, nil, maps, lists), numerically for
// numbers.
func Equal(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case string:
		g, ok := got.(string)
		return ok && g == w
	case int, int64, float64, json.Number:
		gf, ok := number(got)
		wf, _ := number(w)
		return ok && gf == wf
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !Equal(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !Equal(gv, wv) {
				return false
			}
		}
		return true
	}
	return false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
