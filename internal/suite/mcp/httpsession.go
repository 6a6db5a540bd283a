package mcp

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// neverIssued is a well-formed session id no server issued.
func neverIssued() string { return scenario.NextID("wirecheck-never-issued-7f3a9c1e") }

// judgeSessions: without a session id a request is refused 400
// (SESSION-3), with an id never issued 404 (SESSION-5); DELETE is honoured
// or refused 405 (SESSION-6), and after it the id is 404 (SESSION-4).
func judgeSessions(e *scenario.Env, x httpmcp.Exchanger, body []byte) {
	id := x.Session()
	if id == "" {
		skipAll(e, "the server issued no Mcp-Session-Id: sessions are optional (\"A server … MAY assign a session ID\")",
			"MCP-SESSION-2", "MCP-SESSION-3", "MCP-SESSION-4", "MCP-SESSION-5", "MCP-SESSION-6")
		return
	}
	other := judgeUnique(e, x, id)
	res, seq := exchange(e, x, "the twin without Mcp-Session-Id", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Drop: []string{"Mcp-Session-Id"}})
	switch {
	case res != nil && res.Status == http.StatusBadRequest:
		e.Pass("MCP-SESSION-3", seq)
	case served(res):
		e.Skip("MCP-SESSION-3", "the server served a request without Mcp-Session-Id: it does not require one")
	case res != nil && res.Status == http.StatusNotFound:
		e.Fail("MCP-SESSION-3", seq, "a request without Mcp-Session-Id was answered 404, which tells a client its session expired (it then re-initializes)",
			"400 Bad Request", answered(res))
	default:
		e.Fail("MCP-SESSION-3", seq, "a request without Mcp-Session-Id was not answered 400", "400 Bad Request", answered(res))
	}
	res, seq = exchange(e, x, "the twin with an Mcp-Session-Id never issued", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Set: map[string]string{"Mcp-Session-Id": neverIssued()}})
	if res != nil && res.Status == http.StatusNotFound {
		e.Pass("MCP-SESSION-5", seq)
	} else {
		e.Fail("MCP-SESSION-5", seq, "a request with a session id the server never issued was not answered 404 (to a client it is a session that ended)",
			"404 Not Found", answered(res))
	}
	// DELETE ends a second session, not the run's: the transport's own
	// streams stay out of it.
	if other == "" {
		skipAll(e, "no second session to delete (MCP-SESSION-2)", "MCP-SESSION-4", "MCP-SESSION-6")
		return
	}
	res, seq = exchange(e, x, "DELETE the second session", httpmcp.Exchange{Method: http.MethodDelete,
		Set: map[string]string{"Mcp-Session-Id": other}})
	switch {
	case res != nil && res.Status == http.StatusMethodNotAllowed:
		e.Pass("MCP-SESSION-6", seq)
		e.Skip("MCP-SESSION-4", "the server refused DELETE with 405: the session was not terminated")
		return
	case served(res):
		e.Pass("MCP-SESSION-6", seq)
	default:
		e.Fail("MCP-SESSION-6", seq, "DELETE of a live session was answered neither 2xx nor 405", "200, 202 or 204, or 405 Method Not Allowed", answered(res))
		e.Skip("MCP-SESSION-4", "DELETE was not honoured (MCP-SESSION-6): the session may live on")
		return
	}
	res, seq = exchange(e, x, "the twin with the deleted session's id", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Set: map[string]string{"Mcp-Session-Id": other}})
	if res != nil && res.Status == http.StatusNotFound {
		e.Pass("MCP-SESSION-4", seq)
		return
	}
	e.Fail("MCP-SESSION-4", seq, "after DELETE was answered 2xx, a request with that session id was not answered 404", "404 Not Found", answered(res))
}

// judgeUnique: a second session gets another id, and not the next
// integer (MCP-SESSION-2; entropy itself cannot be proven).
func judgeUnique(e *scenario.Env, x httpmcp.Exchanger, id string) string {
	init := rawJSON(initRequest(e.Protocol.Version))
	res, seq := exchange(e, x, "POST initialize without Mcp-Session-Id: a second session", httpmcp.Exchange{
		Method: http.MethodPost, Body: init, Drop: []string{"Mcp-Session-Id"}})
	other := ""
	if res != nil {
		other = res.Header.Get("Mcp-Session-Id")
	}
	a, errA := strconv.ParseInt(id, 10, 64)
	b, errB := strconv.ParseInt(other, 10, 64)
	switch {
	case other == "":
		e.Skip("MCP-SESSION-2", fmt.Sprintf("a second initialize got no session id (%s)", answered(res)))
		return ""
	case other == id:
		e.Fail("MCP-SESSION-2", seq, "two sessions were given the same id", "a globally unique session id per session", other)
		return ""
	case errA == nil && errB == nil && (b-a == 1 || a-b == 1):
		e.Fail("MCP-SESSION-2", seq, "two sessions were given consecutive integers as ids: the next is guessable", "a cryptographically secure id (a UUID, a JWT, a hash)", id+" then "+other)
	default:
		e.Pass("MCP-SESSION-2", seq)
	}
	return other
}
