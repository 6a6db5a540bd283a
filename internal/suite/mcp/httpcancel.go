package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// 2026-07-28 over Streamable HTTP has no notifications/cancelled from the
// client: "Closing the SSE response stream **MUST** be treated by the
// server as cancellation of that request. … The server **SHOULD** stop
// work on the cancelled request as soon as practical and **MUST NOT** send
// any further messages for it." (basic/transports/streamable-http.mdx,
// Cancellation). Once the stream is closed, the only place a server can
// still send something for the request is another stream the client holds
// open: a subscriptions/listen stream.

const cancelRule = "MCP-HTTP-CANCEL-1"

func httpCancelScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name:  "http-cancel",
		Title: "2026-07-28 over HTTP: with a subscriptions/listen stream open, a slow tool call's stream is closed once it reports progress; nothing more comes for that call on the other stream",
		Rules: []string{cancelRule},
		Idle:  slowTarget + lateGrace,
		Run:   httpCancel,
	}
}

// httpCancel opens a listen stream, then cancels a slow tool call by
// closing its stream (cancelByClose). It skips where nothing can be seen:
// no slow tool, no listen stream.
func httpCancel(e *scenario.Env) error {
	x, err := exchanger(e, "http", cancelRule)
	if x == nil || err != nil {
		return err
	}
	if len(holding(e, []string{cancelRule})) == 0 {
		return nil
	}
	closer, ok := e.RequestCloser()
	if !ok {
		e.Skip(cancelRule, "this transport cannot close one request's stream")
		return nil
	}
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		e.Skip(cancelRule, s.notModern(e))
		return nil
	}
	if !s.has("tools") {
		e.Skip(cancelRule, "the server does not declare tools: no call to cancel in progress")
		return nil
	}
	items, in, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	if !isResult(in) {
		e.Skip(cancelRule, "tools/list failed: no tool to cancel in progress")
		return nil
	}
	t, why := slowTool(e, items)
	if t == nil {
		e.Skip(cancelRule, why)
		return nil
	}
	filter, err := listenFilter(e, s)
	if err != nil {
		return err
	}
	if len(filter) == 0 {
		e.Skip(cancelRule, "the server offers no notification to listen for (no listChanged, no resource subscriptions): no other stream is open on which a message for the cancelled call could be seen")
		return nil
	}
	_, listen, err := s.listen(e, filter)
	if err != nil {
		return err
	}
	j := judgeOf(e)
	defer func() {
		// The subscription ends the same way: its stream closed.
		j.closeSub(listen.Key)
		e.Forget(listen)
		closer.CloseRequest(listen.Key)
	}()
	acked := func() bool { return j.subscription(listen.Key).acked }
	s.watch(e, e.Timeout, func() bool { return acked() || isDone(listen) })
	if !acked() || isDone(listen) {
		e.Skip(cancelRule, "subscriptions/listen was not acknowledged with its stream left open: no other stream is open on which a message for the cancelled call could be seen")
		return nil
	}
	return cancelByClose(e, s, closer, t)
}

// onOwnStream reports whether a frame came on the stream of the request
// keyed key (the response stream of its POST).
func onOwnStream(in *peer.Inbound, key string) bool {
	return in.HTTP != nil && in.HTTP.Verb == http.MethodPost && in.HTTP.For == key
}

// cancelByClose calls the slow tool t with a progress token; once the call
// has reported progress on its own stream and not answered (it is provably
// in progress), wirecheck closes that stream. A message for the call (its
// progress token, its id) on another stream afterwards fails the rule;
// wirecheck watches until the tool's expected end plus lateGrace. A server
// that sends the call's messages on another stream while its own is still
// open gives no way to tell a late message from one sent before the close.
func cancelByClose(e *scenario.Env, s *session, closer transport.RequestCloser, t map[string]any) error {
	sc, err := callSlow(e, s, t)
	if err != nil {
		return err
	}
	c, tok, name, args, expect, start := sc.c, sc.tok, sc.name, sc.args, sc.expect, sc.start
	forCall := func(in *peer.Inbound) bool { return tok != "" && field(in, "/params/progressToken") == tok }
	elsewhere := 0 // messages for the call on another stream, its own open
	progressed := false
	deadline := start.Add(max(e.Timeout, expect))
	for !progressed && !isDone(c) && time.Now().Before(deadline) {
		in, err := e.NextFrame(min(20*time.Millisecond, time.Until(deadline)), nil)
		if errors.Is(err, peer.ErrExited) {
			return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
		}
		if err != nil {
			continue
		}
		if forCall(in) {
			if onOwnStream(in, c.Key) {
				progressed = true
			} else {
				elsewhere++
			}
		}
		// The frame judge has judged it as it came.
	}
	if isDone(c) && !progressed {
		if _, err := e.Await(c, 0); err != nil {
			return err
		}
		s.drain(e)
		e.Skip(cancelRule, fmt.Sprintf("tool %q answered before it reported progress on its stream: there was no stream open mid-progress to close (arguments %s)", name, show(args)))
		return nil
	}
	judgeOf(e).cancel(tok)
	e.Forget(c)
	closed := closer.CloseRequest(c.Key)
	at := e.Annotate(fmt.Sprintf("wirecheck closes the SSE stream of request %s (tools/call %q): in 2026-07-28 that cancels it", c.Key, name))
	switch {
	case !progressed:
		e.Skip(cancelRule, fmt.Sprintf("tool %q reported no progress on its stream within %s, so wirecheck cannot show it was in progress (its stream was closed anyway)", name, time.Since(start).Round(time.Millisecond)))
		return nil
	case isDone(c) && c.Response != nil && c.Response.Seq < at:
		e.Skip(cancelRule, fmt.Sprintf("tool %q answered before wirecheck closed its stream: it was no longer in progress", name))
		return nil
	case !closed:
		e.Skip(cancelRule, fmt.Sprintf("the exchange of tool %q ended before wirecheck could close its stream", name))
		return nil
	}
	var late *peer.Inbound
	// No ping at the expected end here (see lateEnd): its exchange is one
	// more stream the server might put the call's messages on, right when
	// they are due, and what is judged is which stream they come on.
	watchUntil := time.Now().Add(max(time.Until(start.Add(expect+lateGrace)), minLateWait))
	for time.Now().Before(watchUntil) {
		in, err := e.NextFrame(time.Until(watchUntil), nil)
		if errors.Is(err, peer.ErrExited) {
			return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
		}
		if err != nil {
			continue
		}
		if late == nil && forCall(in) && in.Seq > at && !onOwnStream(in, c.Key) {
			late = in
		}
		// The frame judge has judged it as it came.
	}
	// The response of a forgotten call still lands on it; read once done.
	if late == nil && isDone(c) {
		if r := c.Response; r != nil && r.Seq > at && !onOwnStream(r, c.Key) {
			late = r
		}
	}
	switch {
	case late != nil && elsewhere > 0:
		e.Skip(cancelRule, fmt.Sprintf("the server sent the progress of tool %q on another stream while the call's own was open, so a message after the close (transcript line %d) cannot be told from one sent before it", name, late.Seq))
	case late != nil:
		e.Fail(cancelRule, late.Seq, fmt.Sprintf("after wirecheck closed the stream of tools/call %q (transcript line %d), the server sent a message for that request on %s", name, at, streamOf(late)),
			"no further message for the cancelled request", string(late.Raw))
	default:
		e.Pass(cancelRule, at)
	}
	return nil
}

// streamOf says which stream a frame came on.
func streamOf(in *peer.Inbound) string {
	if in.HTTP == nil {
		return "the transport"
	}
	if in.HTTP.For == "" {
		return fmt.Sprintf("the %s stream of HTTP exchange %d", in.HTTP.Verb, in.HTTP.Exchange)
	}
	return "the stream of request " + in.HTTP.For
}
