package mcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// SkipToolParam names the --param that leaves a listed tool uncalled by
// every scenario (repeatable: --param skip-tool=A --param skip-tool=B): a
// tool that long-polls, waits on the network, or must not run.
const SkipToolParam = "skip-tool"

// skipTool reports whether --param skip-tool names the tool.
func skipTool(e *scenario.Env, name string) bool {
	v, ok := e.Params[SkipToolParam]
	if !ok {
		return false
	}
	for _, n := range strings.Split(v, "\n") {
		if n == name {
			return true
		}
	}
	return false
}

// errSlowTool ends the wait for a tools/call the server left unanswered
// for --timeout while it answered the probe sent behind it: the tool is
// slow, the server is not hung, and the call is not judged.
var errSlowTool = errors.New("a tool slower than --timeout")

// unjudged reports whether err ends a wait for one request only, whose
// answer is not judged (a tool slower than --timeout, an answer over
// --max-frame): the scenario goes on with the next request.
func unjudged(err error) bool {
	return errors.Is(err, errSlowTool) || errors.Is(err, peer.ErrOverCap)
}

// awaitTool waits for the answer to a tools/call. MCP bounds no response
// time: "Implementations SHOULD establish timeouts for all sent requests
// … the sender SHOULD issue a cancellation notification for that request
// and stop waiting for a response" (basic/index, Timeouts) is the
// client's duty, not a rule of the server. So a call unanswered within
// --timeout is cancelled, as the sentence asks, and the server probed:
// answering the probe, it is alive and the tool merely slow (a long
// poll, a tool waiting on the network): errSlowTool, judged nothing. A
// probe left unanswered too is a hang, reported as Await reports one.
// The caller goes on with the other tools.
func (s *session) awaitTool(e *scenario.Env, c *peer.Call, tok string, params map[string]any) (*peer.Inbound, error) {
	// Over Streamable HTTP the exchange itself may run out of --timeout
	// first (no response headers): that, too, is no finding. The session
	// was opened by an answer, so the server is up: the wait gets no
	// start-up grace (peer.Peer.WaitUp's equals Wait's once it has written).
	e.Patient(c)
	in, err := e.Response(c, e.Timeout)
	timedOut := errors.Is(err, peer.ErrRefused) && c.Response != nil && c.Response.HTTP != nil && c.Response.HTTP.TimedOut
	if !errors.Is(err, peer.ErrTimeout) && !timedOut {
		if err == nil {
			return in, nil
		}
		// Refused, gone: as Await says it (the call is done, so at once).
		return e.Await(c, 0)
	}
	e.Forget(c)
	name, _ := params["name"].(string)
	if err := s.cancelCall(e, c, tok, fmt.Sprintf("no answer within %s (wirecheck's --timeout)", e.Timeout)); err != nil {
		return nil, err
	}
	if _, err := e.Probe(); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("tool %s not judged: no answer within %s; wirecheck cancelled the call, and the server answered the probe after it; raise --timeout, or leave the tool out with --param %s=%s",
		show(name), e.Bound(e.Timeout), SkipToolParam, name)
	e.Annotate(msg)
	e.Notef("%s", msg)
	return nil, fmt.Errorf("%w: %s", errSlowTool, msg)
}

// cancelCall cancels a call in flight: by closing its stream in
// 2026-07-28 over Streamable HTTP, by notifications/cancelled otherwise
// (the legacy HTTP+SSE transport included: a POST there carries no
// stream of the request's to close). Its progress is no longer judged.
func (s *session) cancelCall(e *scenario.Env, c *peer.Call, tok, reason string) error {
	// Before the stream closes: the judge reads its frames as they come.
	judgeOf(e).cancel(tok)
	x, overHTTP := exchangerOf(e)
	if rc, ok := e.RequestCloser(); ok && s.modern && overHTTP && x.Kind() == "http" {
		rc.CloseRequest(c.Key)
	} else if err := notify(e, "notifications/cancelled", map[string]any{"requestId": c.ID, "reason": reason}); err != nil {
		return err
	}
	return nil
}
