package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/sockets"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The HTTP scenarios probe what only HTTP has (session ids, methods,
// headers, origins, credentials) with Exchanger probes sent beside the
// session. Every negative probe is judged next to its twin, the same
// request with nothing changed, which must have been served: a refusal is
// charged to the one thing that differs (docs/plans/mcp-http.md §0.5).

// httpScenarios are the scenarios of the HTTP transports; on stdio they
// skip their rules.
func httpScenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "http-transport",
		Title: "HTTP: requests without a session id, with an id never issued, with an unsupported MCP-Protocol-Version; a response to an id never used is accepted or refused, not answered success with an error; a second session's id, that session deleted and then refused",
		Rules: transportRules,
		Run:   httpTransport,
	}, headersScenario(), {
		Name:  "http-origin",
		Title: "HTTP: a request with a foreign Origin is refused (403 from 2025-11-25); a launched server listens on loopback only",
		Rules: []string{"MCP-ORIGIN-1", "MCP-ORIGIN-2", "MCP-BIND-1"},
		Run:   httpOrigin,
	}, {
		Name:  "http-auth",
		Title: "HTTP: a server that requires authorization refuses missing, invalid and malformed credentials as the revision says, and names its protected resource metadata",
		Rules: authRules,
		Run:   httpAuth,
	}, {
		Name:  "http-resume",
		Title: "HTTP, resumable servers: a slow call's stream dropped after an event id is resumed with Last-Event-ID, which brings its response and nothing of another stream",
		Rules: resumeRules,
		Idle:  slowTarget + resumeGrace,
		Run:   httpResume,
	}, {
		Name:  "sse-legacy",
		Title: "legacy HTTP+SSE: the stream URL answers an event stream whose first event names a same-origin endpoint",
		Rules: []string{"MCP-SSE-1", "MCP-SSE-2", "MCP-SSE-3"},
		Run:   sseLegacy,
	}}
}

// MCP-HTTP-GET-1 is the transport's (http.get-stream): it opens the
// session's GET stream, and a probe beside it would race it for the one
// stream a server may allow per session.
var transportRules = []string{"MCP-HTTP-ENDPOINT-1", "MCP-HTTP-ACCEPT-2", "MCP-SESSION-2", "MCP-SESSION-3", "MCP-SESSION-4", "MCP-SESSION-5", "MCP-SESSION-6", "MCP-HTTP-VERSION-1", "MCP-HTTP-VERSION-2"}

var authRules = []string{"MCP-AUTH-1", "MCP-AUTH-2", "MCP-AUTH-3", "MCP-AUTH-4", "MCP-AUTH-5", "MCP-AUTH-6", "MCP-AUTH-7",
	"MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10", "MCP-AUTH-11", "MCP-AUTH-12", "MCP-AUTH-13", "MCP-AUTH-14"}

// exchanger returns the transport's probe interface, or skips rules and
// returns nil on stdio. kind ("http" or "sse") limits it to one of the two
// HTTP transports ("" for both). The process gets its session first
// either way: over HTTP a server may refuse any request outside one, the
// liveness ping after the scenario included.
func exchanger(e *scenario.Env, kind string, rules ...string) (httpmcp.Exchanger, error) {
	x, ok := e.Peer.Transport().(httpmcp.Exchanger)
	if !ok {
		skipAll(e, "HTTP only: this run speaks stdio", rules...)
		return nil, nil
	}
	_, err := ensure(e)
	switch {
	case kind == "http" && x.Kind() != "http":
		skipAll(e, "Streamable HTTP only: this run speaks the legacy HTTP+SSE transport", rules...)
		return nil, err
	case kind == "sse" && x.Kind() != "sse":
		skipAll(e, "legacy HTTP+SSE only: this run speaks Streamable HTTP", rules...)
		return nil, err
	}
	return x, err
}

// outOfRevision skips the rules that do not hold in the run's revision and
// returns those that do.
func outOfRevision(e *scenario.Env, rules []string) map[string]bool {
	in := map[string]bool{}
	for _, id := range rules {
		if r := e.Protocol.Rule(id); r != nil && !e.Protocol.InRevision(r, e.Protocol.Version) {
			e.Skip(id, cmp.Or(e.Protocol.NotInRevision(r), "not a rule of revision "+e.Protocol.Version))
			continue
		}
		in[id] = true
	}
	return in
}

// probeWait bounds one probe: its answer's headers, or its first events.
func probeWait(e *scenario.Env) time.Duration { return max(e.Timeout, time.Second) }

// exchange sends one probe and notes what it was and what came back in the
// transcript, returning the note's line as the evidence of a verdict. A
// probe that got no answer at all returns a nil Result.
func exchange(e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	return exchangeWithin(e, x, what, ex, probeWait(e))
}

// exchangeWithin is exchange bounded by d.
func exchangeWithin(e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange, d time.Duration) (*httpmcp.Result, int) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return exchangeCtx(ctx, e, x, what, ex)
}

// exchangeCtx is exchange bounded by ctx.
func exchangeCtx(ctx context.Context, e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	res, seq, _ := exchangeErr(ctx, e, x, what, ex)
	return res, seq
}

// exchangeErr is exchangeCtx with the transport's error: a
// *transport.OffLoopback says the probe was not sent at all, which no
// check may hold against the server.
func exchangeErr(ctx context.Context, e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int, error) {
	res, err := x.Exchange(ctx, ex)
	text := "probe: " + what + " → " + answered(res)
	if err != nil {
		text += " (" + err.Error() + ")"
	}
	seq := e.Peer.Recorder().Add(transcript.Note, []byte(text))
	if res != nil && res.Status == 0 {
		return nil, seq, err
	}
	return res, seq, err
}

// answered says in a few words what a probe got.
func answered(res *httpmcp.Result) string {
	if res == nil || res.Status == 0 {
		return "no answer"
	}
	s := fmt.Sprintf("HTTP %d", res.Status)
	if ct := res.Header.Get("Content-Type"); ct != "" {
		s += " " + ct
	}
	if len(res.Body) > 0 {
		s += ": " + show(string(res.Body))
	}
	return s
}

func served(res *httpmcp.Result) bool { return res != nil && res.Status >= 200 && res.Status < 300 }

func refused(res *httpmcp.Result) bool { return res != nil && res.Status >= 400 && res.Status < 500 }

// twinBody is the request the probes vary: tools/list, a request of every
// revision (a server without tools answers it -32601, which is served).
func twinBody(s *session) []byte {
	params := map[string]any{}
	if s != nil && s.modern {
		params["_meta"] = meta(s.requested)
	}
	return rawJSON(request("tools/list", params))
}

// twin sends the positive twin and says why the negative probes cannot be
// judged when it was not served ("" when it was).
func twin(e *scenario.Env, x httpmcp.Exchanger, body []byte) (*httpmcp.Result, string) {
	res, seq := exchange(e, x, "the twin request, as the session sends it", httpmcp.Exchange{Method: http.MethodPost, Body: body})
	if !served(res) {
		return res, fmt.Sprintf("the twin request (transcript line %d) was not served (%s): nothing to compare a probe with", seq, answered(res))
	}
	return res, ""
}

func httpTransport(e *scenario.Env) error {
	x, err := exchanger(e, "http", transportRules...)
	if x == nil || err != nil {
		return err
	}
	rules := outOfRevision(e, transportRules)
	if len(rules) == 0 {
		return nil
	}
	body := twinBody(current(e))
	res, why := twin(e, x, body)
	if why != "" {
		if res != nil && rules["MCP-HTTP-ENDPOINT-1"] && (res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed || res.Status == http.StatusNotImplemented) {
			delete(rules, "MCP-HTTP-ENDPOINT-1")
			e.Fail("MCP-HTTP-ENDPOINT-1", -1, "a request of the session was refused at the endpoint that served its initialize", "the one MCP endpoint serves the session's POSTs", answered(res))
		}
		for r := range rules {
			e.Skip(r, why)
		}
		return nil
	}
	if rules["MCP-HTTP-ENDPOINT-1"] {
		// The session's initialize and this request were served at one path.
		e.Pass("MCP-HTTP-ENDPOINT-1", -1)
	}
	if rules["MCP-HTTP-VERSION-1"] {
		judgeVersionHeader(e, x, body)
	}
	if rules["MCP-HTTP-ACCEPT-2"] {
		judgeStrayResponse(e, x)
	}
	judgeSessions(e, x, body)
	return nil
}

// judgeStrayResponse is MCP-HTTP-ACCEPT-2's probe: a JSON-RPC response to
// an id the server never used. Ignoring it (202) and refusing it (an
// error status) both keep the sentence; a success status carrying a
// JSON-RPC error refused it while saying it was accepted. A 2xx without
// an error accepted it: ACCEPT-1 judges the status of what is accepted,
// and the transport does so on the session's own notifications.
func judgeStrayResponse(e *scenario.Env, x httpmcp.Exchanger) {
	probe := rawJSON(map[string]any{"jsonrpc": "2.0", "id": scenario.NextID("wirecheck-never-used"), "result": map[string]any{}})
	res, seq := exchange(e, x, "a JSON-RPC response to an id the server never used", httpmcp.Exchange{Method: http.MethodPost, Body: probe})
	switch {
	case res == nil:
		e.Skip("MCP-HTTP-ACCEPT-2", "the response to an id never used got no HTTP answer (transcript line "+fmt.Sprint(seq)+"): no status to judge")
	case served(res) && carriesError(res):
		e.Fail("MCP-HTTP-ACCEPT-2", seq, fmt.Sprintf("a response to an id the server never used was refused with a JSON-RPC error under HTTP %d, a success status", res.Status),
			"202 Accepted, or an HTTP error status (e.g. 400) for input not accepted", answered(res))
	case res.Status/100 == 3:
		e.Skip("MCP-HTTP-ACCEPT-2", "the response to an id never used was answered "+answered(res)+": neither accepted nor refused")
	default:
		e.Pass("MCP-HTTP-ACCEPT-2", seq)
	}
}

// carriesError says whether a probe's answer holds a JSON-RPC error.
func carriesError(res *httpmcp.Result) bool {
	for _, in := range messages(res, 0) {
		if field(in, "/error") != nil {
			return true
		}
	}
	return false
}

func isEventStream(ct string) bool {
	return strings.EqualFold(strings.TrimSpace(strings.Split(ct, ";")[0]), "text/event-stream")
}

// judgeVersionHeader: an unsupported MCP-Protocol-Version is refused 400
// (VERSION-1); a request without one is served (VERSION-2).
func judgeVersionHeader(e *scenario.Env, x httpmcp.Exchanger, body []byte) {
	ok := true
	for _, v := range []string{"1999-01-01", "not-a-version"} {
		res, seq := exchange(e, x, "the twin with MCP-Protocol-Version: "+v, httpmcp.Exchange{
			Method: http.MethodPost, Body: body, Set: map[string]string{"Mcp-Protocol-Version": v}})
		if res == nil || res.Status != http.StatusBadRequest {
			ok = false
			e.Fail("MCP-HTTP-VERSION-1", seq, "a request with the unsupported MCP-Protocol-Version "+v+" was not refused 400, while its twin with the negotiated one was served",
				"400 Bad Request", answered(res))
			continue
		}
		if ok {
			e.Pass("MCP-HTTP-VERSION-1", seq)
		}
	}
	res, seq := exchange(e, x, "the twin without MCP-Protocol-Version", httpmcp.Exchange{
		Method: http.MethodPost, Body: body, Drop: []string{"Mcp-Protocol-Version"}})
	if served(res) {
		e.Pass("MCP-HTTP-VERSION-2", seq)
		return
	}
	e.Fail("MCP-HTTP-VERSION-2", seq, "a request without MCP-Protocol-Version was not served, while its twin with the header was",
		"served, assuming revision 2025-03-26 (or the session's)", answered(res))
}

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

// foreignOrigin is an Origin no server serves: DNS rebinding looks so.
const foreignOrigin = "http://dns-rebinding.wirecheck.invalid"

func httpOrigin(e *scenario.Env) error {
	rules := []string{"MCP-ORIGIN-1", "MCP-ORIGIN-2", "MCP-BIND-1"}
	// Without a session the probes still go: over sse the twin is a GET,
	// and binding needs no request at all.
	x, _ := exchanger(e, "", rules...)
	if x == nil {
		return nil
	}
	in := outOfRevision(e, rules)
	if x.Kind() == "sse" && in["MCP-ORIGIN-2"] {
		delete(in, "MCP-ORIGIN-2")
		e.Skip("MCP-ORIGIN-2", "Streamable HTTP only: this run speaks the legacy HTTP+SSE transport")
	}
	// Over sse the twin is the stream's GET (the connection the Security
	// Warning speaks of); over http a request of the session.
	ex := httpmcp.Exchange{Method: http.MethodPost, Body: twinBody(current(e))}
	if x.Kind() == "sse" {
		ex = httpmcp.Exchange{Method: http.MethodGet, Until: func(sse.Event) bool { return true }}
	}
	res, seq := exchange(e, x, "the twin, without Origin", ex)
	if !served(res) {
		why := fmt.Sprintf("the twin request without Origin (transcript line %d) was not served (%s): nothing to compare a probe with", seq, answered(res))
		skipAll(e, why, "MCP-ORIGIN-1", "MCP-ORIGIN-2")
	} else {
		ex.Set = map[string]string{"Origin": foreignOrigin}
		res, seq = exchange(e, x, "the twin with Origin: "+foreignOrigin, ex)
		judgeOrigin(e, in, res, seq)
	}
	if in["MCP-BIND-1"] {
		judgeBind(e, x)
	}
	return nil
}

func judgeOrigin(e *scenario.Env, in map[string]bool, res *httpmcp.Result, seq int) {
	switch {
	case served(res):
		e.Fail("MCP-ORIGIN-1", seq, "a request with a foreign Origin was served, like its twin without one", "a refusal (4xx)", answered(res))
		if in["MCP-ORIGIN-2"] {
			e.Skip("MCP-ORIGIN-2", "the server serves foreign origins (MCP-ORIGIN-1): there is no refusal whose status to judge")
		}
		return
	case refused(res):
		e.Pass("MCP-ORIGIN-1", seq)
	default:
		e.Fail("MCP-ORIGIN-1", seq, "a request with a foreign Origin was not refused with a 4xx status", "a refusal (4xx)", answered(res))
	}
	if !in["MCP-ORIGIN-2"] {
		return
	}
	if res != nil && res.Status == http.StatusForbidden {
		e.Pass("MCP-ORIGIN-2", seq)
		return
	}
	e.Fail("MCP-ORIGIN-2", seq, "a request with a foreign Origin was not refused 403", "403 Forbidden", answered(res))
}

// judgeBind: a launched server listens on loopback only. It is read
// from the machine (sockets, /proc): trying the server's port on another
// address of the machine would send packets beyond loopback, which the
// user never named. Against a server reached by --url alone the port is
// maybe not this machine's at all.
func judgeBind(e *scenario.Env, x httpmcp.Exchanger) {
	if !x.Launched() {
		e.Skip("MCP-BIND-1", "the server was not launched by wirecheck (--url): \"when running locally\" cannot be told")
		return
	}
	pid := 0
	if l, ok := x.(transport.Launcher); ok {
		pid = l.PID()
	}
	if runtime.GOOS != "linux" || pid == 0 {
		e.Skip("MCP-BIND-1", "where the launched server listens is read from /proc, which this machine ("+runtime.GOOS+") has not: wirecheck connects to no address but loopback to find out")
		return
	}
	ep := x.Endpoint()
	port, err := strconv.ParseUint(ep.Port(), 10, 16)
	if ep.Port() == "" {
		port, err = map[string]uint64{"http": 80, "https": 443}[strings.ToLower(ep.Scheme)], nil
	}
	if err != nil || port == 0 {
		e.Skip("MCP-BIND-1", "the endpoint "+ep.Redacted()+" names no port to look for")
		return
	}
	all, err := sockets.Proc{}.Listening(pid)
	if err != nil {
		e.Skip("MCP-BIND-1", "the launched server's sockets could not be read from /proc: "+err.Error())
		return
	}
	var on, bad []string
	for _, l := range all {
		if uint64(l.Addr.Port()) != port {
			continue
		}
		on = append(on, l.String())
		if !l.Loopback() {
			bad = append(bad, l.String()+map[bool]string{true: " (every interface)", false: ""}[l.Wildcard()])
		}
	}
	seq := e.Peer.Recorder().Add(transcript.Note, []byte(fmt.Sprintf("the launched server (process %d and its children) listens on port %d at: %s", pid, port, orNone(on))))
	switch {
	case len(on) == 0:
		e.Skip("MCP-BIND-1", fmt.Sprintf("no process of the launched server (process %d and its children) listens on the endpoint's port %d: another serves it (a container's proxy?), whose binding cannot be read", pid, port))
	case len(bad) == 0:
		e.Pass("MCP-BIND-1", seq)
	default:
		e.Fail("MCP-BIND-1", seq, "the launched server listens on "+strings.Join(bad, ", ")+", not on loopback only",
			"bound to 127.0.0.1 (or ::1) only", "listening on "+strings.Join(on, ", "))
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func sseLegacy(e *scenario.Env) error {
	rules := []string{"MCP-SSE-1", "MCP-SSE-2", "MCP-SSE-3"}
	// The stream is probed whether or not a session could start on it.
	x, _ := exchanger(e, "sse", rules...)
	if x == nil {
		return nil
	}
	var first *sse.Event
	res, seq := exchange(e, x, "GET the SSE stream", httpmcp.Exchange{Method: http.MethodGet,
		Set: map[string]string{"Accept": "text/event-stream"},
		Until: func(ev sse.Event) bool {
			first = &ev
			return true
		}})
	if !served(res) || !isEventStream(res.Header.Get("Content-Type")) {
		e.Fail("MCP-SSE-1", seq, "a GET of the SSE endpoint did not open an event stream", "200 with Content-Type: text/event-stream", answered(res))
		skipAll(e, "no event stream to read the endpoint event from (MCP-SSE-1)", "MCP-SSE-2", "MCP-SSE-3")
		return nil
	}
	e.Pass("MCP-SSE-1", seq)
	if first == nil && len(res.Events) > 0 {
		first = &res.Events[0]
	}
	if first == nil || first.Type != "endpoint" {
		got := "no event"
		if first != nil {
			got = fmt.Sprintf("event %q: %s", first.Type, show(first.Data))
		}
		e.Fail("MCP-SSE-2", seq, "the stream's first event is not an endpoint event", "event: endpoint, data: a URI", got)
		e.Skip("MCP-SSE-3", "no endpoint event (MCP-SSE-2)")
		return nil
	}
	ref, err := url.Parse(strings.TrimSpace(first.Data))
	if err != nil || strings.TrimSpace(first.Data) == "" {
		e.Fail("MCP-SSE-2", seq, "the endpoint event's data is no URI", "a URI (relative or absolute)", show(first.Data))
		e.Skip("MCP-SSE-3", "the endpoint event names no URI (MCP-SSE-2)")
		return nil
	}
	e.Pass("MCP-SSE-2", seq)
	at := x.Endpoint().ResolveReference(ref)
	if sameOrigin(at, x.Endpoint()) {
		e.Pass("MCP-SSE-3", seq)
		return nil
	}
	e.Fail("MCP-SSE-3", seq, "the endpoint event points to another origin, where the client's messages (and credentials) would go",
		"a URI on "+origin(x.Endpoint()), at.Redacted())
	return nil
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) }

func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// jsonObject decodes a body that must be one JSON object.
func jsonObject(b []byte) (map[string]any, bool) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}
