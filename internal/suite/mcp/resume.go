package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

var resumeRules = []string{"MCP-HTTP-DISCONNECT-1", "MCP-HTTP-RESUME-1"}

// ResumeGraceParam names the --param that sets how long past the slow
// tool's expected end (and past the last sign of work) http-resume waits
// for the dropped call's response: the pages bound no such wait, so the
// default is resumeGrace and the failure names this flag.
const ResumeGraceParam = "mcp-resume-grace"

// resumeGrace is how long http-resume waits for the dropped call's
// response past the tool's expected end and past each later sign of work.
// Longer than cancel's lateGrace: there a short wait can only miss a late
// answer, here it fails a server whose answer had not yet come.
const resumeGrace = 300 * time.Millisecond

// resumeTries and resumePause bound the reconnection after the drop.
const (
	resumeTries = 5
	resumePause = 100 * time.Millisecond
)

// httpResume drops the stream of a slow tool call after its first event
// id and resumes it with GET and Last-Event-ID: the response comes there
// (a disconnection is no cancellation, DISCONNECT-1), and nothing of
// another stream does (RESUME-1). Judged only on a server that streams
// the call with event ids and accepts the resumption.
func httpResume(e *scenario.Env) error {
	x, err := exchanger(e, "http", resumeRules...)
	if x == nil || err != nil {
		return err
	}
	rules := holding(e, resumeRules)
	if len(rules) == 0 {
		return nil
	}
	skip := func(why string) error {
		for r := range rules {
			e.Skip(r, why)
		}
		return nil
	}
	grace, bound := resumeGrace, "wirecheck's default: the pages bound no such wait; --param "+ResumeGraceParam+"=DURATION sets it"
	if v := e.Params[ResumeGraceParam]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("--param %s=%s: not a positive duration (e.g. 2s)", ResumeGraceParam, v)
		}
		grace, bound = d, "--param "+ResumeGraceParam
	}
	s := current(e)
	if !s.has("tools") {
		return skip("the server declares no tools: no slow call to drop")
	}
	items, _, err := listAll(e, s, "tools/list", "tools", "MCP-PAGINATION-1")
	if err != nil {
		return err
	}
	tool, why := slowTool(e, items)
	if tool == nil {
		return skip(why)
	}
	schema, _ := tool["inputSchema"].(map[string]any)
	args, expect := slowArgs(schema, e.Seed)
	tok := scenario.NextID("wc-progress")
	m := map[string]any{"progressToken": tok}
	if s.modern {
		maps.Copy(m, meta(s.requested))
	}
	params := map[string]any{"name": tool["name"], "arguments": args, "_meta": m}
	req := request("tools/call", params)
	id := fmt.Sprint(req["id"])
	last := ""
	start := time.Now()
	res, seq := exchange(e, x, "POST tools/call of the slow tool "+show(tool["name"])+", dropped after its first event id", httpmcp.Exchange{
		Method: http.MethodPost, Body: rawJSON(req),
		// A message's id, not a priming event's (2025-11-25): a server
		// that primes every stream yet keeps no history would send what
		// is left somewhere else, and there is no telling it resumable.
		Until: func(ev sse.Event) bool {
			if ev.HasID && ev.ID != "" && strings.TrimSpace(ev.Data) != "" {
				last = ev.ID
				return true
			}
			return false
		}})
	switch {
	case res == nil || !isEventStream(res.Header.Get("Content-Type")):
		return skip(fmt.Sprintf("the call was not answered with an event stream (transcript line %d): nothing to resume", seq))
	case last == "":
		return skip(fmt.Sprintf("the call's stream carried no message with an event id (transcript line %d): it is not resumable", seq))
	}
	for _, m := range messages(res, seq) {
		if fmt.Sprint(field(m, "/id")) == id {
			return skip("the call was answered before its first event id: nothing left to resume")
		}
	}
	// The resumption's wait. A tool that takes its duration from its
	// input says how long it works: the wait ends grace after its
	// expected end, or after the last sign that the server is still at
	// it, whichever is later (see resumeWait). Without a duration it ends
	// a response timeout after the expected end, as it always did.
	ctx, cancel := context.WithTimeout(context.Background(), probeWait(e)+expect+grace)
	defer cancel()
	var wait *resumeWait
	if saysDuration(schema) {
		from := start.Add(expect)
		if now := time.Now(); now.After(from) {
			from = now
		}
		wait = newResumeWait(from.Add(grace), grace, cancel)
		defer wait.stop()
		// The ping's own context: the wait's end must not cut it short.
		pctx, pcancel := context.WithCancel(context.Background())
		pinged := wait.pingAt(pctx, e, x, start.Add(expect))
		defer func() { pcancel(); <-pinged }()
	}
	// A server may not have seen the drop yet when the GET comes: a
	// refusal is tried again, as a client reconnects, a few times.
	for try := 0; try < resumeTries; try++ {
		if try > 0 {
			time.Sleep(resumePause)
		}
		res, seq = exchangeCtx(ctx, e, x, "GET the endpoint with Last-Event-ID: "+last, httpmcp.Exchange{
			Method: http.MethodGet, Set: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": last},
			// Read to the dropped call's own answer: a response of another
			// stream replayed first (RESUME-1's evidence) does not end it.
			Until: func(ev sse.Event) bool {
				wait.sign()
				return answers(ev.Data, id)
			}})
		if served(res) || res == nil || res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed {
			break
		}
	}
	if !served(res) {
		return skip(fmt.Sprintf("the resumption was refused (%s): the server does not resume this stream", answered(res)))
	}
	var answer *peer.Inbound
	foreign := ""
	for _, m := range messages(res, seq) {
		got := fmt.Sprint(field(m, "/id"))
		_, isResp := m.Field("/result")
		if _, isErr := m.Field("/error"); isErr {
			isResp = true
		}
		switch {
		case isResp && got == id:
			answer = m
		case isResp:
			foreign = string(m.Raw)
		case field(m, "/method") == "notifications/progress" && fmt.Sprint(field(m, "/params/progressToken")) != tok:
			foreign = string(m.Raw)
		}
	}
	if rules["MCP-HTTP-RESUME-1"] {
		if foreign != "" {
			e.Fail("MCP-HTTP-RESUME-1", seq, "the resumed stream replayed a message of another stream", "only the dropped call's messages", foreign)
		} else {
			e.Pass("MCP-HTTP-RESUME-1", seq)
		}
	}
	if !rules["MCP-HTTP-DISCONNECT-1"] {
		return nil
	}
	switch {
	case answer == nil:
		why := "the dropped call's response did not come on the resumed stream"
		if wait != nil {
			why += fmt.Sprintf(" (wirecheck waited until %s after the tool's expected end: it was asked to work %s, and the wait ends %s after that or after the last event of the stream or answer to a ping, whichever is later; %s)",
				wait.end().Sub(start.Add(expect)).Round(time.Millisecond), expect, grace, bound)
		}
		e.Fail("MCP-HTTP-DISCONNECT-1", seq, why, "the tools/call response (id "+id+")", answered(res))
	case isResult(answer):
		e.Pass("MCP-HTTP-DISCONNECT-1", seq)
	default:
		e.Fail("MCP-HTTP-DISCONNECT-1", seq, "the dropped call was answered with an error: the disconnection was taken for a cancellation", "the tool's result", string(answer.Raw))
	}
	return nil
}

// answers reports whether an event's data holds the response to id.
func answers(data, id string) bool {
	var m map[string]any
	if json.Unmarshal([]byte(data), &m) != nil {
		return false
	}
	_, res := m["result"]
	_, fail := m["error"]
	return (res || fail) && fmt.Sprint(m["id"]) == id
}

// saysDuration reports whether slowArgs sets the tool's duration from its
// input (a number named like one): the tool then says how long it works.
func saysDuration(schema map[string]any) bool {
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		if t := pm["type"]; (t == "number" || t == "integer") && slowDur.MatchString(name) {
			return true
		}
	}
	return false
}

// resumeWait ends the wait on a resumed stream (by cancelling its
// context) a grace after the latest of: the slow tool's expected end,
// the GET, the last event of the resumed stream, the answer to a ping
// sent at the expected end (while that ping is unanswered, the wait goes
// on). A server still at work shows it: its events keep coming, or, on a
// machine too loaded to meet the tool's duration, its ping is answered
// late and the wait grows with it. A server that lost the response shows
// nothing, and is failed without waiting out a response timeout (what
// made a run against such a server take 5 s).
type resumeWait struct {
	mu     sync.Mutex
	at     time.Time
	grace  time.Duration
	timer  *time.Timer
	cancel func()
	// pinging is set while the ping is unanswered; due when the wait
	// would have ended meanwhile.
	pinging, due bool
}

func newResumeWait(at time.Time, grace time.Duration, cancel func()) *resumeWait {
	w := &resumeWait{at: at, grace: grace, cancel: cancel}
	w.timer = time.AfterFunc(time.Until(at), w.expire)
	return w
}

func (w *resumeWait) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch d := time.Until(w.at); {
	case w.pinging:
		w.due = true
	case d > 0:
		w.timer.Reset(d)
	default:
		w.cancel()
	}
}

// sign is a sign of work now: the wait goes on a grace more. A nil
// wait (a tool without a duration) has no such end.
func (w *resumeWait) sign() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if t := time.Now().Add(w.grace); t.After(w.at) {
		w.at = t
	}
}

func (w *resumeWait) end() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at
}

func (w *resumeWait) stop() { w.timer.Stop() }

// pingAt POSTs a ping of the session at the tool's expected end, unless
// ctx ends first; its answer is a sign of work. The channel closes when
// it is done.
func (w *resumeWait) pingAt(ctx context.Context, e *scenario.Env, x httpmcp.Exchanger, at time.Time) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		w.mu.Lock()
		w.pinging = true
		w.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, probeWait(e))
		defer cancel()
		res, _ := exchangeCtx(pctx, e, x, "POST ping at the slow tool's expected end, while its stream is resumed", httpmcp.Exchange{
			Method: http.MethodPost, Body: rawJSON(request("ping", nil))})
		if served(res) {
			w.sign()
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.pinging = false
		if w.due {
			w.due = false
			w.timer.Reset(max(time.Until(w.at), 0))
		}
	}()
	return done
}
