package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// Scenarios returns the MCP scenarios, in the order they run. The runner
// gives each fresh scenario a process and runs those processes side by
// side (lanes): initialize and the feature scenarios, bad input included
// (a barrier request makes it cost a round trip); cancel (a slow tool
// runs its course there while the rest goes on); before-initialize, then
// shutdown on the same process (the 2 s a server may take to exit runs
// alongside the rest); version-negotiation, which restarts the server.
func Scenarios() []*scenario.Scenario {
	out := []*scenario.Scenario{{
		Name:  "initialize",
		Title: "initialize with the run's revision: a result with the same revision, no request but ping before initialized, then ping",
		Rules: []string{"MCP-LIFECYCLE-1", "MCP-LIFECYCLE-3", "MCP-LIFECYCLE-6", "MCP-PING-1", "MCP-DISCOVER-1", "MCP-META-2"},
		Fresh: true,
		Run:   initialize,
	}, {
		Name:  "jsonrpc-errors",
		Title: "an unknown method is answered -32601 with its integer id, an unknown notification is not answered",
		Rules: []string{"MCP-JSONRPC-6", "MCP-JSONRPC-9"},
		Run:   jsonrpcErrors,
	}, {
		Name:  "batch",
		Title: "2025-03-26: a batch of two pings is answered with an array of their two responses",
		Rules: []string{"MCP-JSONRPC-10"},
		Run:   batch,
	}, {
		Name:  "tools",
		Title: "tools: every page listed, every inputSchema compiled, every tool called with generated arguments and a progress token, structured output checked, an unknown tool refused, list_changed judged",
		Rules: []string{"MCP-TOOLS-1", "MCP-TOOLS-3", "MCP-TOOLS-5", "MCP-TOOLS-6", "MCP-TOOLS-7", "MCP-PAGINATION-1", "MCP-PROGRESS-1", "MCP-PROGRESS-2", "MCP-STDIO-5", "MCP-LISTCHANGED-1",
			"MCP-HTTP-STREAM-4", "MCP-HTTP-STREAM-5", "MCP-HTTP-GET-2"},
		Run: tools,
	}, {
		Name:  "resources",
		Title: "resources: listed, read, templates listed, an unknown URI refused, subscribed (updates judged) and unsubscribed",
		Rules: []string{"MCP-RESOURCES-1", "MCP-RESOURCES-3", "MCP-RESOURCES-4", "MCP-RESOURCES-5", "MCP-RESOURCES-6", "MCP-RESOURCES-7", "MCP-RESOURCES-8"},
		Run:   resources,
	}, {
		Name:  "prompts",
		Title: "prompts: listed, each got with its required arguments, an unknown one refused, an argument completed",
		Rules: []string{"MCP-PROMPTS-1", "MCP-PROMPTS-3", "MCP-PROMPTS-4", "MCP-PROMPTS-5", "MCP-COMPLETION-1", "MCP-COMPLETION-2"},
		Run:   prompts,
	}, {
		Name:  "logging",
		Title: "logging/setLevel accepts a valid level and refuses an invalid one; log notifications come only from a server declaring logging",
		Rules: []string{"MCP-LOGGING-1", "MCP-LOGGING-2"},
		Run:   logging,
	}, {
		Name:  "mrtr",
		Title: "2026-07-28: a tool, prompt or resource answered input_required is retried with the input it asked for; again without it, and declaring no capability",
		Rules: mrtrRules,
		Run:   mrtr,
	}, {
		Name:  "subscriptions",
		Title: "2026-07-28: subscriptions/listen for one kind of notification is acknowledged first, tags its notifications, sends nothing else, and ends when cancelled",
		Rules: []string{"MCP-SUBS-1", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4"},
		Run:   subscriptions,
	}, {
		Name:  "log-level",
		Title: "2026-07-28: no log notification for a request without io.modelcontextprotocol/logLevel; an invalid level refused",
		Rules: []string{"MCP-LOGGING-3", "MCP-LOGGING-4"},
		Run:   logLevel,
	}, {
		Name:  "parse-error",
		Title: "a line (over HTTP a body) that is not JSON is answered -32700 with id null, and the server goes on",
		Rules: []string{"MCP-JSONRPC-7", "MCP-STDIO-3", "MCP-HTTP-BADBODY-1"},
		Run:   parseError,
	}, {
		Name:  "invalid-request",
		Title: "JSON that is not a request is answered -32600, and the server goes on",
		Rules: []string{"MCP-JSONRPC-8", "MCP-STDIO-3", "MCP-HTTP-BADBODY-1"},
		Run:   invalidRequest,
	}, {
		Name:  "cancel",
		Title: "cancellations of an unknown and of an answered request are ignored",
		Rules: []string{"MCP-CANCEL-1"},
		Run:   cancel,
	}, {
		// Apart from cancel: its slow tool runs its course in a lane of its
		// own, beside the rest.
		Name:  "cancel-in-progress",
		Title: "a slow tool call cancelled in progress is not answered",
		Rules: []string{"MCP-CANCEL-2"},
		Fresh: true,
		Idle:  slowTarget + lateGrace,
		Run:   cancelInProgress,
	}, {
		Name:  "before-initialize",
		Title: "a request before initialize gets an answer, and initialize still succeeds",
		Rules: []string{"MCP-LIFECYCLE-5"},
		Fresh: true,
		Run:   beforeInitialize,
	}, {
		Name:  "shutdown",
		Title: "the server exits when its stdin closes (stdio only)",
		Rules: []string{"MCP-STDIO-4"},
		Idle:  exitWait,
		Run:   shutdown,
	}, {
		Name:  "version-negotiation",
		Title: "an unsupported revision is answered with one the server supports, which it then echoes when asked for (2026-07-28: an unknown _meta revision is -32022, _meta without clientCapabilities -32602)",
		Rules: []string{"MCP-LIFECYCLE-3", "MCP-LIFECYCLE-4", "MCP-VERSION-1", "MCP-META-1", "MCP-META-3"},
		Fresh: true,
		Run:   versionNegotiation,
	}}
	out = append(out, httpScenarios()...)
	out = append(out, httpCancelScenario(), httpEraScenario())
	for _, s := range out {
		s.File = file
		skipUnspoken(s)
	}
	return out
}

// skipAll reports rules skipped for one reason.
func skipAll(e *scenario.Env, why string, rules ...string) {
	for _, r := range rules {
		e.Skip(r, why)
	}
}

// discoverFirst is the initialize scenario of 2026-07-28: server/discover,
// which must list the revision asked for.
func discoverFirst(e *scenario.Env) error {
	v := e.Protocol.Version
	skipAll(e, "revision "+v+" has no initialize handshake and no ping", "MCP-LIFECYCLE-1", "MCP-LIFECYCLE-3", "MCP-LIFECYCLE-6", "MCP-PING-1")
	in, s, u, ans, err := openModern(e, v)
	if err != nil {
		return err
	}
	if s == nil && u != nil {
		// A server of this era that does not speak the revision: no
		// rule of it is broken, the version error's shape is judged.
		e.Skip("MCP-DISCOVER-1", u.reason())
		e.Skip("MCP-META-2", u.reason())
		judgeVersionError(e, in)
		return fellBack(e, u, v)
	}
	if s == nil {
		why, legacy := legacyEra(in)
		if in == nil {
			var locked bool
			why, locked = silentWhy(e)
			if locked {
				// A server that wants a token refuses every request
				// without one, server/discover too: that tells nothing
				// of the revision it speaks (MCP-AUTH-* judge the
				// refusal).
				e.Skip("MCP-DISCOVER-1", why)
			} else {
				e.Fail("MCP-DISCOVER-1", -1, why, "a DiscoverResult", "nothing")
			}
		} else {
			e.Fail("MCP-DISCOVER-1", in.Seq, "server/discover was answered with an error", "a DiscoverResult", string(in.Raw))
		}
		if !legacy {
			if sup, _ := field(in, "/error/data/supported").([]any); len(sup) > 0 {
				e.Notef("the server does not support revision %s; it supports %s (wirecheck judges the revisions %s)",
					v, show(sup), strings.Join(e.Protocol.Versions.IDs(), ", "))
			}
			return fmt.Errorf("server/discover failed")
		}
		e.Skip("MCP-META-2", "the server does not speak revision 2026-07-28")
		// A legacy server: fall back as a dual-era client does, so the
		// other scenarios judge what the server does speak.
		s, err := fallback(e, why)
		if err != nil {
			return err
		}
		e.Notef("%s", s.fallbackHint(v))
		return nil
	}
	s.judgeServerInfo(e, in)
	switch {
	case u != nil:
		// It lists what it speaks and refuses the revision it left out,
		// as the revision's version negotiation asks.
		e.Pass("MCP-DISCOVER-1", in.Seq)
		judgeVersionError(e, ans)
		return fellBack(e, u, v)
	case ans != nil:
		e.Fail("MCP-DISCOVER-1", in.Seq, "server/discover does not list the revision "+v+" the request named, yet the server serves it (a request naming "+v+" was answered without -32022)",
			"supportedVersions including "+v, string(in.Raw))
	default:
		e.Pass("MCP-DISCOVER-1", in.Seq)
	}
	keep(e, s)
	return nil
}

// fellBack resolves a revision the server does not speak in the
// initialize scenario, and says in the report what the run did.
func fellBack(e *scenario.Env, u *unspoken, v string) error {
	s, err := u.resolve(e)
	if err != nil {
		var un *errUnspoken
		if errors.As(err, &un) {
			e.Notef("%s", un.why)
		}
		return err
	}
	e.Notef("%s", s.fallbackHint(v))
	return nil
}

func initialize(e *scenario.Env) error {
	if modern(e) {
		return discoverFirst(e)
	}
	e.Skip("MCP-DISCOVER-1", "server/discover belongs to revision 2026-07-28; this run uses "+e.Protocol.Version)
	e.Skip("MCP-META-2", "serverInfo in every result's _meta belongs to revision 2026-07-28; this run uses "+e.Protocol.Version)
	v := e.Protocol.Version
	// Wait a little before notifications/initialized: a request the
	// server sends meanwhile (other than ping) is sent too early.
	in, s, err := handshakePause(e, v, false, 100*time.Millisecond)
	if err != nil {
		return err
	}
	if s == nil {
		e.Fail("MCP-LIFECYCLE-1", in.Seq, "initialize was answered with an error", "a result", string(in.Raw))
		return fmt.Errorf("initialize failed")
	}
	e.Pass("MCP-LIFECYCLE-1", in.Seq)
	switch {
	case s.answered == v:
		e.Pass("MCP-LIFECYCLE-3", in.Seq)
	case !isRevision(e, s.answered):
		// Answering another revision says it does not support v; what it
		// answers instead must be a revision it supports.
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "asked for "+v+", the server answered the protocolVersion "+show(s.answered)+", which names no MCP revision",
			"the same revision, or another MCP revision the server supports ("+strings.Join(e.Protocol.Versions.IDs(), ", ")+" or later)", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
	default:
		e.Pass("MCP-LIFECYCLE-4", in.Seq)
		e.Skip("MCP-LIFECYCLE-3", fmt.Sprintf("wirecheck asked for %s and the server answered %s: it may not support %s (run with --revision %s)", v, s.answered, v, s.answered))
	}
	bad := false
	for _, f := range s.early {
		if f.Kind != nil && f.Kind.Role == spec.RoleRequest && field(f, "/method") != "ping" {
			bad = true
			e.Fail("MCP-LIFECYCLE-6", f.Seq, "the server sent a request before it received notifications/initialized", "only ping before initialized", string(f.Raw))
		}
		s.judgeFrame(e, f)
	}
	if !bad {
		e.Pass("MCP-LIFECYCLE-6", in.Seq)
	}
	keep(e, s)
	ping := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"}
	pin, _, err := e.Call(ping)
	if err != nil {
		e.Fail("MCP-PING-1", -1, "ping was not answered: "+err.Error(), "an empty result", "nothing")
		return err
	}
	res, ok := field(pin, "/result").(map[string]any)
	delete(res, "_meta")
	if !ok || len(res) != 0 {
		e.Fail("MCP-PING-1", pin.Seq, "ping was not answered with an empty result", `"result": {}`, string(pin.Raw))
	} else {
		e.Pass("MCP-PING-1", pin.Seq)
	}
	return nil
}

// nextResponse waits for the next response frame not correlated with a
// request (an answer to raw input), judging other frames on the way.
func nextResponse(e *scenario.Env, s *session, timeout time.Duration) *peer.Inbound {
	deadline := time.Now().Add(timeout)
	for {
		in, err := e.Peer.Next(time.Until(deadline))
		if err != nil {
			return nil
		}
		if in.Kind != nil && in.Kind.Role == spec.RoleResponse {
			return in
		}
		s.judgeFrame(e, in)
	}
}

func jsonrpcErrors(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	// An unknown method, with an integer id (its type must come back).
	req := map[string]any{"jsonrpc": "2.0", "id": 4242, "method": "wirecheck/no-such-method"}
	if s.modern {
		// Unknown or not, a 2026-07-28 request carries the _meta every
		// request needs: without it a server rightly answers -32602.
		req["params"] = map[string]any{"_meta": meta(s.requested)}
	}
	in, _, err := e.Call(req)
	switch {
	case err != nil:
		if !errors.Is(err, scenario.ErrNoAnswer) || e.Hung {
			return err
		}
		// Refused at the HTTP level with no JSON-RPC message: the missing
		// response is MCP-JSONRPC-5's, judged already; there is no error
		// code to judge, and the server is still there for the
		// notification.
		e.Skip("MCP-JSONRPC-9", "no JSON-RPC answer to the unknown method to judge (its absence is MCP-JSONRPC-5's): "+err.Error())
	default:
		if c, ok := errorCode(in); ok && c == -32601 {
			e.Pass("MCP-JSONRPC-9", in.Seq)
		} else {
			e.Fail("MCP-JSONRPC-9", in.Seq, "an unknown method was not answered with error -32601", "error code -32601", string(in.Raw))
		}
	}
	// A notification nobody defined: no answer may come.
	if in := unanswered(e, s, "notifications/wirecheck/unknown", map[string]any{}); in != nil {
		e.Fail("MCP-JSONRPC-6", in.Seq, "a notification was answered", "no response to a notification", string(in.Raw))
	} else {
		e.Pass("MCP-JSONRPC-6", -1)
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

// badInput sends one line to an initialized server, judges its answer by
// rule, then checks that the server still answers ping. A barrier request
// follows the line, so a server that does not answer bad input costs one
// round trip, not a timeout.
func badInput(e *scenario.Env, rule, line string, code int64, idOK func(any) bool) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	// Over HTTP MCP-HTTP-BADBODY-1 judges the refusal and that the server
	// goes on, as MCP-STDIO-3 does on stdio.
	survives := "MCP-STDIO-3"
	switch k := httpKind(e); k {
	case "":
		e.Skip("MCP-HTTP-BADBODY-1", "HTTP only: this run speaks stdio")
	case "http":
		// The POST's own answer is the answer: a probe reads it.
		e.Skip(survives, "stdio only: this run speaks "+kindName(k))
		return badBody(e, rule, line, code, idOK)
	default:
		// The legacy transport answers on the stream, as stdio does: the
		// line goes as the session's own POST, owed an answer there.
		e.Skip(survives, "stdio only: this run speaks "+kindName(k))
		survives = "MCP-HTTP-BADBODY-1"
	}
	in, refusal := answerTo(e, s, []byte(line+"\n"))
	if in == nil && refusal != nil && refusal.HTTP.Status/100 == 4 {
		// The legacy transport refused the line's POST and sent no error
		// on the stream: as a bare 4xx over Streamable HTTP.
		passBareRefusal(e, rule, refusal.Seq, refusal.HTTP.End)
	} else {
		judgeBadAnswer(e, rule, line, code, idOK, in)
	}
	pin, err := e.Probe()
	if err != nil {
		e.Fail(survives, -1, "the server did not answer ping after bad input: "+err.Error(), "an answer", "nothing")
		return err
	}
	if survives != "MCP-STDIO-3" {
		e.Pass(survives, pin.Seq)
	}
	return nil
}

// judgeBadAnswer judges the answer to bad input by rule: an error with
// code, its id as idOK says.
func judgeBadAnswer(e *scenario.Env, rule, line string, code int64, idOK func(any) bool, in *peer.Inbound) {
	c, isErr := errorCode(in)
	switch {
	case in == nil:
		e.Fail(rule, -1, "no answer to "+line, fmt.Sprintf("an error response with code %d", code), "nothing")
	case !isErr || c != code:
		e.Fail(rule, in.Seq, "the answer is not error "+fmt.Sprint(code), fmt.Sprintf("an error response with code %d", code), string(in.Raw))
	case !idOK(field(in, "/id")):
		e.Fail(rule, in.Seq, "the error carries the wrong id", "id null (or the request's id where it could be read)", string(in.Raw))
	default:
		e.Pass(rule, in.Seq)
	}
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
	sent := e.Peer.Recorder().Len()
	if err := e.Peer.SendRaw(line, true); err != nil {
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
	deadline := time.Now().Add(lateAnswer)
	for {
		in, err := e.Peer.Next(time.Until(deadline))
		switch {
		case err != nil:
			if refusal == nil {
				e.Peer.ForgetRaw()
			}
			return nil, refusal
		case in.Kind != nil && in.Kind.Role == spec.RoleResponse && in.Seq >= 0 && in.Seq < sent:
			s.judgeFrame(e, in)
		case in.Kind != nil && in.Kind.Role == spec.RoleResponse:
			if id, ok := in.Field("/id"); !ok || id == nil || !strings.Contains(fmt.Sprint(id), bar) {
				return in, refusal
			}
		case refusal == nil && in.Kind == nil && in.HTTP != nil && in.HTTP.End != "":
			refusal = in
		default:
			s.judgeFrame(e, in)
		}
	}
}

func parseError(e *scenario.Env) error {
	// Invalid at once (a trailing comma), so a server reading a stream of
	// JSON values does not wait for more input.
	return badInput(e, "MCP-JSONRPC-7", `{"jsonrpc": "2.0", "id": 1, "method": "ping",}`, -32700, func(v any) bool { return v == nil })
}

func invalidRequest(e *scenario.Env) error {
	return badInput(e, "MCP-JSONRPC-8", `{"jsonrpc": "2.0", "id": "wc-invalid-1", "method": 42}`, -32600,
		func(v any) bool { return v == nil || v == "wc-invalid-1" })
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
		e.Fail("MCP-CANCEL-1", -1, "the server stopped answering after a cancellation: "+err.Error(), "an answer to ping", "nothing")
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

func beforeInitialize(e *scenario.Env) error {
	if modern(e) {
		e.Skip("MCP-LIFECYCLE-5", "revision "+e.Protocol.Version+" has no initialize")
		// The process is opened anyway, as every other scenario opens
		// it: the liveness probe after the scenario then asks in the
		// revision the server speaks (a server that declines this one
		// owes none of its rules, see openModern).
		_, err := ensure(e)
		return err
	}
	if httpKind(e) == "http" {
		if err := earlyPost(e); err != nil {
			return err
		}
		return initAfterEarly(e)
	}
	// The client SHOULD NOT send it (basic/lifecycle#initialization), so
	// the request is off the contract and an unanswered one is judged here
	// only, at SHOULD, not by MCP-JSONRPC-5.
	c, err := e.Send(request("tools/list", map[string]any{}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	wait := max(e.Timeout, firstWait)
	in, err := e.Peer.Wait(c, wait)
	switch {
	case errors.Is(err, peer.ErrTimeout):
		e.Peer.Forget(c)
		e.Fail("MCP-LIFECYCLE-5", c.Seq, "a request sent before initialize was not answered within "+wait.String()+
			" (the first request of a fresh process: the wait includes its start; --timeout sets it when longer)", "a result or an error", "nothing")
	case err != nil:
		return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	default:
		e.Pass("MCP-LIFECYCLE-5", in.Seq)
	}
	return initAfterEarly(e)
}

// initAfterEarly: initialize still succeeds after the early request.
func initAfterEarly(e *scenario.Env) error {
	ini, s, err := handshake(e, e.Protocol.Version, true)
	if err != nil {
		return err
	}
	if s == nil {
		e.Fail("MCP-LIFECYCLE-5", ini.Seq, "initialize failed after an early request", "an initialize result", string(ini.Raw))
		return nil
	}
	e.Pass("MCP-LIFECYCLE-5", ini.Seq)
	return nil
}

func versionNegotiation(e *scenario.Env) error {
	const bogus = "1999-01-01"
	if modern(e) {
		skipAll(e, "revision "+e.Protocol.Version+" negotiates per request, without initialize", "MCP-LIFECYCLE-3", "MCP-LIFECYCLE-4")
		// A legacy server (no server/discover) knows nothing of
		// per-request revisions: DISCOVER-1 says so already.
		s, err := ensure(e)
		if err != nil {
			return err
		}
		if !s.modern {
			skipAll(e, s.notModern(e), "MCP-VERSION-1", "MCP-META-1", "MCP-META-3")
			return closeAndEnd(e)
		}
		call, err := e.Send(request("tools/list", map[string]any{"_meta": meta(bogus)}))
		if err != nil {
			return fmt.Errorf("%w: %v", scenario.ErrGone, err)
		}
		in, err := e.Await(call, max(e.Timeout, firstWait))
		switch {
		case err != nil && call.Refused != "":
			// Over HTTP, refused with no JSON-RPC body (the peer has
			// judged the missing response): that refusal is the answer,
			// and it is no UnsupportedProtocolVersionError, which
			// streamable-http asks with the 400. The _meta probes go on.
			e.Fail("MCP-VERSION-1", call.Response.Seq, "a request naming the revision "+bogus+" was refused without a JSON-RPC answer, so without UnsupportedProtocolVersionError",
				"error -32022 with data.supported (over HTTP with 400 Bad Request)", call.Refused)
		case err != nil:
			return err
		default:
			c, isErr := errorCode(in)
			sup, _ := field(in, "/error/data/supported").([]any)
			if isErr && c == -32022 && len(sup) > 0 {
				e.Pass("MCP-VERSION-1", in.Seq)
			} else {
				e.Fail("MCP-VERSION-1", in.Seq, "a request naming the revision "+bogus+" was not answered with UnsupportedProtocolVersionError",
					"error -32022 with data.supported", string(in.Raw))
			}
		}
		if err := metaRequired(e, s); err != nil {
			return err
		}
		return closeAndEnd(e)
	}
	skipAll(e, "per-request revisions belong to 2026-07-28; this run uses "+e.Protocol.Version, "MCP-VERSION-1", "MCP-META-1", "MCP-META-3")
	in, s, err := handshake(e, bogus, false)
	if err != nil {
		return err
	}
	switch {
	case s == nil:
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "initialize with an unsupported revision was answered with an error", "a result naming a revision the server supports", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
		return closeAndEnd(e)
	case s.answered == bogus || s.answered == "":
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "the server answered the unsupported revision "+show(s.answered), "another revision, one the server supports", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no other revision")
		return closeAndEnd(e)
	case !isRevision(e, s.answered):
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "asked for the unsupported revision "+bogus+", the server answered the protocolVersion "+show(s.answered)+", which names no MCP revision",
			"another MCP revision the server supports ("+strings.Join(e.Protocol.Versions.IDs(), ", ")+" or later)", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
		return closeAndEnd(e)
	}
	e.Pass("MCP-LIFECYCLE-4", in.Seq)
	other := s.answered
	if err := e.Restart(); err != nil {
		return err
	}
	in, s, err = handshake(e, other, false)
	if err != nil {
		return err
	}
	switch {
	case s == nil:
		e.Fail("MCP-LIFECYCLE-3", in.Seq, "the server answered "+other+" to an unsupported revision, then refused "+other, "a result echoing "+other, string(in.Raw))
	case s.answered != other:
		e.Fail("MCP-LIFECYCLE-3", in.Seq, "the server answered "+other+" to an unsupported revision (so it supports it), but asked for "+other+" it answered "+show(s.answered),
			"protocolVersion "+other, string(in.Raw))
	default:
		e.Pass("MCP-LIFECYCLE-3", in.Seq)
	}
	return closeAndEnd(e)
}

// closeAndEnd closes stdin so the runner gives the next scenario a process
// initialized with the run's revision.
func closeAndEnd(e *scenario.Env) error {
	e.Closed = true
	_ = e.Peer.Transport().CloseInput()
	return nil
}

// exitWait is how long a server has to exit once its stdin is closed: what
// the TypeScript and Python SDK clients allow before they send SIGTERM.
// The pages say only "within a reasonable time"; --param mcp-exit-wait
// sets another bound.
const exitWait = 2 * time.Second

// ExitWaitParam names the --param that sets exitWait.
const ExitWaitParam = "mcp-exit-wait"

func shutdown(e *scenario.Env) error {
	if k := httpKind(e); k != "" {
		// Over HTTP stdin is no channel: closing it says nothing. The
		// session is opened anyway: against a running server this
		// scenario may begin a lane, and the liveness ping after it
		// needs one (a server may refuse any request outside one).
		e.Skip("MCP-STDIO-4", "stdio only: this run speaks "+kindName(k))
		_, err := ensure(e)
		return err
	}
	if _, err := ensure(e); err != nil {
		return err
	}
	e.Closed = true
	t := e.Peer.Transport()
	if err := t.CloseInput(); err != nil {
		return fmt.Errorf("%w: closing stdin: %v", scenario.ErrGone, err)
	}
	within, bound := exitWait, "wirecheck's default: the page says only \"within a reasonable time\"; --param "+ExitWaitParam+"=DURATION sets it"
	if v := e.Params[ExitWaitParam]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("--param %s=%s: not a positive duration (e.g. 5s)", ExitWaitParam, v)
		}
		within, bound = d, "--param "+ExitWaitParam
	}
	select {
	case <-t.Exited():
		e.Pass("MCP-STDIO-4", -1)
	case <-time.After(within):
		e.Hung = true
		e.Fail("MCP-STDIO-4", -1, "the server was still running "+within.String()+" after its stdin closed ("+bound+")", "the process exits", "still running")
	}
	return nil
}

func logging(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	logs := judgeOf(e).counts().logs
	defer func() {
		s.settle(e, 50*time.Millisecond)
		if judgeOf(e).counts().logs == logs {
			e.Skip("MCP-LOGGING-1", "no log notification arrived during this scenario")
		}
	}()
	if s.modern {
		skipAll(e, "revision "+s.requested+" has no logging/setLevel (the level travels in each request's _meta)", "MCP-LOGGING-2")
		return nil
	}
	if !s.has("logging") {
		e.Skip("MCP-LOGGING-2", "the server does not declare the logging capability")
		return nil
	}
	in, err := s.call(e, "logging/setLevel", map[string]any{"level": "debug"})
	if err != nil {
		return err
	}
	if _, ok := in.Field("/result"); ok {
		e.Pass("MCP-LOGGING-2", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-2", in.Seq, "logging/setLevel debug was refused", "an empty result", string(in.Raw))
	}
	in, err = s.call(e, "logging/setLevel", map[string]any{"level": "loudest"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-LOGGING-2", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-2", in.Seq, "logging/setLevel with an invalid level was not answered with error -32602", "error code -32602", string(in.Raw))
	}
	if _, err := s.call(e, "logging/setLevel", map[string]any{"level": "info"}); err != nil {
		return err
	}
	return nil
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

func batch(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if r := e.Protocol.Rule("MCP-JSONRPC-10"); r != nil && !r.AppliesTo(e.Protocol.Version) {
		e.Skip("MCP-JSONRPC-10", "batches belong to revision 2025-03-26 only; this run uses "+e.Protocol.Version)
		return nil
	}
	if s.version != "2025-03-26" {
		// The session speaks what the server negotiated: a server that
		// answered another revision owes no batch support.
		e.Skip("MCP-JSONRPC-10", "batches belong to revision 2025-03-26 only; the server negotiated "+s.version)
		return nil
	}
	a, b := scenario.NextID("wc-batch"), scenario.NextID("wc-batch")
	line := fmt.Sprintf(`[{"jsonrpc":"2.0","id":%q,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/wirecheck/batched"},{"jsonrpc":"2.0","id":%q,"method":"ping"}]`, a, b)
	if httpKind(e) == "http" {
		batchPost(e, line, a, b)
		return nil
	}
	if err := e.Peer.SendRaw([]byte(line+"\n"), true); err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in := nextResponse(e, s, e.Timeout)
	if in == nil {
		e.Fail("MCP-JSONRPC-10", -1, "a batch of two pings and a notification was not answered", "an array of two responses", "nothing")
		return nil
	}
	arr, ok := in.Value.([]any)
	ids := map[string]bool{}
	for _, it := range arr {
		if m, isObj := it.(map[string]any); isObj {
			if _, res := m["result"]; res {
				ids[fmt.Sprint(m["id"])] = true
			}
		}
	}
	if !ok || len(arr) != 2 || !ids[a] || !ids[b] {
		e.Fail("MCP-JSONRPC-10", in.Seq, "the batch was not answered with the results of its two pings", "an array of two results, ids "+a+" and "+b, string(in.Raw))
		return nil
	}
	e.Pass("MCP-JSONRPC-10", in.Seq)
	return nil
}

// metaRequired sends tools/list whose _meta names the revision but lacks
// io.modelcontextprotocol/clientCapabilities, a field every request must
// carry: the server must refuse it with -32602 (MCP-META-1). The revision
// stays, so a dual-era server knows the request is a modern one.
func metaRequired(e *scenario.Env, s *session) error {
	m := meta(s.requested)
	delete(m, "io.modelcontextprotocol/clientCapabilities")
	c, err := e.Send(request("tools/list", map[string]any{"_meta": m}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	in, err := e.Await(c, 0)
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-META-1", in.Seq)
		judgeStatus400(e, "MCP-META-3", in, "the -32602 refusing a request whose _meta lacks a required field")
		return nil
	}
	e.Fail("MCP-META-1", in.Seq, "a request whose _meta lacks io.modelcontextprotocol/clientCapabilities was not answered with error -32602",
		"error code -32602 (Invalid params): the request is malformed", string(in.Raw))
	e.Skip("MCP-META-3", "the request missing a required _meta field was not refused -32602 (MCP-META-1): no such refusal whose status to judge")
	return nil
}
