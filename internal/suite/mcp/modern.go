package mcp

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// legacyLatest is the newest revision with the initialize handshake: what
// a 2026-07-28 run falls back to when the server does not implement
// server/discover.
const legacyLatest = "2025-11-25"

// maxRetries bounds the retries of one request answered input_required.
const maxRetries = 3

const (
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
)

// mrtrMethods are the requests a server may answer with an
// InputRequiredResult.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// inputCapability is the client capability each inputRequests method uses.
var inputCapability = map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}

func inputRequired(in *peer.Inbound) bool { return field(in, "/result/resultType") == "input_required" }

// legacyEra tells from the answer to server/discover (nil: none in time)
// whether the server is legacy (stdio backward compatibility: any error
// but a recognized modern one, or no answer), and says why.
func legacyEra(in *peer.Inbound) (string, bool) {
	if in == nil {
		return "server/discover was not answered in time", true
	}
	if c, ok := errorCode(in); ok && c <= -32020 && c >= -32099 {
		// A code the 2026-07-28 specification reserves: a modern server
		// that does not support the revision asked for.
		return "", false
	}
	return "server/discover was answered with the error " + show(field(in, "/error")), true
}

// fallback runs the initialize handshake with the newest legacy revision
// in this process, as a dual-era client does with a legacy server, and
// makes the peer judge the rest of the process by the revision the server
// negotiated.
func fallback(e *scenario.Env, why string) (*session, error) { return fallbackTo(e, why, legacyLatest) }

// fallbackTo is fallback asking initialize for the revision v.
func fallbackTo(e *scenario.Env, why, v string) (*session, error) {
	if p, err := e.Protocol.ForVersion(v); err == nil {
		e.Peer.SetProtocol(p)
	}
	in, s, err := handshake(e, v, false)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%s, and initialize (the fallback) was answered with an error: %s", why, show(field(in, "/error")))
	}
	if s.version != v {
		if p, err := e.Protocol.ForVersion(s.version); err == nil {
			e.Peer.SetProtocol(p)
		}
	}
	s.fallback = why
	keep(e, s)
	return s, nil
}

// fallbackHint says what a fallback session means for the run.
func (s *session) fallbackHint(asked string) string {
	return fmt.Sprintf("the server does not implement revision %s (%s); wirecheck fell back to initialize, which negotiated %s, and judged the rest of that process by %s: rerun with --revision %s",
		asked, s.fallback, s.version, s.version, s.version)
}

// notModern is why a 2026-07-28 check does not apply to this session.
func (s *session) notModern(e *scenario.Env) string {
	if s.fallback != "" {
		return s.fallbackHint(e.Protocol.Version)
	}
	return "this belongs to revision " + modernVersion + "; this run uses " + e.Protocol.Version
}

// judgeInput judges an answer of a 2026-07-28 request that declared caps:
// an InputRequiredResult only on the methods that allow it (MRTR-3), with
// inputRequests or requestState (MRTR-1), asking only for declared
// capabilities (MRTR-2). Its schema (MRTR-4) is the peer's.
func (s *session) judgeInput(e *scenario.Env, method string, caps map[string]any, in *peer.Inbound) {
	if !inputRequired(in) {
		return
	}
	s.inputRequired++
	if mrtrMethods[method] {
		e.Pass("MCP-MRTR-3", in.Seq)
	} else {
		e.Fail("MCP-MRTR-3", in.Seq, method+" was answered with an InputRequiredResult",
			"resultType input_required only on tools/call, prompts/get and resources/read", string(in.Raw))
	}
	_, hasReqs := in.Field("/result/inputRequests")
	_, hasState := in.Field("/result/requestState")
	if hasReqs || hasState {
		e.Pass("MCP-MRTR-1", in.Seq)
	} else {
		e.Fail("MCP-MRTR-1", in.Seq, "an InputRequiredResult with neither inputRequests nor requestState",
			"at least one of inputRequests and requestState", string(in.Raw))
	}
	reqs, _ := field(in, "/result/inputRequests").(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		m, _ := reqs[k].(map[string]any)
		method, _ := m["method"].(string)
		c := inputCapability[method]
		if _, declared := caps[c]; c != "" && !declared {
			e.Fail("MCP-MRTR-2", in.Seq, fmt.Sprintf("inputRequests[%q] is %s, but the request declared no %s capability", k, method, c),
				"inputRequests only for capabilities in io.modelcontextprotocol/clientCapabilities ("+show(caps)+")", string(in.Raw))
			return
		}
	}
	e.Pass("MCP-MRTR-2", in.Seq)
}

// retryInput answers InputRequiredResults of method (at most maxRetries
// times): a retry with a new id, the original params, inputResponses
// answering every inputRequests entry wirecheck can answer, and the
// requestState echoed exactly (left out when the server sent none).
func (s *session) retryInput(e *scenario.Env, method string, params map[string]any, o sendOpts, in *peer.Inbound) (*peer.Inbound, error) {
	for n := 0; n < maxRetries && mrtrMethods[method] && inputRequired(in); n++ {
		var err error
		in, err = s.send(e, method, retryParams(params, in, true), o)
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// retryParams are the params of the retry of a request answered in (an
// InputRequiredResult), with inputResponses when answer is set.
func retryParams(params map[string]any, in *peer.Inbound, answer bool) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	delete(p, "inputResponses")
	delete(p, "requestState")
	if reqs, ok := field(in, "/result/inputRequests").(map[string]any); ok && answer {
		p["inputResponses"] = answerInputs(reqs)
	}
	if st, ok := in.Field("/result/requestState"); ok {
		p["requestState"] = st
	}
	return p
}

// answerInputs answers each inputRequests entry as Handler answers the
// same request sent on stdout in the older revisions; an entry that is not
// one of the three an InputRequests map may hold (roots/list,
// sampling/createMessage, elicitation/create) is left out.
func answerInputs(reqs map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range reqs {
		in := &peer.Inbound{Value: v}
		if m, _ := in.Field("/method"); inputCapability[fmt.Sprint(m)] == "" {
			continue
		}
		if r := answer(in); r != nil {
			out[k] = r
		}
	}
	return out
}

// subscription is one subscriptions/listen request wirecheck opened.
type subscription struct {
	filter map[string]any
	acked  bool
	ackSeq int
	// early is set when a notification of the subscription came before
	// its acknowledgement; stream counts the notifications after it.
	early  bool
	stream int
	// closed: wirecheck cancelled it; settled: the server has answered a
	// request sent after the cancellation (transcript line settledAt), so
	// any message of the subscription after that line is late.
	closed, settled bool
	settledAt       int
	late            int
}

// isLate reports whether a message of the subscription came after the
// answer to a request sent after its cancellation.
func (sub *subscription) isLate(in *peer.Inbound) bool {
	return sub.closed && sub.settled && in.Seq > sub.settledAt
}

// allows reports whether the subscription asked for a notification.
func (sub *subscription) allows(method string, in *peer.Inbound) bool {
	switch method {
	case "notifications/tools/list_changed":
		return sub.filter["toolsListChanged"] == true
	case "notifications/prompts/list_changed":
		return sub.filter["promptsListChanged"] == true
	case "notifications/resources/list_changed":
		return sub.filter["resourcesListChanged"] == true
	case "notifications/resources/updated":
		uris, _ := sub.filter["resourceSubscriptions"].([]any)
		return slices.Contains(uris, field(in, "/params/uri"))
	}
	return false
}

// judgeModern judges a notification of a 2026-07-28 session: change
// notifications belong to an open subscription that asked for them, and
// log notifications to a request that set a log level. It returns true
// when the frame needs nothing else.
func (s *session) judgeModern(e *scenario.Env, in *peer.Inbound, method string) bool {
	switch method {
	case "notifications/message":
		if !s.attributable(in) {
			s.logFails++
			e.Fail("MCP-LOGGING-3", in.Seq, "a log notification while no request that set "+metaLogLevel+" was in flight",
				"notifications/message only for a request whose _meta carries "+metaLogLevel+", before its response", string(in.Raw))
		}
		return false
	case "notifications/subscriptions/acknowledged":
		sid, _ := in.Field("/params/_meta/" + escape(metaSubscription))
		sub := s.subs[peer.Key(sid)]
		switch {
		case sub == nil:
		case sub.isLate(in):
			sub.late++
			e.Fail("MCP-SUBS-4", in.Seq, "an acknowledgement of a subscription wirecheck had cancelled",
				"no message for a cancelled subscriptions/listen", string(in.Raw))
		case !sub.acked:
			sub.acked, sub.ackSeq = true, in.Seq
		}
		return true
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated":
		s.judgeStream(e, in, method)
		return true
	}
	return false
}

// judgeStream judges a change notification of a 2026-07-28 session.
func (s *session) judgeStream(e *scenario.Env, in *peer.Inbound, method string) {
	sid, has := in.Field("/params/_meta/" + escape(metaSubscription))
	open := 0
	for _, sub := range s.subs {
		if !sub.closed {
			open++
		}
	}
	if open == 0 && (!has || s.subs[peer.Key(sid)] == nil) {
		s.subFails++
		e.Fail("MCP-SUBS-3", in.Seq, "the server sent "+method+" while wirecheck had no subscriptions/listen open",
			"change notifications only on a subscription that asked for them", string(in.Raw))
		return
	}
	if v := in.HTTP; !has && v != nil && s.subs[v.For] == nil {
		// Over HTTP the stream is known, and this one is no listen
		// stream: the sentence speaks of "notifications delivered via a
		// subscriptions/listen stream" (MCP-HTTP-STREAM-5 judges it).
		return
	}
	if !has {
		e.Fail("MCP-SUBS-2", in.Seq, method+" without "+metaSubscription+" in _meta while a subscription was open",
			"_meta."+metaSubscription+": the id of the subscriptions/listen request", string(in.Raw))
		return
	}
	sub := s.subs[peer.Key(sid)]
	if sub == nil {
		e.Fail("MCP-SUBS-2", in.Seq, method+" names the subscription "+peer.Key(sid)+", which wirecheck never opened",
			"the id of an open subscriptions/listen request, with its JSON type", string(in.Raw))
		return
	}
	if sub.closed {
		if sub.isLate(in) {
			sub.late++
			e.Fail("MCP-SUBS-4", in.Seq, method+" for a subscription wirecheck had cancelled (after the server answered a later request)",
				"no message for a cancelled subscriptions/listen", string(in.Raw))
		}
		return
	}
	e.Pass("MCP-SUBS-2", in.Seq)
	if !sub.acked {
		sub.early = true
		e.Fail("MCP-SUBS-1", in.Seq, method+" on the subscription before notifications/subscriptions/acknowledged",
			"the acknowledgement as the first message carrying the subscription's id", string(in.Raw))
	}
	sub.stream++
	if sub.allows(method, in) {
		e.Pass("MCP-SUBS-3", in.Seq)
	} else {
		s.subFails++
		e.Fail("MCP-SUBS-3", in.Seq, method+" on a subscription that did not ask for it",
			"only the notifications of the filter "+show(sub.filter), string(in.Raw))
	}
}

// attributable reports whether a log notification came while a request
// that set a log level was in flight (after it was sent, before its
// response).
func (s *session) attributable(in *peer.Inbound) bool {
	for _, c := range s.leveled {
		if c.Seq > in.Seq {
			continue
		}
		select {
		case <-c.Done():
			if c.Response.Seq > in.Seq {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// escape makes a JSON pointer token of a key.
func escape(k string) string {
	out := make([]byte, 0, len(k)+2)
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, k[i])
		}
	}
	return string(out)
}

// toolArgs generates a tool's arguments from its inputSchema ({} when it
// has none wirecheck can use).
func toolArgs(e *scenario.Env, tm map[string]any, i int) map[string]any {
	raw, _ := tm["inputSchema"].(map[string]any)
	sch, err := gen.Compile(rawJSON(raw))
	if err != nil || raw == nil {
		return map[string]any{}
	}
	if v, err := gen.TryExample(sch, e.Seed+uint64(i)); err == nil {
		if m, ok := v.(map[string]any); ok {
			return m
		}
	}
	return map[string]any{}
}

// probe is one request that may be answered input_required.
type probe struct {
	method string
	params map[string]any
}

// mrtrRules are the rules of the mrtr scenario: its retries declaring no
// capability are where a -32021 comes, whose HTTP status MCP-META-4 judges.
var mrtrRules = []string{"MCP-MRTR-1", "MCP-MRTR-2", "MCP-MRTR-3", "MCP-MRTR-4", "MCP-MRTR-5", "MCP-META-4"}

// mrtr looks for a tool, a prompt and a resource answered with an
// InputRequiredResult (the first of each method), completes each, then
// retries it once without the input asked for and once declaring no
// capabilities.
func mrtr(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), mrtrRules...)
		return nil
	}
	capErrors := s.capabilityErrors()
	defer func() {
		if s.capabilityErrors() == capErrors {
			e.Skip("MCP-META-4", "no request was answered with MissingRequiredClientCapabilityError (-32021) over Streamable HTTP: no status to judge")
		}
	}()
	var probes []probe
	for _, l := range []struct{ method, key, rule string }{{"tools/list", "tools", "MCP-TOOLS-2"}, {"prompts/list", "prompts", "MCP-PROMPTS-2"}, {"resources/list", "resources", "MCP-RESOURCES-2"}} {
		items, first, err := listAll(e, s, l.method, l.key, l.rule)
		if err != nil {
			return err
		}
		if first != nil && !inputRequired(first) {
			e.Pass("MCP-MRTR-3", first.Seq)
		}
		for i, it := range items {
			m, _ := it.(map[string]any)
			if i >= maxItems || m == nil {
				break
			}
			switch l.key {
			case "tools":
				if name, _ := m["name"].(string); name != "" && !skipTool(e, name) {
					probes = append(probes, probe{"tools/call", map[string]any{"name": name, "arguments": toolArgs(e, m, i)}})
				}
			case "prompts":
				name, _ := m["name"].(string)
				args := map[string]any{}
				as, _ := m["arguments"].([]any)
				for _, a := range as {
					if am, _ := a.(map[string]any); am["required"] == true {
						if an, _ := am["name"].(string); an != "" {
							args[an] = argFallback(am)
						}
					}
				}
				if name != "" {
					probes = append(probes, probe{"prompts/get", map[string]any{"name": name, "arguments": args}})
				}
			case "resources":
				if uri, _ := m["uri"].(string); uri != "" && i < 5 {
					probes = append(probes, probe{"resources/read", map[string]any{"uri": uri}})
				}
			}
		}
	}
	// The first probe of each method answered input_required: a server
	// may ask for input on a tool, a prompt and a resource alike, and each
	// is judged.
	found := map[string]bool{}
	for i := range probes {
		p := &probes[i]
		if found[p.method] {
			continue
		}
		in, err := s.callWith(e, p.method, p.params, sendOpts{once: true})
		if unjudged(err) {
			continue // the next one is judged instead
		}
		if err != nil {
			return err
		}
		if !inputRequired(in) {
			continue
		}
		found[p.method] = true
		if err := mrtrRounds(e, s, p, in); err != nil {
			return err
		}
	}
	if len(found) == 0 {
		skipAll(e, "no tool, prompt or resource of the server answered with an InputRequiredResult", "MCP-MRTR-1", "MCP-MRTR-2", "MCP-MRTR-4", "MCP-MRTR-5")
	}
	return nil
}

// mrtrRounds completes a request first answered input_required, then
// retries it once without the input asked for and once declaring no
// capabilities.
func mrtrRounds(e *scenario.Env, s *session, found *probe, first *peer.Inbound) error {
	if _, err := s.retryInput(e, found.method, found.params, sendOpts{}, first); err != nil {
		return err
	}
	// The input missing: the server should ask again, not fail.
	if _, asked := first.Field("/result/inputRequests"); !asked {
		e.Skip("MCP-MRTR-5", "the InputRequiredResult of "+found.method+" asked for no input")
	} else {
		in, err := s.callWith(e, found.method, retryParams(found.params, first, false), sendOpts{once: true})
		if err != nil {
			return err
		}
		if isResult(in) {
			e.Pass("MCP-MRTR-5", in.Seq)
		} else {
			e.Fail("MCP-MRTR-5", in.Seq, found.method+" retried without the inputResponses the server asked for was answered with an error",
				"a new InputRequiredResult asking for the missing input (or a result)", string(in.Raw))
		}
	}
	// No capability declared: nothing may be asked of it.
	in, err := s.callWith(e, found.method, found.params, sendOpts{caps: map[string]any{}, once: true})
	if err != nil {
		return err
	}
	if !inputRequired(in) {
		e.Pass("MCP-MRTR-2", in.Seq)
	}
	return nil
}

// subscriptions opens subscriptions/listen for one kind of notification
// the server's capabilities offer, checks its acknowledgement and the
// notifications on it, then cancels it with notifications/cancelled.
func subscriptions(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	rules := []string{"MCP-SUBS-1", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4"}
	if !s.modern {
		skipAll(e, s.notModern(e), rules...)
		return nil
	}
	filter, err := listenFilter(e, s)
	if err != nil {
		return err
	}
	fails := s.subFails
	req, sub, c, err := s.listen(e, filter)
	if err != nil {
		return err
	}
	key := c.Key
	answered := func() bool { return isDone(c) }
	watch := func(d time.Duration, until func() bool) { s.watch(e, d, until) }
	start := time.Now()
	watch(e.Timeout, func() bool { return sub.acked || answered() })
	if answered() && c.Refused != "" && !sub.acked {
		e.Fail("MCP-SUBS-1", c.Response.Seq, "no notifications/subscriptions/acknowledged for subscriptions/listen "+key+": its exchange ended without one ("+c.Refused+")",
			"an acknowledgement carrying "+metaSubscription+" "+key+", the stream open", c.Refused)
		skipAll(e, "subscriptions/listen failed", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4")
		return nil
	}
	if answered() && !isResult(c.Response) {
		e.Fail("MCP-SUBS-1", c.Response.Seq, "subscriptions/listen was answered with an error", "notifications/subscriptions/acknowledged, the stream open", string(c.Response.Raw))
		skipAll(e, "subscriptions/listen failed", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4")
		return nil
	}
	switch {
	case !sub.acked:
		e.Fail("MCP-SUBS-1", -1, "no notifications/subscriptions/acknowledged for subscriptions/listen "+key+" "+unacked(e, c, start),
			"an acknowledgement carrying "+metaSubscription+" "+key, "nothing")
	case !sub.early:
		e.Pass("MCP-SUBS-1", sub.ackSeq)
	}
	// What the stream brings in reply to the listen request: it comes
	// before the answer to a later request (stdin is read in order), or
	// just after it.
	if _, err := s.call(e, "server/discover", nil); err != nil {
		return err
	}
	watch(lateAnswer, func() bool { return false })
	if sub.stream == 0 {
		e.Skip("MCP-SUBS-2", "no notification came on the subscription besides its acknowledgement")
	}
	if s.subFails == fails {
		e.Pass("MCP-SUBS-3", -1)
	}
	if answered() {
		e.Skip("MCP-SUBS-4", "the server ended the subscription itself (it answered subscriptions/listen)")
		return nil
	}
	sub.closed = true
	e.Peer.Forget(c)
	if closer, ok := e.Peer.Transport().(transport.RequestCloser); ok && closer.CloseRequest(key) {
		// Over Streamable HTTP closing the stream is the cancellation;
		// MCP-SUBS-4 holds on stdio only (see its note in the spec).
		return nil
	}
	// Cancel, then a request: once it is answered the server has read the
	// cancellation, and nothing more may come for the subscription.
	if err := notify(e, "notifications/cancelled", map[string]any{"requestId": req["id"], "reason": "wirecheck closes the subscription"}); err != nil {
		return err
	}
	// The answer is seen before the frames that came with it are judged:
	// a notification written just after it is late, one before is not.
	settle := sendOpts{then: func(in *peer.Inbound) { sub.settled, sub.settledAt = true, in.Seq }}
	if _, err := s.callWith(e, "server/discover", nil, settle); err != nil {
		return err
	}
	watch(lateAnswer, func() bool { return false })
	switch {
	case answered():
		e.Fail("MCP-SUBS-4", c.Response.Seq, "the server answered subscriptions/listen after wirecheck cancelled it",
			"no message for a cancelled subscriptions/listen (stdio)", string(c.Response.Raw))
	case sub.late == 0:
		e.Pass("MCP-SUBS-4", -1)
	}
	return nil
}

// listenFilter is the filter of a subscriptions/listen: one kind of
// notification the server's capabilities offer, so any other is one not
// asked for (empty when it offers none).
func listenFilter(e *scenario.Env, s *session) (map[string]any, error) {
	filter := map[string]any{}
	if s.capFlag("resources", "subscribe") {
		in, err := s.call(e, "resources/list", map[string]any{})
		if err != nil {
			return nil, err
		}
		if rs, _ := field(in, "/result/resources").([]any); len(rs) > 0 {
			if m, _ := rs[0].(map[string]any); m != nil && m["uri"] != nil {
				filter["resourceSubscriptions"] = []any{m["uri"]}
			}
		}
	}
	for _, c := range [][2]string{{"tools", "toolsListChanged"}, {"prompts", "promptsListChanged"}, {"resources", "resourcesListChanged"}} {
		if len(filter) == 0 && s.capFlag(c[0], "listChanged") {
			filter[c[1]] = true
		}
	}
	return filter, nil
}

// listen sends subscriptions/listen with filter, the subscription known
// to the session so what comes on it is judged, and returns the request,
// the subscription and the call without waiting.
func (s *session) listen(e *scenario.Env, filter map[string]any) (map[string]any, *subscription, *peer.Call, error) {
	req := request("subscriptions/listen", map[string]any{"_meta": meta(s.requested), "notifications": filter})
	sub := &subscription{filter: filter}
	if s.subs == nil {
		s.subs = map[string]*subscription{}
	}
	s.subs[peer.Key(req["id"])] = sub
	// A listen request is answered only when the server ends the
	// subscription ("A subscription ends when: …", basic/patterns/
	// subscriptions): over HTTP an exchange that never opens its stream
	// (no response headers within --timeout) or ends without a JSON-RPC
	// message owes no response, and MCP-SUBS-1 judges the missing
	// acknowledgement. An answer, when one comes, is judged.
	c, err := e.SendUnjudged(req)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return req, sub, c, nil
}

// watch judges the frames that come until until holds or d passes.
func (s *session) watch(e *scenario.Env, d time.Duration, until func() bool) {
	deadline := time.Now().Add(d)
	for !until() {
		f, err := e.Peer.Next(time.Until(deadline))
		if err != nil {
			return
		}
		s.judgeFrame(e, f)
	}
}

// unacked says how the wait for a subscription's acknowledgement, begun
// at start, ended without one, with the time it actually took: the
// request answered, which ends the subscription, or the server gone, end
// it before --timeout.
func unacked(e *scenario.Env, c *peer.Call, start time.Time) string {
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case isDone(c) && c.Response != nil:
		return fmt.Sprintf("before subscriptions/listen was answered (transcript line %d), %s after the wait began: the answer ends the subscription", c.Response.Seq, took)
	case scenarioEnded(e):
		return fmt.Sprintf("in the %s before the server's output ended (%s)", took, e.Gone())
	}
	return "within " + e.Timeout.String() + " (--timeout)"
}

// scenarioEnded reports whether the server's output has ended.
func scenarioEnded(e *scenario.Env) bool {
	select {
	case <-e.Peer.Gone():
		return true
	default:
		return false
	}
}

// isDone reports whether a call was answered (or given up).
func isDone(c *peer.Call) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// logLevel calls the server's first tools without a log level (no log
// notification may come) and with level debug (some may), and gives an
// invalid level to a server declaring logging.
func logLevel(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), "MCP-LOGGING-3", "MCP-LOGGING-4")
		return nil
	}
	fails := s.logFails
	items, _, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	for _, level := range []string{"", "debug"} {
		for i, t := range items {
			tm, _ := t.(map[string]any)
			name, _ := tm["name"].(string)
			if i >= 5 || name == "" {
				break
			}
			if skipTool(e, name) {
				continue
			}
			_, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": toolArgs(e, tm, i)}, sendOpts{logLevel: level})
			if err != nil && !unjudged(err) {
				return err
			}
		}
		s.settle(e, 50*time.Millisecond)
	}
	if s.logFails == fails {
		e.Pass("MCP-LOGGING-3", -1)
	}
	if !s.has("logging") {
		e.Skip("MCP-LOGGING-4", "the server does not declare the logging capability")
		return nil
	}
	in, err := s.callWith(e, "tools/list", map[string]any{}, sendOpts{logLevel: "loudest"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-LOGGING-4", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-4", in.Seq, "a request whose "+metaLogLevel+" is \"loudest\" was not answered with error -32602",
			"error code -32602 (Invalid params)", string(in.Raw))
	}
	return nil
}
