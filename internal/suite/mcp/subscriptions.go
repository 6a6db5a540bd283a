package mcp

import (
	"fmt"
	"slices"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// subscription is one subscriptions/listen request wirecheck sent, as
// the frame judge follows it.
type subscription struct {
	filter map[string]any
	acked  bool
	ackSeq int
	// early is set when a notification of the subscription came before
	// its acknowledgement; stream counts the notifications after it.
	early  bool
	stream int
	// closed: wirecheck cancelled it (after closedAt frames sent);
	// pending are the requests sent since, until one is answered:
	// settled then (transcript line settledAt), the server has read the
	// cancellation, and any message of the subscription after that line
	// is late.
	closed, settled bool
	closedAt        int
	pending         map[string]bool
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
	case "notifications/tasks":
		// The tasks extension's status notifications (SEP-2663), for the
		// taskIds the listen asked for.
		ids, _ := sub.filter["taskIds"].([]any)
		return slices.Contains(ids, field(in, "/params/taskId"))
	}
	return false
}

// subscription is what the judge knows of the subscription opened by the
// request of id key (a copy; the zero value when none was sent).
func (j *judge) subscription(key string) subscription {
	j.mu.Lock()
	defer j.mu.Unlock()
	if sub := j.subs[key]; sub != nil {
		return *sub
	}
	return subscription{}
}

// closeSub marks a subscription cancelled in a way no frame shows (its
// HTTP stream closed).
func (j *judge) closeSub(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if sub := j.subs[key]; sub != nil {
		sub.closed, sub.closedAt = true, j.sends
	}
}

// following notes a request sent while a cancelled subscription is not
// yet settled: its answer settles it. j.mu is held.
func (j *judge) following(key string) {
	for _, sub := range j.subs {
		if sub.closed && !sub.settled {
			if sub.pending == nil {
				sub.pending = map[string]bool{}
			}
			sub.pending[key] = true
		}
	}
}

// settle settles the cancelled subscriptions a request sent after their
// cancellation was answered by in (its id key). j.mu is held.
func (j *judge) settle(in *peer.Inbound, key string) {
	for _, sub := range j.subs {
		if sub.closed && !sub.settled && sub.pending[key] {
			sub.settled, sub.settledAt, sub.pending = true, in.Seq, nil
		}
	}
}

// judgeAck judges a subscription's acknowledgement (2026-07-28): none
// for a cancelled one. j.mu is held.
func (j *judge) judgeAck(in *peer.Inbound, v peer.Verdicts) {
	sid, _ := in.Field("/params/_meta/" + escape(metaSubscription))
	sub := j.subs[peer.Key(sid)]
	switch {
	case sub == nil:
	case sub.isLate(in):
		sub.late++
		v.Fail("MCP-SUBS-4", in.Seq, "an acknowledgement of a subscription wirecheck had cancelled",
			"no message for a cancelled subscriptions/listen", string(in.Raw))
	case !sub.acked:
		sub.acked, sub.ackSeq = true, in.Seq
	}
}

// judgeStream judges a change notification of a 2026-07-28 session: it
// belongs to an open subscription that asked for it. j.mu is held.
func (j *judge) judgeStream(in *peer.Inbound, method string, v peer.Verdicts) {
	sid, has := in.Field("/params/_meta/" + escape(metaSubscription))
	open := 0
	for _, sub := range j.subs {
		if !sub.closed {
			open++
		}
	}
	if open == 0 && (!has || j.subs[peer.Key(sid)] == nil) {
		v.Fail("MCP-SUBS-3", in.Seq, "the server sent "+method+" while wirecheck had no subscriptions/listen open",
			"change notifications only on a subscription that asked for them", string(in.Raw))
		return
	}
	if via := in.HTTP; !has && via != nil && j.subs[via.For] == nil {
		// Over HTTP the stream is known, and this one is no listen
		// stream: the sentence speaks of "notifications delivered via a
		// subscriptions/listen stream" (MCP-HTTP-STREAM-5 judges it).
		return
	}
	if !has {
		v.Fail("MCP-SUBS-2", in.Seq, method+" without "+metaSubscription+" in _meta while a subscription was open",
			"_meta."+metaSubscription+": the id of the subscriptions/listen request", string(in.Raw))
		return
	}
	sub := j.subs[peer.Key(sid)]
	if sub == nil {
		v.Fail("MCP-SUBS-2", in.Seq, method+" names the subscription "+peer.Key(sid)+", which wirecheck never opened",
			"the id of an open subscriptions/listen request, with its JSON type", string(in.Raw))
		return
	}
	if sub.closed {
		if sub.isLate(in) {
			sub.late++
			v.Fail("MCP-SUBS-4", in.Seq, method+" for a subscription wirecheck had cancelled (after the server answered a later request)",
				"no message for a cancelled subscriptions/listen", string(in.Raw))
		}
		return
	}
	v.Pass("MCP-SUBS-2", in.Seq)
	if !sub.acked {
		sub.early = true
		v.Fail("MCP-SUBS-1", in.Seq, method+" on the subscription before notifications/subscriptions/acknowledged",
			"the acknowledgement as the first message carrying the subscription's id", string(in.Raw))
	}
	sub.stream++
	if sub.allows(method, in) {
		v.Pass("MCP-SUBS-3", in.Seq)
	} else {
		v.Fail("MCP-SUBS-3", in.Seq, method+" on a subscription that did not ask for it",
			"only the notifications of the filter "+show(sub.filter), string(in.Raw))
	}
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
	j := judgeOf(e)
	fails := j.judged("MCP-SUBS-3").fail
	req, c, err := s.listen(e, filter)
	if err != nil {
		return err
	}
	key := c.Key
	sub := func() subscription { return j.subscription(key) }
	answered := func() bool { return isDone(c) }
	watch := func(d time.Duration, until func() bool) { s.watch(e, d, until) }
	// listen is a silence listened to by design (scenario.Env.Idle).
	listen := func(d time.Duration) {
		over := e.Idle()
		defer over()
		watch(d, func() bool { return false })
	}
	start := time.Now()
	watch(e.Timeout, func() bool { return sub().acked || answered() })
	if answered() && c.Refused != "" && !sub().acked {
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
	switch now := sub(); {
	case !now.acked:
		e.Fail("MCP-SUBS-1", -1, "no notifications/subscriptions/acknowledged for subscriptions/listen "+key+" "+unacked(e, c, start),
			"an acknowledgement carrying "+metaSubscription+" "+key, "nothing")
	case !now.early:
		e.Pass("MCP-SUBS-1", now.ackSeq)
	}
	// What the stream brings in reply to the listen request: it comes
	// before the answer to a later request (stdin is read in order), or
	// just after it.
	if _, err := s.call(e, "server/discover", nil); err != nil {
		return err
	}
	listen(lateAnswer)
	if sub().stream == 0 {
		e.Skip("MCP-SUBS-2", "no notification came on the subscription besides its acknowledgement")
	}
	if j.judged("MCP-SUBS-3").fail == fails {
		e.Pass("MCP-SUBS-3", -1)
	}
	if answered() {
		e.Skip("MCP-SUBS-4", "the server ended the subscription itself (it answered subscriptions/listen)")
		return nil
	}
	e.Forget(c)
	if closer, ok := e.RequestCloser(); ok && closer.CloseRequest(key) {
		j.closeSub(key)
		// Over Streamable HTTP closing the stream is the cancellation;
		// MCP-SUBS-4 holds on stdio only (see its note in the spec).
		return nil
	}
	// Cancel, then a request: once it is answered the server has read the
	// cancellation, and nothing more may come for the subscription.
	if err := notify(e, "notifications/cancelled", map[string]any{"requestId": req["id"], "reason": "wirecheck closes the subscription"}); err != nil {
		return err
	}
	// The judge takes the answer to it for the server's reading of the
	// cancellation: a notification written after it is late, one before
	// is not.
	if _, err := s.call(e, "server/discover", nil); err != nil {
		return err
	}
	listen(lateAnswer)
	switch {
	case answered():
		e.Fail("MCP-SUBS-4", c.Response.Seq, "the server answered subscriptions/listen after wirecheck cancelled it",
			"no message for a cancelled subscriptions/listen (stdio)", string(c.Response.Raw))
	case sub().late == 0:
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

// listen sends subscriptions/listen with filter (the frame judge follows
// the subscription from its request on) and returns the request and the
// call without waiting.
func (s *session) listen(e *scenario.Env, filter map[string]any) (map[string]any, *peer.Call, error) {
	req := request("subscriptions/listen", map[string]any{"_meta": meta(s.requested), "notifications": filter})
	// A listen request is answered only when the server ends the
	// subscription ("A subscription ends when: …", basic/patterns/
	// subscriptions): over HTTP an exchange that never opens its stream
	// (no response headers within --timeout) or ends without a JSON-RPC
	// message owes no response, and MCP-SUBS-1 judges the missing
	// acknowledgement. An answer, when one comes, is judged.
	c, err := e.SendUnjudged(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return req, c, nil
}

// watch takes the frames that come (the judge has judged them) until
// until holds or d passes.
func (s *session) watch(e *scenario.Env, d time.Duration, until func() bool) {
	if until() {
		return
	}
	for range e.Drain(d, nil) {
		if until() {
			return
		}
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
	case e.OutputOver():
		return fmt.Sprintf("in the %s before the server's output ended (%s)", took, e.Gone())
	}
	return "within " + e.Timeout.String() + " (--timeout)"
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
