package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// nextResponse waits for the next response frame not correlated with a
// request (an answer to raw input), judging other frames on the way.
func nextResponse(e *scenario.Env, s *session, timeout time.Duration) *peer.Inbound {
	for in := range e.Drain(timeout, nil) {
		if in.Kind != nil && in.Kind.Role == spec.RoleResponse {
			return in
		}
		// The frame judge has judged it as it came.
	}
	return nil
}

// lateAnswer bounds the wait, after the barrier request was answered, for
// an answer to a notification sent before it: servers read stdin in order,
// so an answer that has not come by then is not coming.
const lateAnswer = 50 * time.Millisecond

// unanswered sends a notification followed by a barrier request (ping,
// or server/discover in revisions without ping) and returns a response to
// the notification if one came. An answer to a notification can only say
// id null (or none).
func unanswered(e *scenario.Env, s *session, method string, params any) *peer.Inbound {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	in, _ := answerTo(e, s, append(b, '\n'))
	if in == nil {
		return nil
	}
	if id, ok := in.Field("/id"); ok && id != nil {
		// A response naming an id answers no notification.
		return nil
	}
	return in
}

// answerTo writes a raw line owed an answer, then a barrier request, and
// returns the first response to the line: one that came before the
// barrier's answer or within lateAnswer of it (servers read stdin in
// order). A response carrying the barrier's id in another form (another
// type, a suffix) is the barrier's answer with a mangled id, which the
// peer judges on its own. Over the legacy transport the line's POST may
// be refused with no JSON-RPC body: refusal is that (a frame with
// HTTP.End), a response may still come on the stream after it.
func answerTo(e *scenario.Env, s *session, line []byte) (in, refusal *peer.Inbound) {
	// A frame read before the line was sent answers something else: a
	// stray answer left in the inbox (a mangled id the peer could not
	// place, on a transport that does not guess) is no answer to it.
	sent := e.Lines()
	if err := e.SendRaw(line, true); err != nil {
		return nil, nil
	}
	// Not s.call: its drain would swallow the answer looked for here.
	req := request("ping", nil)
	if s.modern {
		req = request("server/discover", map[string]any{"_meta": meta(s.requested)})
	}
	bar := fmt.Sprint(req["id"])
	if c, err := e.Send(req); err == nil {
		// Unanswered, the barrier has still given the server its timeout.
		_, _ = e.Await(c, 0)
	}
	// A silence listened to by design: a correct server sends nothing.
	over := e.Idle()
	defer over()
	for in := range e.Drain(lateAnswer, nil) {
		switch {
		case in.Kind != nil && in.Kind.Role == spec.RoleResponse && in.Seq >= 0 && in.Seq < sent:
			// The frame judge has judged it as it came.
		case in.Kind != nil && in.Kind.Role == spec.RoleResponse:
			if id, ok := in.Field("/id"); !ok || id == nil || !strings.Contains(fmt.Sprint(id), bar) {
				return in, refusal
			}
		case refusal == nil && in.Kind == nil && in.HTTP != nil && in.HTTP.End != "":
			refusal = in
		default:
			// The frame judge has judged it as it came.
		}
	}
	if refusal == nil {
		e.ForgetRaw()
	}
	return nil, refusal
}

// listAll follows nextCursor through every page of a list method and
// returns the items; ruleCursor fails when the cursors loop.
func listAll(e *scenario.Env, s *session, method, key, ruleCursor string) ([]any, *peer.Inbound, error) {
	var items []any
	var first *peer.Inbound
	seen := map[string]bool{}
	var cursor any
	for range 50 {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = cursor
		}
		in, err := s.call(e, method, params)
		if err != nil {
			return items, first, err
		}
		if first == nil {
			first = in
		}
		if _, ok := in.Field("/result"); !ok {
			return items, in, nil
		}
		page, _ := field(in, "/result/"+key).([]any)
		if method == "tools/list" {
			page = judgeToolHeaders(e, s, in, page)
		}
		items = append(items, page...)
		next, ok := field(in, "/result/nextCursor").(string)
		if !ok {
			return items, first, nil
		}
		if seen[next] {
			e.Fail(ruleCursor, in.Seq, method+" returned the cursor "+show(next)+" twice: the pages loop", "a cursor leading to a new page", string(in.Raw))
			return items, first, nil
		}
		seen[next] = true
		cursor = next
	}
	return items, first, nil
}

func isResult(in *peer.Inbound) bool {
	_, ok := in.Field("/result")
	return ok
}

func rawJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
