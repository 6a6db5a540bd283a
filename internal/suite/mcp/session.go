package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

const file = "internal/suite/mcp"

// session is what the handshake established with one server process.
type session struct {
	requested string
	// version is the revision the session is judged by: the one the
	// server negotiated, or the one asked for when the server's answer
	// names no revision wirecheck knows (answered keeps its words).
	version  string
	answered string
	caps     map[string]any
	// initSeq is the transcript line of the initialize result.
	initSeq int

	mu sync.Mutex
	// early holds the frames that arrived before notifications/initialized
	// (see handshakePause).
	early []*peer.Inbound
	// modern is a 2026-07-28 session: no handshake, _meta on every request.
	modern bool
	// fallback, when set, says why a 2026-07-28 run fell back to the
	// initialize handshake in this process (the server is legacy).
	fallback string

	// inputRequired counts the input required results seen (mrtr.go).
	inputRequired int
	// capErrors counts the -32021 answers judged (MCP-META-4, era.go).
	capErrors int
}

type tracked struct {
	call *peer.Call
	// last is the last progress value read, by stream (orderedStream): only
	// the values of one stream are known to be in the order written.
	last map[string]float64
	// cancelled: wirecheck cancelled the request; its progress is no
	// longer judged.
	cancelled bool
}

// process is what the suite knows about one server process. It lives on
// the process's peer (peer.State), so it goes with the process.
type process struct {
	mu sync.Mutex
	// session is what the handshake (or server/discover) established.
	session *session
	// silence says how server/discover went unanswered; locked, that
	// authorization refused it (401, or 403 with a challenge), which
	// says nothing of the server's revision.
	silence string
	locked  bool
	// unspoken says why the server speaks no revision wirecheck can judge
	// this process by (see unspoken.resolve).
	unspoken string
}

type processKey struct{}

// proc returns what the suite knows about the current server process.
func proc(e *scenario.Env) *process {
	return e.State(processKey{}, func() any { return &process{} }).(*process)
}

// keep makes s the session of the current server process, and tells a
// run over several revisions what the server agreed to when asked for the
// run's own (a fallback from 2026-07-28 counts: the server does not speak
// it).
func keep(e *scenario.Env, s *session) {
	if e.Protocol != nil && (s.requested == e.Protocol.Version || s.fallback != "") {
		e.Agree(s.version)
	}
	p := proc(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session = s
}

// current returns the session of the current server process, nil when it
// has none yet.
func current(e *scenario.Env) *session {
	p := proc(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session
}

// silent records how the current process's server/discover went
// unanswered, and whether authorization refused it.
func silent(e *scenario.Env, why string, locked bool) {
	p := proc(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.silence, p.locked = why, locked
}

// request builds a JSON-RPC request with a fresh string id.
func request(method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "id": scenario.NextID("wc-" + strings.ReplaceAll(method, "/", "-")), "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

// notify sends a notification as a raw line nobody may answer, so an
// answer is judged a stray.
func notify(e *scenario.Env, method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	if err := e.SendRaw(append(b, '\n'), false); err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return nil
}

// clientCaps are the capabilities wirecheck declares; Handler answers
// what they promise. Callers without the run's spec (InitRequest) ask
// the embedded one's table.
func clientCaps(version string) map[string]any {
	c := map[string]any{"roots": map[string]any{"listChanged": true}, "sampling": map[string]any{}}
	if mcprevisions.Has(version, revtable.Elicitation) {
		c["elicitation"] = map[string]any{}
	}
	return c
}

func initRequest(version string) map[string]any {
	return request("initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    clientCaps(version),
		"clientInfo":      map[string]any{"name": "wirecheck", "version": "0.1.0"},
	})
}

// handshake sends initialize for version and, when it succeeds, the
// initialized notification. It returns the initialize response and the
// session (nil when initialize was not answered with a result).
func handshake(e *scenario.Env, version string, store bool) (*peer.Inbound, *session, error) {
	return handshakePause(e, version, store, 0)
}

// handshakePause is handshake waiting pause between the initialize result
// and the initialized notification; the frames that arrived meanwhile are
// kept in the session's early list.
func handshakePause(e *scenario.Env, version string, store bool, pause time.Duration) (*peer.Inbound, *session, error) {
	in, err := callFirst(e, initRequest(version))
	if err != nil {
		return nil, nil, err
	}
	if _, ok := in.Field("/result"); !ok {
		return in, nil, nil
	}
	s := &session{requested: version, initSeq: in.Seq}
	s.answered, _ = field(in, "/result/protocolVersion").(string)
	s.version = s.answered
	if !known(e, s.answered) {
		s.version = version
	}
	s.caps, _ = field(in, "/result/capabilities").(map[string]any)
	name, _ := field(in, "/result/serverInfo/name").(string)
	ver, _ := field(in, "/result/serverInfo/version").(string)
	e.Identify(name, ver)
	if pause > 0 {
		e.Pause(pause)
		for f := range e.Drain(0, nil) {
			s.early = append(s.early, f)
		}
	}
	if err := notify(e, "notifications/initialized", nil); err != nil {
		return in, nil, err
	}
	settle(e)
	if store {
		keep(e, s)
	}
	return in, s, nil
}

// settle sends the probe (ping) as a barrier after notifications/initialized
// and waits for its answer, judging nothing: a server that answers the
// notification (which it must not, JSONRPC-6) does so before it answers the
// ping, so that answer is a stray of the handshake and not taken for the
// answer of the scenario's first request or raw line, whose verdicts it
// would take (a false failure of a scenario run alone, as its Reproduce
// line runs it). PING-1 judges ping; a barrier unanswered within a second
// is forgotten. Such an answer, a stray the peer has judged, is taken out
// of the inbox too, where a scenario looking for the answer to its first
// raw line would find it first; other frames stay for the scenario.
func settle(e *scenario.Env) {
	c, err := e.SendProbe()
	if err != nil || c == nil {
		return
	}
	if _, err := e.Response(c, min(e.Timeout, time.Second)); err != nil {
		e.Forget(c)
		return
	}
	stray := func(in *peer.Inbound) bool {
		return in.Call == nil && !in.Invalid && in.Kind != nil && in.Kind.Role == spec.RoleResponse
	}
	for range e.Drain(0, stray) {
	}
}

// known reports whether v is a revision wirecheck judges.
func known(e *scenario.Env, v string) bool {
	return e.Protocol.Versions != nil && slices.Contains(e.Protocol.Versions.IDs(), v)
}

// isRevision reports whether v names an MCP revision: one wirecheck
// judges, a later date (a revision published after wirecheck's sources)
// or a draft ("DRAFT-…", as the specification's working copy names
// itself). A date before the newest revision wirecheck knows that is none
// of the revisions published is no revision.
func isRevision(e *scenario.Env, v string) bool {
	if known(e, v) || strings.HasPrefix(v, "DRAFT-") {
		return true
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil || e.Protocol.Versions == nil {
		return false
	}
	ids := e.Protocol.Versions.IDs()
	return len(ids) > 0 && v > slices.Max(ids)
}

// ensure returns the session of the current server process, running the
// handshake first when the process has none.
func ensure(e *scenario.Env) (*session, error) {
	if s := current(e); s != nil {
		return s, nil
	}
	if modern(e) {
		if why := unspokenOf(e); why != "" {
			return nil, &errUnspoken{why}
		}
		in, s, u, _, err := openModern(e, e.Protocol.Version)
		switch {
		case err != nil:
			return nil, err
		case u != nil:
			return u.resolve(e)
		case s != nil:
			keep(e, s)
			return s, nil
		}
		if why, legacy := legacyEra(in); legacy {
			if in == nil {
				why, _ = silentWhy(e)
			}
			return fallback(e, why)
		}
		return nil, fmt.Errorf("server/discover was answered with an error: %s", show(field(in, "/error")))
	}
	in, s, err := handshake(e, e.Protocol.Version, true)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("initialize was answered with an error: %s", show(field(in, "/error")))
	}
	return s, nil
}

// meta is the _meta every 2026-07-28 request carries, declaring the
// capabilities Handler answers for (modernCaps).
func meta(version string) map[string]any { return metaWith(version, modernCaps()) }

// metaWith is meta declaring caps.
func metaWith(version string, caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "wirecheck", "version": "0.1.0"},
	}
}

// modernCaps are the client capabilities wirecheck declares in
// 2026-07-28: what it answers in inputRequests (roots/list,
// sampling/createMessage, form elicitation). Roots lost listChanged in
// that revision.
func modernCaps() map[string]any {
	return map[string]any{"roots": map[string]any{}, "sampling": map[string]any{}, "elicitation": map[string]any{}}
}

// discover calls server/discover naming version in _meta (2026-07-28)
// and, when the answer is a result, makes the session of the process from
// it (the negotiated revision is version when the server lists it). A
// server that does not answer in time (a legacy server may drop requests
// that come before initialize) yields neither an answer nor an error.
func discover(e *scenario.Env, version string, store bool) (*peer.Inbound, *session, error) {
	if why := e.Cause(discoverDep); why != "" {
		// An earlier process of the lane read server/discover and dropped
		// it: this one is the same server, and waiting again would cost
		// --timeout per process.
		silent(e, scenario.NotWaited("the answer to server/discover", why), false)
		return nil, nil, nil
	}
	// Unjudged: a legacy server may drop a request that comes before
	// initialize, or over HTTP refuse it (400 outside a session, as its
	// transport says) or leave its exchange to time out. That silence is
	// MCP-DISCOVER-1's to judge, as on stdio, not the response rules'.
	c, err := e.SendUnjudged(request("server/discover", map[string]any{"_meta": meta(version)}))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in, err := waitDiscover(e, c)
	if errors.Is(err, peer.ErrRefused) {
		r := c.Response
		silent(e, "server/discover was refused: "+c.Refused, r != nil && r.HTTP != nil && r.HTTP.Authorization)
	}
	if errors.Is(err, peer.ErrTimeout) || errors.Is(err, peer.ErrRefused) {
		// The stdio probe's third outcome: no answer means a legacy
		// server. A late answer is matched to the call, not a stray.
		e.Forget(c)
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	}
	if _, ok := in.Field("/result"); !ok {
		return in, nil, nil
	}
	s := &session{requested: version, modern: true}
	s.version = version
	s.caps, _ = field(in, "/result/capabilities").(map[string]any)
	if store {
		keep(e, s)
	}
	return in, s, nil
}

// discoverDep is the lane's dependency (scenario.Causes) on server/discover
// being answered: learned only when a ping sent behind it was answered
// and it was not, which shows a server that reads it and drops it (a
// legacy server), not one still starting.
const discoverDep = "answer to server/discover"

// waitDiscover waits for the answer to server/discover, the first request
// a process reads, whose answer includes the server's start. Within
// --timeout any answer will do. After that the server is either still
// starting or a legacy server that drops methods it does not know, and a
// barrier tells them apart: legacy servers answer ping before initialize
// (basic/lifecycle#initialization, 2024-11-05 to 2025-11-25: "The client
// SHOULD NOT send requests other than pings before the server has
// responded to the initialize request"), and a server reads stdin in
// order, so a ping answered while server/discover is not (within
// lateAnswer) shows server/discover was read and dropped: no answer
// (peer.ErrTimeout). When neither is answered the wait ends at firstWait;
// when the server's output ends first, it is gone (peer.ErrExited). What
// it records of the silence (silent) states the time actually waited and
// what ended the wait, never a bound not reached.
// The ping's answer is judged by the legacy schema (the spec's "ping probe
// result" kind) and never owed.
func waitDiscover(e *scenario.Env, c *peer.Call) (*peer.Inbound, error) {
	start := time.Now()
	in, err := e.Response(c, e.Timeout)
	if !errors.Is(err, peer.ErrTimeout) {
		return in, err
	}
	if e.Timeout >= firstWait {
		silent(e, "server/discover was not answered within "+e.Bound(e.Timeout), false)
		return in, err
	}
	// Unjudged as server/discover is: over HTTP a legacy server refuses
	// a ping outside a session (400), as its transport allows.
	b, err := e.SendUnjudged(request("ping", nil))
	if err != nil {
		silent(e, discoverEnded(start, "the wait ended as the ping sent behind it could not be sent: "+err.Error()), false)
		return nil, err
	}
	defer e.Forget(b)
	t := time.NewTimer(firstWait - e.Timeout)
	defer t.Stop()
	select {
	case <-c.Done():
		// Answered, or its exchange refused (ErrRefused), which discover
		// says.
		return e.Response(c, 0)
	case <-b.Done():
		in, err := e.Response(c, lateAnswer)
		if errors.Is(err, peer.ErrTimeout) {
			why := discoverEnded(start, fmt.Sprintf("a ping sent behind it once %s had passed was answered (transcript line %d), and server/discover was not within %s after: the server read it and dropped it", e.Bound(e.Timeout), b.Response.Seq, lateAnswer))
			silent(e, why, false)
			e.Learn(discoverDep, why+" in scenario "+e.Scenario())
		}
		return in, err
	case <-t.C:
		silent(e, fmt.Sprintf("server/discover was not answered within %s (the bound of a fresh process's first answer, which includes its start), nor was a ping sent behind it", firstWait), false)
		return e.Response(c, 0)
	case <-e.OutputEnded():
		// An answer routed just before the output ended is taken; else
		// the server is gone, not a legacy one (Wait(c, 0) could say
		// either: its timer and the end are both ready).
		select {
		case <-c.Done():
			return e.Response(c, 0)
		default:
		}
		silent(e, discoverEnded(start, "the wait ended as "+e.Gone()), false)
		return nil, peer.ErrExited
	}
}

// discoverEnded says that server/discover went unanswered in a wait that
// ended before its bound (firstWait), how long it lasted and why it ended:
// never the bound, which was not waited.
func discoverEnded(start time.Time, cause string) string {
	return fmt.Sprintf("server/discover was not answered in the %s waited for it: %s", time.Since(start).Round(time.Millisecond), cause)
}

// silentWhy is why the process's server/discover counts as unanswered,
// and whether authorization refused it.
func silentWhy(e *scenario.Env) (string, bool) {
	p := proc(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.silence != "" {
		return p.silence, p.locked
	}
	return "server/discover was not answered in time", false
}

// has reports whether the server declared a capability.
func (s *session) has(c string) bool {
	_, ok := s.caps[c]
	return ok
}

func (s *session) capFlag(c, flag string) bool {
	m, _ := s.caps[c].(map[string]any)
	return m[flag] == true
}

// call sends a request with a progress token and waits for its answer;
// the notifications that arrived meanwhile are judged by drain. In
// 2026-07-28 an InputRequiredResult is judged, answered and the request
// retried (see mrtr in mrtr.go); call returns the last answer.
func (s *session) call(e *scenario.Env, method string, params map[string]any) (*peer.Inbound, error) {
	return s.callWith(e, method, params, sendOpts{})
}

// sendOpts vary one 2026-07-28 request: the capabilities it declares (nil:
// modernCaps) and the log level it asks for ("": none).
type sendOpts struct {
	caps     map[string]any
	logLevel string
	// once sends the request once, without answering input required.
	once bool
	// then sees the answer before the frames that came meanwhile are
	// judged (a subscription starts at its request's line).
	then func(*peer.Inbound)
}

func (s *session) callWith(e *scenario.Env, method string, params map[string]any, o sendOpts) (*peer.Inbound, error) {
	in, err := s.send(e, method, params, o)
	if err != nil || !s.modern || o.once {
		return in, err
	}
	return s.retryInput(e, method, params, o, in)
}

// send sends one request and waits for its answer; o.then, when set, sees
// the answer before the frames that arrived meanwhile are judged.
func (s *session) send(e *scenario.Env, method string, params map[string]any, o sendOpts) (*peer.Inbound, error) {
	c, tok, caps, err := s.dispatch(e, method, params, o)
	if err != nil {
		return nil, err
	}
	var in *peer.Inbound
	if method == "tools/call" {
		in, err = s.awaitTool(e, c, tok, params)
	} else {
		in, err = e.Await(c, 0)
	}
	if err == nil && o.then != nil {
		o.then(in)
	}
	s.drain(e)
	if err == nil && s.modern {
		s.judgeInput(e, method, caps, in)
		s.judgeServerInfo(e, in)
		s.judgeCapabilityError(e, in)
	}
	return in, err
}

// dispatch sends a request (with _meta in 2026-07-28, and a progress token
// on tools/call, which it returns) without waiting for its answer; caps
// are the capabilities it declared.
func (s *session) dispatch(e *scenario.Env, method string, params map[string]any, o sendOpts) (*peer.Call, string, map[string]any, error) {
	var req map[string]any
	if params != nil {
		params = maps.Clone(params)
		req = request(method, params)
	} else {
		// A nil map in an interface is not nil: it would say "params": null.
		req = request(method, nil)
	}
	tok := ""
	var m map[string]any
	caps := o.caps
	if s.modern {
		if params == nil {
			params = map[string]any{}
			req["params"] = params
		}
		if caps == nil {
			caps = modernCaps()
		}
		m = metaWith(s.requested, caps)
		if o.logLevel != "" {
			m["io.modelcontextprotocol/logLevel"] = o.logLevel
		}
		params["_meta"] = m
	}
	if params != nil && method == "tools/call" {
		tok = scenario.NextID("wc-progress")
		if m == nil {
			m = map[string]any{}
			params["_meta"] = m
		}
		m["progressToken"] = tok
	}
	c, err := e.Send(req)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return c, tok, caps, nil
}

// drain takes the frames that arrived out of the inbox: the frame judge
// has judged them (progress, logs, change notifications), and a later
// wait of the scenario looks for what comes after.
func (s *session) drain(e *scenario.Env) {
	for range e.Drain(0, nil) {
	}
}

// orderedStream names the stream a message was read from, for judgments of
// order: only the messages of one stream are read in the order the server
// wrote them. Over Streamable HTTP a request's POST stream (with its
// resumptions) is one stream and the GET stream another; stdio and the
// legacy HTTP+SSE transport have one ("").
func orderedStream(in *peer.Inbound) string {
	v := in.HTTP
	if v == nil || (v.Verb == http.MethodGet && v.For == "") {
		return ""
	}
	return "request " + v.For
}

// settle waits briefly for frames that follow a response (progress or logs
// sent after it), then drains them.
func (s *session) settle(e *scenario.Env, d time.Duration) {
	e.Pause(d)
	s.drain(e)
}

func field(in *peer.Inbound, ptr string) any {
	if in == nil {
		return nil
	}
	v, _ := in.Field(ptr)
	return v
}

func number(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func show(v any) string { return scenario.Show(v, 300) }

// errorCode is the error code of an error response, or 0 with false.
func errorCode(in *peer.Inbound) (int64, bool) {
	n, ok := field(in, "/error/code").(json.Number)
	if !ok {
		return 0, false
	}
	c, err := n.Int64()
	return c, err == nil
}

// Handler answers the requests an MCP server sends, as the capabilities
// wirecheck declared promise: ping, roots/list, sampling/createMessage (a
// fixed text) and elicitation/create (a form is accepted with content
// generated from its requestedSchema; a URL is declined). Anything else is
// answered -32601.
func Handler(in *peer.Inbound) []byte {
	id, _ := in.Field("/id")
	method, _ := in.Field("/method")
	res := answer(in)
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if res == nil {
		m["error"] = map[string]any{"code": -32601, "message": fmt.Sprintf("Method not found: %v", method)}
	} else {
		m["result"] = res
	}
	b, _ := json.Marshal(m)
	return b
}

// answer is wirecheck's result for a request of the server (a frame, or
// one entry of a 2026-07-28 inputRequests map: method and params), nil
// for a method it does not answer.
func answer(in *peer.Inbound) map[string]any {
	method, _ := in.Field("/method")
	switch method {
	case "ping":
		return map[string]any{}
	case "roots/list":
		return map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp/wirecheck-root", "name": "wirecheck"}}}
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Hello from wirecheck."},
			"model": "wirecheck-stub", "stopReason": "endTurn"}
	case "elicitation/create":
		return elicit(in)
	}
	return nil
}

// elicit answers an elicitation: a form is accepted with a value for every
// property its requestedSchema names (the property's default, else one
// generated from its schema: the spec restricts forms to flat objects of
// primitives); a URL elicitation, or a form wirecheck cannot fill, is
// declined.
func elicit(in *peer.Inbound) map[string]any {
	decline := map[string]any{"action": "decline"}
	if mode, _ := in.Field("/params/mode"); mode == "url" {
		return decline
	}
	props, ok := in.Field("/params/requestedSchema/properties")
	pm, isObj := props.(map[string]any)
	if !ok || !isObj {
		return decline
	}
	content := map[string]any{}
	for name, ps := range pm {
		psm, _ := ps.(map[string]any)
		if d, has := psm["default"]; has {
			content[name] = d
			continue
		}
		sch, err := gen.Compile(rawJSON(ps))
		if err != nil {
			return decline
		}
		v, err := gen.TryExample(sch, 1)
		if err != nil {
			return decline
		}
		content[name] = v
	}
	return map[string]any{"action": "accept", "content": content}
}

// firstWait bounds the answer to the first request a fresh process gets:
// MCP has no ready line, so that answer includes the server's start (a
// Node server: hundreds of milliseconds, seconds on a loaded machine),
// which --timeout is not meant for. It is what the runner allows a ready
// line (runner.DefaultStartupTimeout): no plausible server misses it.
const firstWait = 10 * time.Second

// callFirst sends a request that may be the first a process reads and
// waits for its answer, allowing for the process's start.
func callFirst(e *scenario.Env, req map[string]any) (*peer.Inbound, error) {
	c, err := e.Send(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	return e.Await(c, max(e.Timeout, firstWait))
}
