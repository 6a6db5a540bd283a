package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/transport/sse"
)

var resumeRules = []string{"MCP-HTTP-DISCONNECT-1", "MCP-HTTP-RESUME-1"}

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
	rules := outOfRevision(e, resumeRules)
	if len(rules) == 0 {
		return nil
	}
	skip := func(why string) error {
		for r := range rules {
			e.Skip(r, why)
		}
		return nil
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
	res, seq := exchange(e, x, "POST tools/call of the slow tool "+show(tool["name"])+", dropped after its first event id", transport.Exchange{
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
	// A server may not have seen the drop yet when the GET comes: a
	// refusal is tried again, as a client reconnects, a few times.
	for try := 0; try < resumeTries; try++ {
		if try > 0 {
			time.Sleep(resumePause)
		}
		res, seq = exchangeWithin(e, x, "GET the endpoint with Last-Event-ID: "+last, transport.Exchange{
			Method: http.MethodGet, Set: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": last},
			// Read to the dropped call's own answer: a response of another
			// stream replayed first (RESUME-1's evidence) does not end it.
			Until: func(ev sse.Event) bool { return answers(ev.Data, id) }}, probeWait(e)+expect+lateGrace)
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
		e.Fail("MCP-HTTP-DISCONNECT-1", seq, "the dropped call's response did not come on the resumed stream", "the tools/call response (id "+id+")", answered(res))
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
