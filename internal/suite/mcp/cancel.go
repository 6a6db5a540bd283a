package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// SlowToolParam names the tool the cancel scenario cancels in progress
// (--param mcp-slow-tool=NAME); without it, a tool is chosen by name and
// description (slowTool).
const SlowToolParam = "mcp-slow-tool"

// slowTarget is how long wirecheck asks a slow tool to work, where its
// input has a duration, and how long it expects it to work otherwise: long
// enough to report progress before it ends (a tool that ends first is
// skipped, never failed), short enough that waiting out a server that
// honours the cancellation (it never answers) costs little.
const slowTarget = 200 * time.Millisecond

// lateGrace is how long after the tool's expected end wirecheck still
// waits for an answer to the cancelled call. A machine too loaded to keep
// the tool's time stretches the wait (see lateEnd).
const lateGrace = 150 * time.Millisecond

// minLateWait is the least wirecheck waits after the ping's answer, when
// the tool's expected end has already passed.
const minLateWait = 100 * time.Millisecond

// lateEnd pings the server at the slow tool's expected end (sleeping
// until then if that is still to come) and says when the watch for the cancelled call's
// late messages may end: lateGrace after that end, or minLateWait after
// the ping's answer, whichever is later. A server still at work when it
// should be done (a loaded machine) answers the ping late too, so the
// watch waits for it rather than pass a server whose late answer had not
// yet come. A shorter watch can only miss a late answer, never invent
// one: the verdict is by order, not by time.
func lateEnd(e *scenario.Env, start time.Time, expect time.Duration) time.Time {
	if d := time.Until(start.Add(expect)); d > 0 {
		time.Sleep(d)
	}
	end := start.Add(expect + lateGrace)
	if _, err := e.Probe(); err == nil {
		if t := time.Now().Add(minLateWait); t.After(end) {
			end = t
		}
	}
	return end
}

var (
	slowName = regexp.MustCompile(`(?i)long[-_ ]?running|slow|sleep|delay|wait`)
	slowDur  = regexp.MustCompile(`(?i)duration|seconds|secs|delay|sleep|wait|time`)
	slowStep = regexp.MustCompile(`(?i)^(steps|count|iterations|ticks)$`)
)

// slowTool picks the tool to cancel in progress: the one --param
// mcp-slow-tool names, else the first whose name, then the first whose
// description, suggests it runs long (long-running, slow, sleep, delay,
// wait). It returns the tool, or nil and why none.
func slowTool(e *scenario.Env, items []any) (map[string]any, string) {
	if want := e.Params[SlowToolParam]; want != "" {
		for _, t := range items {
			if tm, _ := t.(map[string]any); tm["name"] == want {
				return tm, ""
			}
		}
		return nil, fmt.Sprintf("the server lists no tool %q (--param %s)", want, SlowToolParam)
	}
	for _, key := range []string{"name", "description"} {
		for _, t := range items {
			tm, _ := t.(map[string]any)
			if name, _ := tm["name"].(string); skipTool(e, name) {
				continue
			}
			if v, _ := tm[key].(string); v != "" && slowName.MatchString(v) {
				return tm, ""
			}
		}
	}
	return nil, "no listed tool looks long-running (name or description with long-running, slow, sleep, delay or wait); name one with --param " + SlowToolParam + "=NAME"
}

// slowArgs generates the tool's arguments from its inputSchema, then sets
// the numeric properties that look like a duration to about slowTarget
// (milliseconds when the name ends in "ms" or says "milli", seconds
// otherwise; within the property's minimum and maximum) and those that look
// like a number of steps to 5. It returns the arguments and how long the
// tool should then work.
func slowArgs(schema map[string]any, seed uint64) (map[string]any, time.Duration) {
	return slowArgsFor(schema, seed, slowTarget)
}

// slowArgsFor is slowArgs asking the tool to work for about target.
func slowArgsFor(schema map[string]any, seed uint64, target time.Duration) (map[string]any, time.Duration) {
	args := map[string]any{}
	if sch, err := gen.Compile(rawJSON(schema)); err == nil {
		if v, err := gen.TryExample(sch, seed); err == nil {
			if m, ok := v.(map[string]any); ok {
				args = m
			}
		}
	}
	expect := target
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		if t := pm["type"]; t != "number" && t != "integer" {
			continue
		}
		desc, _ := pm["description"].(string)
		switch {
		case slowDur.MatchString(name):
			lower := strings.ToLower(name + " " + desc)
			ms := strings.HasSuffix(strings.ToLower(name), "ms") || strings.Contains(lower, "milli")
			unit := time.Second
			if ms {
				unit = time.Millisecond
			}
			v := float64(target) / float64(unit)
			if pm["type"] == "integer" {
				v = math.Ceil(v)
			}
			v = clamp(v, pm)
			args[name] = v
			expect = time.Duration(v * float64(unit))
		case slowStep.MatchString(name):
			args[name] = clamp(5, pm)
		}
	}
	return args, expect
}

// clamp keeps v within a property's minimum and maximum.
func clamp(v float64, p map[string]any) float64 {
	if lo, ok := numberOf(p["minimum"]); ok && v < lo {
		v = lo
	}
	if hi, ok := numberOf(p["maximum"]); ok && v > hi {
		v = hi
	}
	return v
}

func numberOf(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return number(v)
}

// slowCall is a call of a slow tool in flight: its progress token, the
// arguments it was given and how long the tool should then work.
type slowCall struct {
	c      *peer.Call
	tok    string
	name   string
	args   map[string]any
	expect time.Duration
	start  time.Time
}

// callSlow calls the slow tool t (slowArgs) with a progress token, without
// waiting for its answer.
func callSlow(e *scenario.Env, s *session, t map[string]any) (*slowCall, error) {
	return callSlowFor(e, s, t, slowTarget)
}

// callSlowFor is callSlow asking the tool to work for about target.
func callSlowFor(e *scenario.Env, s *session, t map[string]any, target time.Duration) (*slowCall, error) {
	name, _ := t["name"].(string)
	schema, _ := t["inputSchema"].(map[string]any)
	args, expect := slowArgsFor(schema, e.Seed, target)
	start := time.Now()
	c, tok, _, err := s.dispatch(e, "tools/call", map[string]any{"name": name, "arguments": args}, sendOpts{})
	if err != nil {
		return nil, err
	}
	return &slowCall{c: c, tok: tok, name: name, args: args, expect: expect, start: start}, nil
}

// cancelInFlight decides MCP-CANCEL-2: a slow tool is called with a
// progress token; once it has reported progress and not answered (it is
// provably in progress), wirecheck cancels it and sends ping. The server
// reads its input in order, so an answer to the cancelled call that comes
// after the ping's answer was written after the server had read the
// cancellation: a failure. An answer before the ping's may have been on its
// way already (the race the specification allows) and is not judged.
// wirecheck waits until the tool's expected end plus lateGrace, or longer
// (lateEnd).
func cancelInFlight(e *scenario.Env, s *session) error {
	if !s.has("tools") {
		e.Skip("MCP-CANCEL-2", "the server does not declare tools: no request to cancel in progress")
		return nil
	}
	items, in, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	if !isResult(in) {
		e.Skip("MCP-CANCEL-2", "tools/list failed: no tool to cancel in progress")
		return nil
	}
	t, why := slowTool(e, items)
	if t == nil {
		e.Skip("MCP-CANCEL-2", why)
		return nil
	}
	// A tool that finished before its cancellation could reach it (a
	// loaded machine: the progress, the cancellation or the ping came
	// late) lost a race, which says nothing of the server: the call is
	// made again, asked to work longer, while the tool allows it.
	for target := slowTarget; ; {
		raced, err := cancelAttempt(e, s, t, target)
		if err != nil || raced == "" {
			return err
		}
		next := min(4*target, slowRetryMax)
		if next == target || !asksLonger(t, e.Seed, target, next) {
			e.Skip("MCP-CANCEL-2", raced)
			return nil
		}
		target = next
	}
}

// slowRetryMax is the longest wirecheck asks a slow tool to work when a
// cancellation in progress lost its race with the tool's end.
const slowRetryMax = 2 * time.Second

// asksLonger reports whether the tool t, asked to work for target, can
// be asked to work longer, for next: it has a duration parameter that
// allows more.
func asksLonger(t map[string]any, seed uint64, target, next time.Duration) bool {
	schema, _ := t["inputSchema"].(map[string]any)
	a, _ := slowArgsFor(schema, seed, target)
	b, _ := slowArgsFor(schema, seed, next)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) != string(jb)
}

// cancelAttempt calls the slow tool t, asked to work for about target,
// cancels it once it reported progress, and judges MCP-CANCEL-2. When the
// tool finished before the cancellation could tell (it answered before
// its progress, or before the ping sent after the cancellation), it
// records nothing and returns why as raced.
func cancelAttempt(e *scenario.Env, s *session, t map[string]any, target time.Duration) (raced string, err error) {
	sc, err := callSlowFor(e, s, t, target)
	if err != nil {
		return "", err
	}
	c, tok, name, args, expect, start := sc.c, sc.tok, sc.name, sc.args, sc.expect, sc.start
	// Wait for a progress notification of this call while it is unanswered.
	deadline := start.Add(max(e.Timeout, expect))
	progressed := false
	for !progressed {
		select {
		case <-c.Done():
			if _, err := e.Await(c, 0); err != nil {
				return "", err
			}
			s.drain(e)
			return fmt.Sprintf("tool %q answered before it reported progress: it was never provably in progress (arguments %s)", name, show(args)), nil
		default:
		}
		if time.Now().After(deadline) {
			break
		}
		f, err := e.NextFrame(min(20*time.Millisecond, time.Until(deadline)), nil)
		if errors.Is(err, peer.ErrExited) {
			return "", fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
		}
		if err != nil {
			continue
		}
		// The frame judge has judged it as it came.
		if field(f, "/method") == "notifications/progress" && field(f, "/params/progressToken") == tok {
			progressed = true
		}
	}
	// 2026-07-28 over Streamable HTTP cancels by closing the call's
	// stream, and a sessionless server need not take a
	// notifications/cancelled POST for any request of its own.
	if err := s.cancelCall(e, c, tok, "wirecheck cancels a call in progress"); err != nil {
		return "", err
	}
	if !progressed {
		e.Forget(c)
		e.Skip("MCP-CANCEL-2", fmt.Sprintf("tool %q reported no progress within %s, so wirecheck cannot show it was in progress (it was cancelled anyway)", name, time.Since(start).Round(time.Millisecond)))
		return "", nil
	}
	ping, err := e.Probe()
	if err != nil {
		e.FailUnanswered("MCP-CANCEL-2", "the server did not answer ping after a cancellation: "+err.Error(), "an answer to ping")
		return "", err
	}
	// Until the expected end the answer is awaited as such (it ends the
	// wait at once); then lateEnd's ping says how much longer.
	late, err := e.Response(c, max(time.Until(start.Add(expect)), 0))
	if late == nil && errors.Is(err, peer.ErrTimeout) {
		late, err = e.Response(c, max(time.Until(lateEnd(e, start, expect)), minLateWait))
	}
	e.Forget(c)
	s.drain(e)
	switch {
	case err != nil && !errors.Is(err, peer.ErrTimeout):
		return "", fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	case late == nil:
		e.Pass("MCP-CANCEL-2", ping.Seq)
	case late.Seq > ping.Seq && c.Mismatch == "value":
		// Taken for the call's only because it was the one request in
		// flight: it may answer the cancellation itself (MCP-CANCEL-1).
		e.Skip("MCP-CANCEL-2", fmt.Sprintf("an answer without the cancelled call's id came after the cancellation (transcript line %d): it may answer the cancellation itself (MCP-CANCEL-1 judges that), so it does not tell whether the call was answered", late.Seq))
	case late.Seq > ping.Seq:
		e.Fail("MCP-CANCEL-2", late.Seq, fmt.Sprintf("tool %q, cancelled after it reported progress, was answered after the server had read the cancellation (it answered the ping sent after it first, line %d)", name, ping.Seq),
			"no response to the cancelled request", string(late.Raw))
	default:
		return fmt.Sprintf("tool %q answered before the ping sent after the cancellation: the answer may have been on its way (allowed)", name), nil
	}
	return "", nil
}

func cancel(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	// A request answered already, whose cancellation must be ignored:
	// ping, or server/discover in 2026-07-28, which has no ping.
	req := request("ping", nil)
	if s.modern {
		req = request("server/discover", map[string]any{"_meta": meta(s.requested)})
	}
	_, c, err := e.Call(req)
	if err != nil {
		return err
	}
	for _, id := range []any{"wc-never-sent", c.ID} {
		params := map[string]any{"requestId": id, "reason": "wirecheck checks that this is ignored"}
		if in := unanswered(e, s, "notifications/cancelled", params); in != nil {
			e.Fail("MCP-CANCEL-1", in.Seq, "a cancellation was answered", "no answer to a cancellation", string(in.Raw))
			return nil
		}
	}
	in, err := e.Probe()
	if err != nil {
		e.FailUnanswered("MCP-CANCEL-1", "the server stopped answering after a cancellation: "+err.Error(), "an answer to ping")
		return err
	}
	e.Pass("MCP-CANCEL-1", in.Seq)
	return nil
}

func cancelInProgress(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	return cancelInFlight(e, s)
}
