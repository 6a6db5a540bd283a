// Package mcp is wirecheck's reference MCP server over stdio: every
// revision from 2024-11-05 to 2025-11-25, tools (with pagination, progress,
// structured output and requests to the client), resources (templates,
// subscriptions), prompts, logging and completion; and 2026-07-28 when a
// request names it in _meta (server/discover, multi round-trip requests,
// subscriptions/listen, per-request log levels: modern.go). Each fault
// breaks one rule of specs/mcp.yaml on purpose.
package mcp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// versions are the revisions the server speaks with the initialize
// handshake, oldest first: the spec's (mcprevisions). Read on first use,
// not at init: the table is parsed from the embedded MCP spec, some 6 ms
// of CPU every wirecheck process would pay at start, `serve` of another
// protocol (which fuzz starts again and again) included.
var versions = sync.OnceValue(func() []string { return mcprevisions.With(revtable.Handshake) })

// latest is the newest revision with the handshake.
func latest() string { vs := versions(); return vs[len(vs)-1] }

// discoverRev is the revision without a handshake the server speaks, the
// newest: every request names it in _meta (2026-07-28).
var discoverRev = sync.OnceValue(func() string { vs := mcprevisions.With(revtable.Discover); return vs[len(vs)-1] })

// discovers reports whether v is a revision without a handshake that the
// server knows (one it does not know is no revision it speaks).
func discovers(v string) bool {
	return slices.Contains(mcprevisions.With(revtable.Discover), v)
}

// headerless is the revision a request without MCP-Protocol-Version is
// taken as: the newest with Streamable HTTP but not the header.
func headerless() string {
	out := ""
	for _, v := range mcprevisions.With(revtable.StreamableHTTP) {
		if !mcprevisions.Has(v, revtable.VersionHeader) {
			out = v
		}
	}
	return out
}

const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaServer       = "io.modelcontextprotocol/serverInfo"
	metaCaps         = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
)

// Serve runs the server until stdin ends and returns the exit code; with
// o.HTTP or o.SSE set it serves that HTTP transport instead (http.go,
// sse.go) until o.Stop closes.
func Serve(o refserver.Options) int {
	if o.HTTP != "" || o.SSE != "" {
		return serveHTTP(o, nil)
	}
	return serveStdio(o, nil)
}

// serveStdio serves stdio, with a profile's extension when ext is set.
func serveStdio(o refserver.Options, ext *Extension) int {
	s := newServer(o, o.Out, nil)
	s.ext = ext
	fmt.Fprintln(o.Log, "wirecheck reference MCP server: ready on stdio")
	r := bufio.NewReaderSize(o.In, 64*1024)
	var wg sync.WaitGroup
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if s.handleLine(line, &wg) {
				return 3
			}
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
	if s.v("slow-exit") {
		// Flushing and closing what it holds takes it a while.
		time.Sleep(1500 * time.Millisecond)
	}
	if s.faults["ignore-eof"] {
		time.Sleep(time.Hour)
	}
	fmt.Fprintln(o.Log, "stdin closed: exiting")
	return 0
}

// newServer is the core of one session: it reads lines (handleLine) and
// writes each message as one line to out. stop, when closed, ends its
// waits (a request to the client, a slow tool) so an HTTP session ends
// without leaving goroutines; nil on stdio.
func newServer(o refserver.Options, out io.Writer, stop <-chan struct{}) *server {
	s := &server{state: &state{faults: refserver.Set(o.Faults), variants: refserver.Set(o.Variants), out: out, log: o.Log, waiting: map[reqKey]chan map[string]any{}, level: "info", version: "2025-06-18",
		subs: map[reqKey][]any{}, running: map[reqKey]chan struct{}{}, stop: stop}}
	s.cursorPrefix = "wc:"
	if s.v("random-ids") {
		s.cursorPrefix = "wc:" + randomToken() + ":"
	}
	return s
}

// server is the core as the handling of one input sees it: the state
// every input shares, and the input whose handling writes what it writes
// (goroutines a handler starts inherit it), so an HTTP front sends each
// message on the stream of the request it relates to, whatever else is
// open on a core that many clients share.
type server struct {
	*state
	origin *exchange
}

// from is s handling the input of exchange ex (nil: none, as on stdio).
func (s *server) from(ex *exchange) *server { return &server{state: s.state, origin: ex} }

// reqKey names a request of the core's state (a running call, a
// subscription, a request the server asked): the JSON text of its id,
// within the exchange that carried it on a core that clients share.
// An id is unique only among the requests of one sender (basic/index:
// "MUST NOT match the ID of any other request the sender has issued"),
// and a sessionless 2026-07-28 server cannot tell senders apart: each
// exchange is the only scope it knows. Elsewhere (stdio, a session) the
// whole core is one sender's and ex is nil.
type reqKey struct {
	ex *exchange
	id string
}

// key is the reqKey of id as the input s handles names it.
func (s *server) key(id any) reqKey {
	k := reqKey{id: show(id)}
	if s.perExchange {
		k.ex = s.origin
	}
	return k
}

// originWriter is an output that routes by origin (the HTTP session).
type originWriter interface {
	writeFrom(origin *exchange, p []byte)
}

func (s *server) output(p []byte) {
	if o, ok := s.out.(originWriter); ok {
		o.writeFrom(s.origin, p)
		return
	}
	s.out.Write(p)
}

type state struct {
	faults map[string]bool
	// variants are the legal alternatives switched on (spec variants:).
	variants map[string]bool
	// drafts is the changing skill of the variant skills-churn (skills.go).
	drafts drafts
	log    io.Writer

	wmu sync.Mutex
	// responses is closed at the next response written (nextResponse);
	// rmu guards it, apart from mu, which callers of result may hold.
	rmu       sync.Mutex
	responses chan struct{}
	// afterCancel is, for the fault answer-cancelled, closed at the first
	// response written after the last cancellation was read.
	afterCancel <-chan struct{}
	out         io.Writer

	// perExchange: clients share the core (2026-07-28 over HTTP, no
	// session), so request ids are looked up within their exchange only
	// (reqKey).
	perExchange bool

	mu      sync.Mutex
	version string
	level   string
	waiting map[reqKey]chan map[string]any
	nextReq int
	// subs are the open subscriptions/listen requests (2026-07-28): the
	// resources each asked for.
	subs map[reqKey][]any
	// late is the update the fault listen-late-notification sends after
	// the next answer (lateUpdate), lateEx the exchange of its
	// subscription.
	late   obj
	lateEx *exchange
	// running holds the cancellable tool calls in progress; a
	// cancellation (notifications/cancelled, or in 2026-07-28 over HTTP
	// the close of the call's stream) closes the channel.
	running map[reqKey]chan struct{}
	// listings counts the tools/list requests without a cursor (the fault
	// tools-order-varies, the variant live-tools).
	listings int
	// grown is set once the grow tool has added its tool.
	grown bool
	// inited is set once initialize has been answered.
	inited bool
	// client is the capabilities the client declared in initialize.
	client obj
	// stop ends the waits of an HTTP session's core when it ends.
	stop <-chan struct{}
	// ext is a profile's extension (extension.go), nil for plain MCP.
	ext *Extension
	// tasks are the tasks created (tasks.go), by taskId; nextTask numbers
	// them, taskOrder lists their ids as created (tasks/list's order).
	tasks     map[string]*task
	nextTask  int
	taskOrder []string
	// cursorPrefix begins every cursor the server makes: "wc:", and with
	// the variant random-ids a token of its own after it, so a cursor
	// another run made is unknown (pageAt).
	cursorPrefix string
	// addCalls counts the calls of add (variant tool-varying).
	addCalls int
}

// clientHas reports whether the client declared a capability in
// initialize (2026-07-28 requests declare theirs one by one: askInput).
func (s *server) clientHas(c string) bool {
	if s.modern() {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.client[c]
	return ok
}

func (s *server) f(name string) bool { return s.faults[name] }

func (s *server) ver() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// modern reports whether the session speaks 2026-07-28 (no handshake).
func (s *server) modern() bool { return discovers(s.ver()) }

// cacheable adds the fields 2026-07-28 requires on list and read results.
func (s *server) cacheable(r obj) obj {
	if s.modern() {
		r["ttlMs"] = 0
		r["cacheScope"] = "public"
	}
	return r
}

// revHas reports whether the session's revision has feature f.
func (s *server) revHas(f revtable.Feature) bool { return mcprevisions.Has(s.ver(), f) }

func (s *server) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(s.log, "encode:", err)
		return
	}
	s.wmu.Lock()
	s.output(append(b, '\n'))
	s.wmu.Unlock()
	if m, ok := v.(obj); ok && m["method"] == nil && (m["result"] != nil || m["error"] != nil) {
		s.responded()
	}
}

func (s *server) writeRaw(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.output(b)
}

type obj = map[string]any

func (s *server) result(id any, res any) {
	if r, isObj := res.(obj); isObj {
		s.served(r)
	}
	if r, isObj := res.(obj); isObj && s.modern() {
		if _, has := r["resultType"]; !has {
			r["resultType"] = "complete"
		}
		if !s.f("no-server-info") {
			m, _ := r["_meta"].(obj)
			if m == nil {
				m = obj{}
				r["_meta"] = m
			}
			m[metaServer] = s.ext.info()
		}
	}
	m := obj{"jsonrpc": "2.0", "id": id, "result": res}
	s.write(m)
}

// nextResponse is closed once the server has written its next response.
func (s *server) nextResponse() <-chan struct{} {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.responses == nil {
		s.responses = make(chan struct{})
	}
	return s.responses
}

func (s *server) responded() {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.responses != nil {
		close(s.responses)
		s.responses = nil
	}
}

func (s *server) fail(id any, code int, msg string) {
	e := obj{"code": code, "message": msg}
	if s.f("error-code-string") {
		e["code"] = strconv.Itoa(code)
	}
	s.write(obj{"jsonrpc": "2.0", "id": id, "error": e})
}

func (s *server) notify(method string, params obj) {
	m := obj{"jsonrpc": "2.0", "method": method}
	if s.v("meta-everywhere") && params == nil {
		params = obj{}
	}
	if params != nil {
		m["params"] = s.served(params)
	}
	s.write(m)
}

// handleLine handles one input line; it returns true when the server must
// exit (a fault).
func (s *server) handleLine(line []byte, wg *sync.WaitGroup) bool {
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		if s.f("crash-on-garbage") {
			fmt.Fprintln(s.log, "fatal: bad input")
			return true
		}
		if !s.f("parse-error-silent") {
			s.fail(nil, -32700, "Parse error")
		}
		return false
	}
	if arr, isArr := v.([]any); isArr {
		// Batches: answered element by element in one array (2025-03-26),
		// an invalid request otherwise.
		if !s.revHas(revtable.Batches) || len(arr) == 0 || s.f("batch-refused") {
			s.fail(nil, -32600, "Invalid Request: batches are not supported in this revision")
			return false
		}
		s.batch(arr)
		return false
	}
	m, isObj := v.(obj)
	if !isObj || m["jsonrpc"] != "2.0" {
		s.fail(s.invalidID(m), -32600, "Invalid Request")
		return false
	}
	s.handle(m, wg)
	return false
}

func (s *server) handle(m obj, wg *sync.WaitGroup) {
	id, hasID := m["id"]
	method, _ := m["method"].(string)
	if method == "" {
		if hasID && (m["result"] != nil || m["error"] != nil) {
			s.answered(id, m)
			return
		}
		if !s.f("invalid-request-silent") {
			s.fail(s.invalidID(m), -32600, "Invalid Request: no method")
		}
		return
	}
	params, _ := m["params"].(obj)
	if params == nil {
		params = obj{}
	}
	s.trace(method, id)
	if !hasID {
		if s.f("answer-notifications") {
			s.result(nil, obj{})
		}
		if method == "notifications/cancelled" {
			s.cancelled(params)
			if !s.cancel(params["requestId"]) && s.f("answer-cancel-unknown") {
				s.fail(nil, -32602, "Invalid params: no request "+show(params["requestId"])+" to cancel")
			}
		}
		return // notifications: initialized, cancelled, roots/list_changed …
	}
	if readableID(m) == nil {
		s.fail(nil, -32600, "Invalid Request: the id must be a string or an integer")
		return
	}
	if s.f("pre-init-ignored") && method != "initialize" && method != "ping" {
		s.mu.Lock()
		inited := s.inited
		s.mu.Unlock()
		if !inited {
			fmt.Fprintln(s.log, "dropped "+method+": not initialized")
			return
		}
	}
	// meta-required: every request of a 2026-07-28 process must carry the
	// _meta fields the revision requires, whatever its method, and this
	// server checks them before it looks the method up.
	if meta, _ := params["_meta"].(obj); s.v("meta-required") && s.modern() && meta[metaVersion] == nil {
		s.fail(id, -32602, "Invalid params: _meta lacks "+metaVersion)
		return
	}
	// no-discover, discover-silent and one-revision play a legacy server:
	// _meta means nothing to it.
	if meta, _ := params["_meta"].(obj); meta != nil && meta[metaVersion] != nil && !s.f("no-discover") && !s.f("discover-silent") && !s.v("one-revision") && s.ext.speaks(discoverRev()) {
		v, _ := meta[metaVersion].(string)
		if !discovers(v) || ((s.v("older-revisions") || s.v("newer-revision-only")) && method != "server/discover") {
			code := -32022
			if s.f("version-error-code") {
				code = -32602
			}
			s.write(obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": code, "message": "Unsupported protocol version",
				"data": obj{"supported": s.supported(), "requested": meta[metaVersion]}}})
			return
		}
		s.mu.Lock()
		s.version = v
		s.mu.Unlock()
		// clientCapabilities is required on every request, as the revision.
		if _, isObj := meta[metaCaps].(obj); !isObj && !s.f("meta-lenient") {
			s.fail(id, -32602, "Invalid params: _meta lacks "+metaCaps)
			return
		}
		if lv, has := meta[metaLogLevel]; has && !slices.Contains(levels, fmt.Sprint(lv)) && !s.f("log-level-lenient") {
			s.fail(id, -32602, "Invalid params: unknown log level "+show(lv))
			return
		}
	}
	if method == "tools/call" || (method == "tasks/result" && s.tasksOn()) {
		// tasks/result waits for its task to end: the loop reads on.
		wg.Add(1)
		go func() {
			defer wg.Done()
			if method == "tasks/result" {
				s.taskMethod(id, method, params)
				return
			}
			s.callTool(id, params)
		}()
		return
	}
	s.dispatch(id, method, params)
	s.lateUpdate()
}

// answered routes the client's response to a request the server sent.
func (s *server) answered(id any, m obj) {
	key := s.key(id)
	s.mu.Lock()
	ch := s.waiting[key]
	delete(s.waiting, key)
	s.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// ask sends a request to the client and waits for its answer.
func (s *server) ask(method string, params obj) obj {
	s.mu.Lock()
	s.nextReq++
	var id any = s.nextReq
	if s.v("string-ids") {
		id = "srv-" + strconv.Itoa(s.nextReq)
	}
	ch := make(chan map[string]any, 1)
	s.waiting[s.key(id)] = ch
	s.mu.Unlock()
	m := obj{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	s.write(m)
	select {
	case m := <-ch:
		return m
	case <-time.After(3 * time.Second):
		return nil
	case <-s.stop:
		return nil
	}
}

func (s *server) dispatch(id any, method string, p obj) {
	if s.modern() {
		switch method {
		case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
			// Removed in 2026-07-28.
			s.fail(id, -32601, "Method not found: "+method)
			return
		case "subscriptions/listen":
			s.listen(id, p)
			return
		case "prompts/list":
			if s.f("mrtr-elsewhere") {
				s.result(id, obj{"resultType": "input_required", "requestState": "wirecheck-reference"})
				return
			}
		}
	}
	if s.taskMethod(id, method, p) || s.taskExtMethod(id, method, p) {
		return
	}
	if s.skillsDispatch(id, method, p) {
		return
	}
	if s.bareRefused(method) || s.ext.hidden(method) || (method == "server/discover" && !s.ext.speaks(discoverRev())) {
		s.fail(id, -32601, "Method not found: "+method)
		return
	}
	switch method {
	case "server/discover":
		if s.f("discover-silent") {
			return // a legacy server that drops methods it does not know
		}
		if s.f("no-discover") || s.v("one-revision") {
			s.fail(id, -32601, "Method not found: "+method)
			return
		}
		s.discover(id, p)
	case "initialize":
		s.initialize(id, p)
	case "ping":
		s.ping(id)
	case "tools/list":
		s.listTools(id, p)
	case "resources/list":
		s.page(id, p, "resources", s.resources(), s.pageSize(2))
	case "resources/templates/list":
		t := obj{"uriTemplate": "wirecheck://items/{id}", "name": "item", "mimeType": "text/plain"}
		if s.f("templates-bad") {
			delete(t, "uriTemplate")
		}
		ts := append([]any{t}, s.extTemplates()...)
		if s.ext.ownOnly() {
			ts = append([]any{}, s.extTemplates()...)
		}
		s.result(id, s.cacheable(obj{"resourceTemplates": ts}))
	case "resources/read":
		s.readResource(id, p)
	case "resources/subscribe":
		// A subscribed resource is "updated" at once, so a client sees the
		// notification without waiting for a change; before the result, so
		// it precedes the answer to any later request.
		if s.f("subscribe-refused") {
			s.fail(id, -32603, "Internal error: subscriptions are down")
			return
		}
		uri, _ := p["uri"].(string)
		s.notify("notifications/resources/updated", obj{"uri": uri})
		if s.f("updated-unsubscribed") {
			s.notify("notifications/resources/updated", obj{"uri": "wirecheck://never/subscribed"})
		}
		s.result(id, obj{})
	case "resources/unsubscribe":
		uri, _ := p["uri"].(string)
		s.result(id, obj{})
		if s.f("updated-after-unsubscribe") {
			s.notify("notifications/resources/updated", obj{"uri": uri})
		}
	case "prompts/list":
		s.page(id, p, "prompts", s.prompts(), s.pageSize(10))
	case "prompts/get":
		s.getPrompt(id, p)
	case "logging/setLevel":
		lv, _ := p["level"].(string)
		if !slices.Contains(levels, lv) && !s.f("set-level-lenient") {
			s.fail(id, -32602, "Invalid params: unknown log level "+strconv.Quote(lv))
			return
		}
		s.mu.Lock()
		s.level = lv
		s.mu.Unlock()
		s.result(id, obj{})
		s.logMsg("notice", "log level set to "+lv)
	case "completion/complete":
		s.complete(id, p)
	default:
		code := -32601
		if s.f("unknown-method-internal") {
			code = -32603
		}
		s.fail(id, code, "Method not found: "+method)
	}
}

var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (s *server) initialize(id any, p obj) {
	if s.v("modern-only") {
		// A server of 2026-07-28 only (era.go, initializeRefusal).
		s.write(obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": -32022, "message": "Unsupported protocol version: this server speaks 2026-07-28 only, without initialize",
			"data": obj{"supported": []any{discoverRev()}, "requested": p["protocolVersion"]}}})
		return
	}
	req, _ := p["protocolVersion"].(string)
	v := req
	if spoken := s.ext.handshake(); !slices.Contains(spoken, req) {
		v = latest()
		if s.ext != nil && len(spoken) > 0 {
			v = spoken[len(spoken)-1]
		}
	}
	if s.v("one-revision") || s.f("elicit-after-upgrade") {
		v = "2025-06-18"
	}
	switch {
	case s.f("version-echo-any"):
		v = req
	case s.f("version-flip"):
		v = versions()[0]
		if req == versions()[0] {
			v = "2025-06-18"
		}
	}
	s.mu.Lock()
	if slices.Contains(versions(), v) {
		s.version = v
	}
	s.inited = true
	s.client, _ = p["capabilities"].(obj)
	s.mu.Unlock()
	if s.f("init-error") {
		s.fail(id, -32603, "Internal error: initialization failed")
		return
	}
	if s.f("stdout-text") {
		s.writeRaw([]byte("MCP server initialized\n"))
	}
	if s.f("stdout-json-log") {
		s.writeRaw([]byte(`{"level":"info","msg":"initialized"}` + "\n"))
	}
	caps := obj{
		"tools":     obj{"listChanged": true},
		"resources": obj{"subscribe": true, "listChanged": true},
		"prompts":   obj{"listChanged": true},
		"logging":   obj{},
	}
	for _, c := range []string{"resources", "prompts"} {
		if !s.ext.has(c) {
			delete(caps, c)
		}
	}
	if mcprevisions.Has(v, revtable.Completions) && !s.f("completion-undeclared") && s.ext.has("completions") {
		caps["completions"] = obj{}
	}
	if s.f("list-changed-undeclared") {
		caps["tools"] = obj{}
	}
	if s.f("updated-undeclared") {
		caps["resources"] = obj{"listChanged": true}
	}
	s.declareTasks(caps, v)
	if s.v("bare") {
		caps = obj{"tools": obj{}}
	}
	if s.v("experimental-notification") {
		caps["experimental"] = obj{"com.example.wirecheck/heartbeat": obj{}}
	}
	for f, c := range map[string]string{"tools-undeclared": "tools", "resources-undeclared": "resources", "prompts-undeclared": "prompts", "log-undeclared": "logging"} {
		if s.f(f) {
			delete(caps, c)
		}
	}
	info := s.ext.info()
	named := v
	if s.f("version-bogus") {
		// It speaks the revision asked for (or its latest) but names
		// none: "1.0" is no MCP revision.
		named = "1.0"
	}
	res := obj{"protocolVersion": named, "capabilities": caps, "serverInfo": info, "instructions": "The reference server of wirecheck."}
	if s.f("init-no-serverinfo") {
		delete(res, "serverInfo")
	}
	s.result(id, res)
	if s.f("request-before-initialized") {
		go s.ask("roots/list", nil)
	}
	if s.v("early-ping") {
		// Pings and logging are allowed before initialized.
		s.logMsg("info", "initializing")
		go s.ask("ping", nil)
	}
}

// discover answers server/discover (2026-07-28).
// supported are the revisions server/discover lists and an
// UnsupportedProtocolVersionError names: 2026-07-28, or with the variant
// older-revisions the ones before it (a server that answers
// server/discover but has chosen not to support 2026-07-28), with
// newer-revision-only one after it that wirecheck does not know.
func (s *server) supported() []any {
	if s.v("newer-revision-only") {
		return []any{"2099-01-01"}
	}
	if s.v("older-revisions") {
		out := make([]any, 0, len(versions()))
		for _, v := range versions() {
			out = append(out, v)
		}
		return out
	}
	return []any{discoverRev()}
}

func (s *server) discover(id any, p obj) {
	supported := s.supported()
	if s.v("version-header-optional") {
		// A dual-era server: it serves requests without the version
		// header as 2025-03-26, so it lists that revision too.
		supported = []any{headerless(), discoverRev()}
	}
	if s.f("discover-no-version") {
		supported = []any{"2099-01-01"}
	}
	caps := obj{"tools": obj{"listChanged": true}, "resources": obj{"subscribe": true, "listChanged": true}, "prompts": obj{"listChanged": true},
		"completions": obj{}, "logging": obj{}}
	if s.v("bare") {
		caps = obj{"tools": obj{}}
	}
	for _, c := range []string{"resources", "prompts", "completions"} {
		if !s.ext.has(c) {
			delete(caps, c)
		}
	}
	s.skillsCaps(caps)
	s.tasksExtCaps(caps)
	s.result(id, s.cacheable(obj{"supportedVersions": supported, "capabilities": caps,
		"instructions": "The reference server of wirecheck.",
		"_meta":        obj{metaServer: s.ext.info()}}))
}

func (s *server) ping(id any) {
	var res any = obj{}
	if s.f("ping-not-empty") {
		res = obj{"pong": true}
	}
	m := obj{"jsonrpc": "2.0", "id": id, "result": s.served(res.(obj))}
	if s.f("no-jsonrpc") {
		delete(m, "jsonrpc")
	}
	if s.f("both-outcomes") {
		m["error"] = obj{"code": -32603, "message": "both"}
	}
	if s.f("id-type") {
		if n, isNum := id.(json.Number); isNum {
			m["id"] = n.String()
		} else if str, isStr := id.(string); isStr {
			m["id"] = str + "-x"
		}
	}
	s.write(m)
	if s.f("double-response") {
		s.write(m)
	}
}

// page answers a paginated list with opaque cursors.
func (s *server) page(id any, p obj, key string, items []any, size int) {
	list, next, ok := s.pageAt(id, p, items, size, s.f("cursor-lenient"))
	if !ok {
		return
	}
	res := s.cacheable(obj{key: list})
	if next != "" {
		res["nextCursor"] = next
	}
	s.result(id, res)
}

// pageAt is the page of items p's cursor asks for, at most size long
// ([], never null: the schemas require an array), and the cursor of the
// next page ("" after the last). An unknown cursor is answered -32602 and
// gives false, unless lenient reads it as the first page's.
func (s *server) pageAt(id any, p obj, items []any, size int, lenient bool) ([]any, string, bool) {
	start := 0
	if c, has := p["cursor"]; has {
		cs, _ := c.(string)
		n, ok := s.decodeCursor(cs)
		if !ok || n > len(items) {
			if !lenient {
				s.fail(id, -32602, "Invalid params: unknown cursor")
				return nil, "", false
			}
			n = 0
		}
		start = n
	}
	end := min(start+size, len(items))
	list := append([]any{}, items[start:end]...)
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(s.cursorPrefix + strconv.Itoa(end)))
	}
	return list, next, true
}

func (s *server) decodeCursor(c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	rest, has := strings.CutPrefix(string(b), s.cursorPrefix)
	if err != nil || !has {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// progress sends the notifications of a request that asked for them.
func (s *server) progress(p obj, steps int) {
	for i := 1; i <= steps; i++ {
		s.progressStep(p, i, steps)
	}
}

// progressStep sends progress i of steps, when the request asked for
// progress.
func (s *server) progressStep(p obj, i, steps int) {
	meta, _ := p["_meta"].(obj)
	tok, has := meta["progressToken"]
	if !has {
		return
	}
	if s.f("progress-wrong-token") {
		tok = fmt.Sprint(tok) + "-x"
	}
	val := float64(i)
	if s.f("progress-decreasing") {
		val = float64(steps - i + 1)
	}
	n := obj{"progressToken": tok, "progress": val, "total": float64(steps)}
	if s.v("progress-no-total") {
		// The total is optional; a message exists from 2025-03-26 on.
		delete(n, "total")
		if s.revHas(revtable.ProgressMessage) {
			n["message"] = fmt.Sprintf("step %d", i)
		}
	}
	s.notify("notifications/progress", n)
}

func (s *server) logMsg(level, text string) {
	if s.v("bare") {
		return // it declares no logging
	}
	s.mu.Lock()
	cur := s.level
	s.mu.Unlock()
	if slices.Index(levels, level) < slices.Index(levels, cur) {
		return
	}
	if s.f("log-bad-level") {
		level = "loud"
	}
	s.notify("notifications/message", obj{"level": level, "logger": "reference", "data": text})
}

// batch answers a 2025-03-26 batch of requests and notifications with one
// array of responses (nothing when it held only notifications). Tool calls
// are not batched by wirecheck; every element is answered in order.
func (s *server) batch(arr []any) {
	var outs []any
	invalid := func(id any) {
		outs = append(outs, obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": -32600, "message": "Invalid Request"}})
	}
	for _, it := range arr {
		m, ok := it.(obj)
		if _, hasID := m["id"]; ok && !hasID && s.f("batch-drops-invalid") {
			continue // taken for a notification, whatever it is
		}
		if !ok || m["jsonrpc"] != "2.0" {
			invalid(s.invalidID(m))
			continue
		}
		id, hasID := m["id"]
		method, isStr := m["method"].(string)
		_, hasMethod := m["method"]
		switch {
		case !hasMethod && hasID && (m["result"] != nil || m["error"] != nil):
			s.answered(id, m) // a client's response: nothing to answer
		case !isStr || method == "":
			// No request, nor a notification (JSON-RPC 2.0 §6: each
			// element that is no valid request draws Invalid Request).
			invalid(s.invalidID(m))
		case !hasID:
			// A notification: no answer.
		case readableID(m) == nil:
			invalid(nil)
		case method == "ping":
			outs = append(outs, obj{"jsonrpc": "2.0", "id": id, "result": obj{}})
		default:
			outs = append(outs, obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": -32601, "message": "Method not found: " + method}})
		}
	}
	if len(outs) > 0 {
		s.write(outs)
	}
}

// readableID is a message's id when it is a valid one (a string or an
// integer), so an error about the message can carry it; nil otherwise
// (JSON-RPC 2.0 §5: null when the id cannot be detected).
func readableID(m obj) any {
	switch id := m["id"].(type) {
	case string:
		return id
	case json.Number:
		if _, err := id.Int64(); err == nil {
			return id
		}
	}
	return nil
}

// cancel stops the tool call a notifications/cancelled names, if it is
// still running (an unknown or finished request is ignored). On a core
// clients share only the close of a call's own stream names it (the
// front feeds that cancellation from the call's exchange): a
// notifications/cancelled POST names an id of no exchange but its own,
// as "no notifications/cancelled message is expected" there.
func (s *server) cancel(requestID any) bool {
	key := s.key(requestID)
	next := s.nextResponse()
	s.mu.Lock()
	ch := s.running[key]
	delete(s.running, key)
	s.afterCancel = next
	s.mu.Unlock()
	if ch != nil {
		close(ch)
	}
	return ch != nil
}
