package mcpclient

import (
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// Scenarios returns the client role's scenarios. Each launches the client
// afresh: what it sends depends on how its server answered from the
// first message on.
func Scenarios() []*scenario.Scenario {
	return append([]*scenario.Scenario{{
		Name:  "client-session",
		Title: "serve the client as an MCP server of the run's revision (tools, resources, prompts; progress and list_changed during a tool call; a tool whose result is an error) and, once initialized, send it ping, roots/list, sampling/createMessage and elicitation/create",
		Rules: []string{"MCP-CLIENT-JSONRPC-2", "MCP-CLIENT-LIFECYCLE-1", "MCP-CLIENT-LIFECYCLE-2", "MCP-CLIENT-LIFECYCLE-3",
			"MCP-CLIENT-PING-1", "MCP-CLIENT-SAMPLING-1", "MCP-CLIENT-ROOTS-1", "MCP-CLIENT-ELICIT-1", "MCP-CLIENT-CANCEL-1", "MCP-CLIENT-CANCEL-2", "MCP-CLIENT-PROGRESS-1",
			"MCP-CLIENT-META-1", "MCP-CLIENT-META-2"},
		Fresh: true,
		Run:   func(env *scenario.Env) error { return converse(env, false) },
	}, {
		Name:  "client-version-unsupported",
		Title: "answer initialize with protocol version 1999-01-01, which no client supports: the client disconnects",
		Rules: []string{"MCP-CLIENT-LIFECYCLE-4"},
		Fresh: true,
		Run:   func(env *scenario.Env) error { return converse(env, true) },
	}, {
		Name:  "client-server-tools-only",
		Title: "serve the client as a server that declares the tools capability alone: the client asks nothing of resources, prompts, logging or completions",
		Rules: []string{"MCP-CLIENT-CAPS-1", "MCP-CLIENT-CAPS-2"},
		Fresh: true,
		Run:   func(env *scenario.Env) error { return serve(env, conv{toolsOnly: true}) },
	}, {
		Name:  "client-schema-ref",
		Title: "serve the client a tool whose inputSchema has a $ref to a network URI (a canary wirecheck listens on): the client never fetches it",
		Rules: []string{"MCP-CLIENT-REF-1"},
		Fresh: true,
		Run:   schemaRef,
	}, {
		Name:  "client-mrtr",
		Title: "answer the client's first call of tool echo with an InputRequiredResult carrying a requestState and an input request of a capability the call declared: a retry echoes the state exactly and answers the input, and no other request carries the state; that retry is answered with a second InputRequiredResult without requestState, whose retry carries none",
		Rules: []string{"MCP-CLIENT-MRTR-1", "MCP-CLIENT-MRTR-2", "MCP-CLIENT-MRTR-3", "MCP-CLIENT-MRTR-4"},
		Fresh: true,
		Run:   mrtr,
	}, {
		Name:  "client-probe-fallback",
		Title: "play a server of " + legacyRevision + " that answers the client's first request of 2026-07-28 (its server/discover probe) with error " + fmt.Sprint(probeCode) + ", not the -32601 of an unknown method, and no recognized modern error: a client of both eras falls back to initialize",
		Rules: []string{"MCP-CLIENT-LIFECYCLE-5"},
		Fresh: true,
		Run:   probeFallback,
	}, httpProbeScenario(), skillsScenario()}, httpScenarios()...)
}

// probeCode is the error client-probe-fallback answers a probe with: one
// the stdio text names as a legacy server's common answer, other than
// -32601, and no modern error's (-32020 to -32022).
const probeCode = -32602

// probeFallback serves the client as a legacy server would: every
// request of 2026-07-28 before initialize gets probeCode, initialize a
// session of legacyRevision.
func probeFallback(env *scenario.Env) error {
	const rule = "MCP-CLIENT-LIFECYCLE-5"
	if !applies(env, rule) {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	c := conv{probeCode: probeCode, fellBack: -1, stayedModern: -1}
	if err := c.serve(env); err != nil {
		return err
	}
	switch {
	case !c.probed:
		env.Skip(rule, "the client sent no request of 2026-07-28 before initialize (it opened with initialize, or sent nothing): no probe, no fallback")
	case c.fellBack >= 0:
		env.Pass(rule, c.fellBack)
	case c.stayedModern >= 0:
		env.Fail(rule, c.stayedModern, fmt.Sprintf("answered error %d to its probe, no recognized modern error, the client went on with requests of 2026-07-28 instead of falling back to initialize: it took the server for a modern one", probeCode), "initialize (the server is legacy: \"any other error\")", "another request of 2026-07-28")
	default:
		return controlLaunch(env, rule)
	}
	return nil
}

// controlLaunch tells apart the two clients that stop when their probe
// is answered probeCode: a client of 2026-07-28 alone (it has no
// initialize to fall back to) and a client of both eras whose fallback
// is keyed to -32601. Launched again and answered -32601, the first
// stops again; the second falls back, and so shows that the code decided
// its fallback, which "MUST NOT be keyed to one specific error code".
func controlLaunch(env *scenario.Env, rule string) error {
	env.Notef("answered error %d to its probe, the client neither fell back to initialize nor went on: launched again, its probe is answered -32601", probeCode)
	if err := env.Restart(); err != nil {
		return err
	}
	env.Closed = false
	c := conv{probeCode: -32601, fellBack: -1, stayedModern: -1}
	if err := c.serve(env); err != nil {
		return err
	}
	switch {
	case c.fellBack >= 0:
		env.Fail(rule, c.fellBack, fmt.Sprintf("answered error %d to its probe, the client stopped; launched again and answered -32601, it fell back to initialize: its fallback is keyed to -32601", probeCode), "initialize after any error (\"any other error\": the server is legacy)", fmt.Sprintf("initialize after -32601 alone, a stop after %d", probeCode))
	default:
		env.Skip(rule, fmt.Sprintf("answered error %d or -32601 to its probe, the client fell back to initialize after neither: a client of 2026-07-28 alone (it has no initialize to fall back to), as it should", probeCode))
	}
	return nil
}

// modernRequest reports whether a request carries 2026-07-28's _meta
// revision: a request of a client that speaks the revision.
func modernRequest(in *peer.Inbound) bool {
	v, _ := in.Field("/params/_meta/io.modelcontextprotocol~1protocolVersion")
	s, _ := v.(string)
	return s != "" && mcprevisions.Has(s, revtable.RequiredMeta)
}

// mrtrState is the requestState of wirecheck's InputRequiredResult.
const mrtrState = "wirecheck-opaque-state.v1"

// inputRequests are what client-mrtr may ask in its InputRequiredResult,
// in order of preference: the first the client's request declared.
var inputRequests = []struct {
	feature, key string
	request      map[string]any
}{
	{"elicitation", "wirecheck_name", map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}},
	{"roots", "wirecheck_roots", map[string]any{"method": "roots/list", "params": map[string]any{}}},
	{"sampling", "wirecheck_sample", map[string]any{"method": "sampling/createMessage", "params": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hello"}}}, "maxTokens": 16}}},
}

// mrtr serves the client as client-session does, but answers its first
// tools/call of echo with an InputRequiredResult of a requestState and
// one input request of a capability the call declared (none if it
// declared none of them: then the client may retry at once).
func mrtr(env *scenario.Env) error {
	if !applies(env, "MCP-CLIENT-MRTR-1") {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	c := conv{mrtrState: mrtrState}
	if err := c.serve(env); err != nil {
		return err
	}
	rules := []string{"MCP-CLIENT-MRTR-1", "MCP-CLIENT-MRTR-2", "MCP-CLIENT-MRTR-3", "MCP-CLIENT-MRTR-4"}
	switch {
	case c.legacy:
		for _, r := range rules {
			env.Skip(r, "the client opened with initialize: its session is of "+legacyRevision+", which has no InputRequiredResult")
		}
		return nil
	case !c.mrtrAsked:
		for _, r := range rules {
			env.Skip(r, "the client never called tool echo, which wirecheck answers with an InputRequiredResult")
		}
		return nil
	}
	if !c.retried {
		env.Skip("MCP-CLIENT-MRTR-1", "the client did not retry its call of echo (a client need not)")
		env.Skip("MCP-CLIENT-MRTR-3", "the client did not retry its call of echo (a client need not)")
	} else if c.mrtrInput == "" {
		env.Skip("MCP-CLIENT-MRTR-3", "the client's call of echo declared none of elicitation, roots, sampling: wirecheck asked it no input")
	}
	switch {
	case c.mrtrInput == "":
		env.Skip("MCP-CLIENT-MRTR-4", "the client's call of echo declared none of elicitation, roots, sampling: wirecheck had no second input to ask without a requestState")
	case !c.retried2:
		env.Skip("MCP-CLIENT-MRTR-4", "the client did not retry after the second InputRequiredResult")
	}
	if !c.leakFailed {
		env.Pass("MCP-CLIENT-MRTR-2", -1)
	}
	return nil
}

func applies(env *scenario.Env, rule string) bool {
	r := env.Protocol.Rule(rule)
	return r != nil && env.Protocol.Applies(r)
}

// mrtrRequest plays wirecheck's side of client-mrtr for a request of the
// client's: true when it has answered it.
func (c *conv) mrtrRequest(in *peer.Inbound, method string, id any) (bool, error) {
	env := c.env
	name, _ := in.Field("/params/name")
	state, hasState := in.Field("/params/requestState")
	retry := method == "tools/call" && name == "echo" && c.mrtrAsked && !c.retried
	retry2 := method == "tools/call" && name == "echo" && c.round2 && !c.retried2
	if hasState && state == c.mrtrState && !retry && !retry2 && !c.leakFailed {
		c.leakFailed = true
		env.Fail("MCP-CLIENT-MRTR-2", in.Seq, method+" carries the requestState wirecheck gave for the client's call of echo, though it is not that call's retry", "requestState on the retry of the call it was given for alone", fmt.Sprint(state))
	}
	switch {
	case retry2:
		c.retried2 = true
		if hasState {
			env.Fail("MCP-CLIENT-MRTR-4", in.Seq, "the retry of tools/call echo answering an InputRequiredResult without requestState carries one", "no requestState", fmt.Sprint(state))
		} else {
			env.Pass("MCP-CLIENT-MRTR-4", in.Seq)
		}
	case retry:
		c.retried = true
		if c.mrtrInput != "" {
			if _, ok := in.Field("/params/inputResponses/" + c.mrtrInput); ok {
				env.Pass("MCP-CLIENT-MRTR-3", in.Seq)
			} else {
				env.Fail("MCP-CLIENT-MRTR-3", in.Seq, "the retry of tools/call echo has no inputResponses entry "+c.mrtrInput+" for wirecheck's input request", "inputResponses."+c.mrtrInput, "none")
			}
		}
		if hasState && state == c.mrtrState {
			env.Pass("MCP-CLIENT-MRTR-1", in.Seq)
		} else {
			got := "no requestState"
			if hasState {
				got = fmt.Sprintf("requestState %v", state)
			}
			env.Fail("MCP-CLIENT-MRTR-1", in.Seq, "the retry of tools/call echo does not echo the requestState wirecheck gave", "requestState "+c.mrtrState, got)
		}
		if c.mrtrInput != "" {
			// A second round: the same input asked again, without a
			// requestState, which the next retry must then not carry.
			c.round2 = true
			r := map[string]any{"resultType": "input_required", "inputRequests": map[string]any{c.mrtrInput + "_again": c.mrtrAsk}}
			_, err := env.Reply(result(id, r))
			return true, err
		}
	case method == "tools/call" && name == "echo" && !c.mrtrAsked:
		c.mrtrAsked = true
		r := map[string]any{"resultType": "input_required", "requestState": c.mrtrState}
		// One input of a capability the request declared, if any (a
		// server must ask nothing undeclared).
		caps, _ := mapAt(in, "/params/_meta/io.modelcontextprotocol~1clientCapabilities")
		for _, ir := range inputRequests {
			if _, ok := caps[ir.feature]; ok {
				c.mrtrInput, c.mrtrAsk = ir.key, ir.request
				r["inputRequests"] = map[string]any{ir.key: ir.request}
				break
			}
		}
		_, err := env.Reply(result(id, r))
		return true, err
	}
	return false, nil
}

// schemaRef serves the client as client-session does, with a third tool
// whose inputSchema refers by $ref to a URL on a loopback listener of
// wirecheck's: a request there is a dereference.
func schemaRef(env *scenario.Env) error {
	if !applies(env, "MCP-CLIENT-REF-1") {
		// A revision without the sentence: nothing to judge.
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	var hits atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		_, _ = w.Write([]byte(`{"type":"object"}`))
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	c := conv{canary: "http://" + ln.Addr().String() + "/profile.schema.json", toolsOnly: false}
	if err := c.serve(env); err != nil {
		return err
	}
	switch {
	case c.legacy:
		env.Skip("MCP-CLIENT-REF-1", "the client opened with initialize: its session is of "+legacyRevision+", whose text has no $ref resolution rule")
	case hits.Load() > 0:
		env.Fail("MCP-CLIENT-REF-1", -1, fmt.Sprintf("the client fetched the $ref URL %s of tool profile's inputSchema (%d requests)", c.canary, hits.Load()), "no request to the $ref's network URI", "a GET of it")
	case !c.listedTools:
		env.Skip("MCP-CLIENT-REF-1", "the client never listed tools, so never saw the schema")
	default:
		env.Pass("MCP-CLIENT-REF-1", -1)
	}
	return nil
}

// Unsupported is the protocol version no client supports that the
// version scenario answers.
const Unsupported = "1999-01-01"

// conv is one client's conversation with wirecheck as its server.
type conv struct {
	env         *scenario.Env
	identified  bool
	heard       bool // the client sent a frame
	unsupported bool
	toolsOnly   bool // the server declares the tools capability alone
	handshake   bool
	rev         string

	anyReq        bool
	initAnswered  bool
	initLine      int // transcript line of the initialize result
	initializedN  int // transcript line of notifications/initialized, 0: none
	lateReq       int // line of a request other than ping after an unsupported version
	lastReq       int // line of the client's last request
	ids           map[string]int
	cancels       int
	calls         []outCall
	sentUs        bool
	listChanged   bool
	legacy        bool // a client of an earlier revision in a run of one without initialize
	initKey       string
	progress      int
	probes        int    // server/discover probes before initialize
	canary        string // a $ref URL in a third tool's inputSchema (client-schema-ref)
	listedTools   bool
	mrtrState     string // the requestState of client-mrtr's InputRequiredResult
	mrtrAsked     bool
	mrtrInput     string // key of the input request asked, "" none
	mrtrAsk       map[string]any
	round2        bool // the retry was answered with a second InputRequiredResult, without requestState
	retried2      bool
	retried       bool
	leakFailed    bool
	headers       bool // client-http-custom-headers: tools with x-mcp-header annotations
	calledRoute   int  // line of the client's first call of route, -1: none
	calledInvalid int  // line of its first call of an invalid tool, -1: none
	invalidName   string
	probeCode     int          // client-probe-fallback: the error code the probe gets
	probed        bool         // the client probed: a request of 2026-07-28 before initialize
	fellBack      int          // line of the initialize after the probe, -1: none
	stayedModern  int          // line of a modern request other than a probe after it, -1: none
	skills        *skillsState // client-skills: the server declares the skills extension
	// probeAnswer is how client-http-probe-fallback answers the probe
	// over HTTP (a run of a revision with initialize answers the first of
	// probeAnswers); probeRefused names the refusal wirecheck gave.
	probeAnswer  *probeAnswer
	probeRefused string
	probeFirst   string // the method of a first request of 2026-07-28 wirecheck could not refuse (not held)
}

// barrierID is the id of the ping wirecheck sends before its initialize
// result (basic/lifecycle: the server may send pings before initialized).
const barrierID = 9000

// barrier pings the client before wirecheck answers its initialize, and
// waits for the answer: on a stream (stdio) the client reads in order, so
// whatever it wrote before its answer to the ping, it wrote before it
// could have read the initialize result, which is not written yet; the
// frame judge, which sees those frames read before the result was
// written, fails a request among them (LIFECYCLE-3). It replaces a fixed
// hold of the result: a client that pipelines is caught whatever the
// machine's load. Over HTTP each message travels apart and no order
// holds, so there is no barrier: a request is early when it is read
// before the result is written. A client that leaves the ping
// unanswered is waited for --timeout once, then answered.
func (c *conv) barrier() error {
	if httpSession(c.env) != nil {
		return nil
	}
	call, err := c.env.Send(map[string]any{"jsonrpc": "2.0", "id": barrierID, "method": "ping"})
	if err != nil {
		return err
	}
	if _, err := c.env.Response(call, c.env.Timeout); err != nil {
		c.env.Forget(call)
		c.env.Notef("the client did not answer wirecheck's ping before its initialize result within %v (--timeout): the result is sent now", c.env.Timeout)
	}
	return nil
}

// samplingToken is the progress token of wirecheck's sampling request:
// the one token a client may report progress under.
const samplingToken = "wirecheck-sampling"

// legacyRevision is the revision a client that opens with initialize is
// answered and judged by in a run of a revision without it.
const legacyRevision = "2025-11-25"

type outCall struct {
	method, rule, feature string
	call                  *peer.Call
	at                    time.Time
}

func converse(env *scenario.Env, unsupported bool) error {
	return serve(env, conv{unsupported: unsupported})
}

// serve plays the server to the client until it has gone or has been
// silent for --timeout, then judges what it sent; c says which server.
func serve(env *scenario.Env, c conv) error {
	return c.serve(env)
}

func (c *conv) serve(env *scenario.Env) error {
	rev := env.Protocol.Version
	c.env, c.rev, c.ids = env, rev, map[string]int{}
	c.handshake = rev == "" || env.Protocol.Has(rev, revtable.Handshake)
	for {
		in, err := env.NextFrame(env.Timeout, nil)
		if err != nil {
			break
		}
		c.heard = true
		if err := c.handle(in); err != nil {
			break
		}
	}
	c.finish()
	// The client is done or idle: its connection ends, and the process
	// with the session (each scenario launches the client afresh).
	_ = env.CloseInput()
	env.Closed = true
	return nil
}

func (c *conv) gone() bool {
	select {
	case <-c.env.OutputEnded():
		return true
	case <-c.env.Exited():
		return true
	default:
		return false
	}
}

func (c *conv) handle(in *peer.Inbound) error {
	mv, hasM := in.Field("/method")
	idv, hasID := in.Field("/id")
	method, _ := mv.(string)
	switch {
	case hasM && hasID:
		return c.request(in, method, idv)
	case hasM:
		return c.notification(in, method)
	}
	return nil
}

func (c *conv) request(in *peer.Inbound, method string, id any) error {
	env := c.env
	c.lastReq = in.Seq
	c.identify(in, method)
	key := peer.Key(id)
	if method == "initialize" && c.initAnswered {
		// An initialize after the first one's answer begins a new
		// session (HTTP, after wirecheck ended the old one): ids are
		// unique within a session, so the old session's do not count.
		c.ids = map[string]int{}
	}
	// The frame judge (judge.go) judges the id, the lifecycle, _meta and
	// capabilities of every request; the conversation keeps what it needs
	// to play the server and to judge at its end.
	if _, ok := c.ids[key]; !ok {
		c.ids[key] = in.Seq
	}
	if c.probeCode != 0 && !c.legacy && method != "initialize" && modernRequest(in) {
		// A legacy server: no request of 2026-07-28 is known to it.
		if !c.probed {
			c.probed = true
			if a := c.probeAnswer; a != nil && a.refusal != nil {
				// Over HTTP (client-http-probe-fallback) the status
				// of the probe's answer waits for this.
				if s := httpSession(env); s != nil && s.Refuse(key, *a.refusal) {
					c.probeRefused = a.name
					env.Notef("wirecheck answers the client's %s with %s, as a server of %s may", method, a.what, legacyRevision)
					return nil
				}
				c.probeFirst = method
			}
			env.Notef("wirecheck answers the client's %s with error %d, as a server of %s may answer a request before initialize", method, c.probeCode, legacyRevision)
		} else if c.stayedModern < 0 && method != "server/discover" {
			// A probe sent again is still a probe; another request
			// of the revision takes the server for a modern one.
			c.stayedModern = in.Seq
		}
		msg := "Invalid params: the server is not initialized"
		if c.probeCode == -32601 {
			msg = "Method not found"
		}
		_, err := env.Reply(rpcError(id, c.probeCode, msg))
		return err
	}
	if method == "initialize" && c.probed && c.fellBack < 0 {
		c.fellBack = in.Seq
	}
	if c.handshake && method == "server/discover" && !c.anyReq {
		// stdio's backward-compatibility probe of 2026-07-28 (basic/
		// transports/stdio): a client of both eras asks server/discover
		// before anything else and falls back to initialize on an error.
		// The run's revision has no such method: answered as its server
		// would, and no breach of initialize-first.
		c.probes++
		if s := httpSession(env); s != nil {
			// Over HTTP the probe carries MCP-Protocol-Version:
			// 2026-07-28 and no session id: a server of the run's
			// revision answers 400 (probe.go says why), with the
			// likeliest body.
			if ans := probeAnswers[0]; s.Refuse(key, *ans.refusal) {
				c.probeRefused = ans.name
				env.Notef("the client probed with server/discover, as a client of 2026-07-28 and earlier revisions does: answered %s, as a server of %s may", ans.what, c.rev)
				return nil
			}
		}
		env.Notef("the client probed with server/discover, as a client of 2026-07-28 and earlier revisions does: answered -32601, as a server of %s, which has no such method", c.rev)
		_, err := env.Reply(rpcError(id, -32601, "method not found: revision "+c.rev+" has no server/discover"))
		return err
	}
	if c.handshake {
		c.anyReq = true
		before := !c.initAnswered || in.Seq < c.initLine
		if c.unsupported && !before && method != "ping" && c.lateReq == 0 {
			c.lateReq = in.Seq
		}
	}
	if method == "initialize" && !c.handshake && !c.legacy {
		// A client of an earlier revision in a run of one without
		// initialize: its session is of the newest revision with it.
		c.legacy = true
		if p, err := env.Protocol.ForVersion(legacyRevision); err == nil {
			env.SetProtocol(p)
		}
		env.Notef("the client opened with initialize, as a client of a revision before %s does: its session is judged by %s", c.rev, legacyRevision)
	}
	if method == "initialize" {
		c.initKey = key
		v := c.rev
		switch {
		case c.unsupported:
			v = Unsupported
		case !c.handshake:
			v = legacyRevision
		}
		if err := c.barrier(); err != nil {
			return err
		}
		c.initAnswered = true
		var err error
		caps := serverCaps()
		if c.toolsOnly {
			caps = map[string]any{"tools": map[string]any{"listChanged": true}}
		}
		// What the client sent meanwhile waits in the queue: read after
		// this, on transcript lines before the result's.
		c.initLine, err = c.env.Reply(result(id, map[string]any{"protocolVersion": v, "capabilities": caps, "serverInfo": map[string]any{"name": "wirecheck", "version": "0.1.0"}}))
		return err
	}
	if c.mrtrState != "" && !c.handshake && !c.legacy {
		if done, err := c.mrtrRequest(in, method, id); done || err != nil {
			return err
		}
	}
	if c.skills != nil && !c.handshake && !c.legacy {
		if done, err := c.skillsRequest(in, method, id); done || err != nil {
			return err
		}
	}
	if c.headers && method == "tools/call" {
		name, _ := in.Field("/params/name")
		switch {
		case name == "route":
			if c.calledRoute < 0 {
				c.calledRoute = in.Seq
			}
			resp := result(id, map[string]any{"content": text("routed")})
			modernize(resp, method)
			_, err := c.env.Reply(resp)
			return err
		case invalidTool(name):
			if c.calledInvalid < 0 {
				c.calledInvalid, c.invalidName = in.Seq, fmt.Sprint(name)
			}
			resp := result(id, map[string]any{"content": text("a tool the client should have rejected")})
			modernize(resp, method)
			_, err := c.env.Reply(resp)
			return err
		}
	}
	if method == "tools/call" {
		if tok, ok := in.Field("/params/_meta/progressToken"); ok {
			_, _ = c.env.Reply(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": tok, "progress": 1, "total": 2}})
		}
	}
	resp := answer(in, method, id)
	if method == "tools/list" {
		c.listedTools = true
		if r, ok := resp["result"].(map[string]any); ok && c.canary != "" {
			r["tools"] = append(append([]any{}, tools...), refTool(c.canary))
		}
		if r, ok := resp["result"].(map[string]any); ok && c.headers {
			r["tools"] = append(append(append([]any{}, tools...), routeTool), invalidTools...)
		}
	}
	if r, ok := resp["result"].(map[string]any); ok && c.skills != nil && method == "server/discover" {
		r["capabilities"] = skillsCaps()
	}
	if r, ok := resp["result"].(map[string]any); ok && c.toolsOnly && method == "server/discover" {
		r["capabilities"] = map[string]any{"tools": map[string]any{"listChanged": true}}
	}
	if c.toolsOnly && serverFeature(method) != "" {
		resp = rpcError(id, -32601, "method not found: this server declares the tools capability alone")
	}
	if !c.handshake && !c.legacy {
		modernize(resp, method)
	}
	if _, err := c.env.Reply(resp); err != nil {
		return err
	}
	if method == "tools/call" && !c.listChanged {
		c.listChanged = true
		_, err := c.env.Reply(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		return err
	}
	return nil
}

// metaRequired are the keys of _meta every 2026-07-28 request carries
// (basic/index, per-request protocol fields, Required: Yes).
var metaRequired = []string{"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"}

const metaClientInfo = "io.modelcontextprotocol/clientInfo"

func (c *conv) notification(in *peer.Inbound, method string) error {
	switch method {
	case "notifications/initialized":
		if c.initializedN == 0 {
			c.initializedN = in.Seq
		}
		if !c.unsupported && !c.toolsOnly && c.handshake && !c.sentUs {
			c.sentUs = true
			return c.ask()
		}
	case "notifications/progress":
		// Judged by the frame judge: its token, against those of
		// wirecheck's requests.
		c.progress++
	case "notifications/cancelled":
		// Judged by the frame judge (CANCEL-1, CANCEL-2).
		c.cancels++
	}
	return nil
}

// ask sends the client the requests a server may send once the session
// is initialized, whether or not the client declared their capability:
// what it answers is judged against what it declared.
func (c *conv) ask() error {
	reqs := []outCall{{method: "ping", rule: "MCP-CLIENT-PING-1"},
		{method: "roots/list", rule: "MCP-CLIENT-ROOTS-1", feature: "roots"},
		{method: "sampling/createMessage", rule: "MCP-CLIENT-SAMPLING-1", feature: "sampling"}}
	if c.env.Protocol.Has(c.rev, revtable.Elicitation) {
		reqs = append(reqs, outCall{method: "elicitation/create", rule: "MCP-CLIENT-ELICIT-1", feature: "elicitation"})
	}
	params := map[string]any{
		"sampling/createMessage": map[string]any{"_meta": map[string]any{"progressToken": samplingToken}, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hello"}}}, "maxTokens": 16},
		"elicitation/create":     map[string]any{"message": "your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
	}
	for i, r := range reqs {
		msg := map[string]any{"jsonrpc": "2.0", "id": 9001 + i, "method": r.method}
		if p, ok := params[r.method]; ok {
			msg["params"] = p
		}
		call, err := c.env.Send(msg)
		if err != nil {
			return err
		}
		r.call, r.at = call, time.Now()
		c.calls = append(c.calls, r)
	}
	return nil
}

func (c *conv) finish() {
	env := c.env
	if !c.heard {
		// Nothing was judged, and a run whose every rule is a skip
		// would read as a pass: the harness says it could not tell.
		what := fmt.Sprintf("stayed connected and sent nothing for %v (--timeout)", env.Timeout)
		if c.gone() {
			what = "closed the connection without sending anything"
		}
		env.Errorf("MCP-CLIENT-JSONRPC-1", "the client %s: nothing of it could be judged. A client that waits for a user before it speaks needs a mode in which it initializes at once (a headless or one-shot mode, a command that lists tools)", what)
	}
	if c.canary != "" || c.mrtrState != "" || c.headers || c.probeCode != 0 || c.skills != nil {
		// client-schema-ref, client-mrtr, client-http-custom-headers,
		// client-probe-fallback and client-skills judge their own rules.
		return
	}
	if c.toolsOnly {
		if !c.handshake && !c.legacy {
			// 2026-07-28 words no such rule: the spec's skip says so.
			return
		}
		rule := "MCP-CLIENT-CAPS-1"
		if r := env.Protocol.Rule("MCP-CLIENT-CAPS-2"); r != nil && env.Protocol.Applies(r) {
			rule = "MCP-CLIENT-CAPS-2"
		}
		switch {
		case judgeOf(env).judged(rule).fail > 0:
			// The frame judge failed it at the request.
		case !c.initAnswered:
			env.Skip(rule, "the client sent no initialize")
		default:
			env.Pass(rule, -1)
		}
		return
	}
	if c.unsupported {
		switch {
		case !c.initAnswered:
			env.Skip("MCP-CLIENT-LIFECYCLE-4", "the client sent no initialize")
		case c.lateReq != 0:
			env.Fail("MCP-CLIENT-LIFECYCLE-4", c.lateReq, "the client carried on after the server answered protocol version "+Unsupported, "no request but ping, then a disconnect", "a request")
		case c.gone():
			env.Pass("MCP-CLIENT-LIFECYCLE-4", -1)
		default:
			env.Fail("MCP-CLIENT-LIFECYCLE-4", -1, fmt.Sprintf("the client was still connected %v (--timeout) after the server answered protocol version %s", env.Timeout, Unsupported), "a disconnect", "still connected")
		}
		return
	}
	if c.handshake && !c.anyReq && c.probes > 0 && len(c.ids) > 0 {
		// Its probe answered, the client sent nothing more: no first
		// request of the handshake to judge (a client of 2026-07-28
		// alone has no initialize to fall back to).
		answered := "the -32601 wirecheck answered"
		if c.probeRefused != "" {
			answered = "wirecheck's " + c.probeRefused
		}
		env.Skip("MCP-CLIENT-LIFECYCLE-1", "the scenario received no request of the client but its server/discover probe: after "+answered+" it did not fall back to initialize, or its initialize was refused before it (a scenario protecting the server answers 401 without a token)")
	}
	if len(c.ids) == 0 {
		for _, r := range []string{"MCP-CLIENT-JSONRPC-2", "MCP-CLIENT-LIFECYCLE-1", "MCP-CLIENT-LIFECYCLE-3"} {
			env.Skip(r, "the client sent no request")
		}
	} else if c.handshake && judgeOf(env).judged("MCP-CLIENT-LIFECYCLE-3") == (count{}) {
		// Initialize alone: nothing was sent early.
		env.Pass("MCP-CLIENT-LIFECYCLE-3", -1)
	}
	if c.progress == 0 {
		env.Skip("MCP-CLIENT-PROGRESS-1", "the client sent no notifications/progress")
	}
	if judgeOf(env).judged("MCP-CLIENT-META-1") == (count{}) {
		why := "the client sent no request of revision 2026-07-28"
		for _, r := range []string{"MCP-CLIENT-META-1", "MCP-CLIENT-META-2"} {
			env.Skip(r, why)
		}
	}
	// The cancellations of requests that never arrived (judge.Settle).
	env.Settle()
	if c.cancels == 0 {
		env.Skip("MCP-CLIENT-CANCEL-1", "the client sent no notifications/cancelled")
		env.Skip("MCP-CLIENT-CANCEL-2", "the client sent no notifications/cancelled")
	}
	switch {
	case !c.handshake:
	case c.initializedN != 0:
		// The frame judge judged it when it came.
	case !c.initAnswered:
		env.Skip("MCP-CLIENT-LIFECYCLE-2", "the client sent no initialize")
	case c.gone() && len(c.ids)-c.probes == 1:
		env.Skip("MCP-CLIENT-LIFECYCLE-2", "the client disconnected after the initialize result without another message (it may not support revision "+c.rev+")")
	default:
		env.Fail("MCP-CLIENT-LIFECYCLE-2", -1, fmt.Sprintf("no notifications/initialized after the initialize result (waited until %v (--timeout) passed without a message, or the client ended)", env.Timeout), "notifications/initialized", "none")
	}
	if !c.sentUs {
		why := "wirecheck sent no request: the client never sent notifications/initialized"
		if !c.handshake {
			why = "revision " + c.rev + " has no initialized notification after which wirecheck asks the client"
		}
		for _, r := range []string{"MCP-CLIENT-PING-1", "MCP-CLIENT-ROOTS-1", "MCP-CLIENT-SAMPLING-1", "MCP-CLIENT-ELICIT-1"} {
			env.Skip(r, why)
		}
		return
	}
	for _, r := range c.calls {
		c.judge(r)
	}
	if !env.Protocol.Has(c.rev, revtable.Elicitation) {
		env.Skip("MCP-CLIENT-ELICIT-1", "revision "+c.rev+" has no elicitation")
	}
}

func (c *conv) judge(r outCall) {
	env := c.env
	left := max(0, env.Timeout-time.Since(r.at))
	in, err := env.Response(r.call, left)
	if err != nil {
		env.Forget(r.call)
		if r.feature != "" {
			env.Pass(r.rule, -1) // no answer is no use of an undeclared capability, and no claim of a declared one
			return
		}
		if c.gone() && c.lastReq < r.call.Seq {
			env.Skip(r.rule, "the client disconnected before answering wirecheck's "+r.method)
			return
		}
		if c.gone() {
			// It read on past the request (a stream is read in order):
			// it sent requests after it, then left it unanswered.
			env.Fail(r.rule, r.call.Seq, fmt.Sprintf("the client ended the session without answering wirecheck's %s, though it sent requests after it (line %d)", r.method, c.lastReq), "an empty result", "no answer")
			return
		}
		env.Fail(r.rule, -1, fmt.Sprintf("no answer to wirecheck's %s within %v (--timeout)", r.method, env.Timeout), "an empty result", "no answer")
		return
	}
	// An answer: the frame judge judged it as it came.
	_ = in
}

func withoutMeta(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "_meta" {
			out[k] = v
		}
	}
	return out
}

func mapAt(in *peer.Inbound, ptr string) (map[string]any, bool) {
	v, ok := in.Field(ptr)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// identify tells the report who the client says it is, for the
// certificate: initialize's clientInfo, or (2026-07-28, no handshake) the
// clientInfo every request's _meta carries. Once per scenario is enough.
func (c *conv) identify(in *peer.Inbound, method string) {
	if c.identified {
		return
	}
	info, ok := mapAt(in, "/params/_meta/io.modelcontextprotocol~1clientInfo")
	if method == "initialize" {
		info, ok = mapAt(in, "/params/clientInfo")
	}
	if !ok {
		return
	}
	name, _ := info["name"].(string)
	version, _ := info["version"].(string)
	c.identified = true
	c.env.Identify(name, version)
}

// unmatchedCancel is a cancellation (its transcript line) of a request id
// not seen yet when it came.
type unmatchedCancel struct {
	key string
	seq int
}
