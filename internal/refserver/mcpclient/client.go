// Package mcpclient is the reference MCP client (wirecheck serve mcp
// --role client -- SERVER-CMD…): it launches the server command, speaks
// MCP over its stdio, initializes, lists and calls tools, answers the
// server's requests as its declared capabilities allow, and exits (with
// the variant linger, once the server ends the session: the client a
// fuzz campaign fuzzes). Each fault (spec mcp-client.yaml faults:) breaks
// one client rule, those marked fuzz only under hostile input; each
// variant takes a legal alternative.
package mcpclient

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/refserver"
)

// supported are the revisions the reference client speaks; it asks for
// the newest.
var supported = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

const wait = 10 * time.Second

type client struct {
	fault, variant map[string]bool
	log            io.Writer
	in             io.WriteCloser
	mu             sync.Mutex
	answers        map[string]chan map[string]any
	caps           map[string]any
	serverCaps     map[string]any
	nextID         int
	modern         bool // requests carry 2026-07-28's _meta
	// sent are the ids of every request the client sent (crash-on-unknown-id);
	// eof is closed once the server's output ends.
	sent map[string]bool
	eof  chan struct{}
	// params are the valid x-mcp-header annotations of the tools listed,
	// by tool name: what the HTTP link mirrors into Mcp-Param headers.
	params map[string][]mcpheader.Param
}

// paramsOf are the annotations of tool name the link mirrors.
func (c *client) paramsOf(name string) []mcpheader.Param {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.params[name]
}

// Serve runs the reference client against the server o.Args names.
func Serve(o refserver.Options) int {
	if len(o.Args) == 0 {
		fmt.Fprintln(o.Log, "mcp reference client: no server command (give it after --)")
		return 2
	}
	if u, ok := serverURL(o.Args); ok {
		return serveHTTP(o, u)
	}
	cmd := exec.Command(o.Args[0], o.Args[1:]...)
	cmd.Stderr = o.Log
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil {
		fmt.Fprintln(o.Log, "mcp reference client: pipes:", err1, err2)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(o.Log, "mcp reference client:", err)
		return 1
	}
	c := newClient(o)
	c.in = in
	go c.read(out)
	code := c.run()
	if code == 0 && c.variant["linger"] {
		// An interactive client: the session lasts until the server ends it.
		<-c.eof
	}
	_ = in.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
	}
	return code
}

// newClient is the client the options make, its capabilities as the
// variants and faults say; in is left to the transport.
func newClient(o refserver.Options) *client {
	c := &client{fault: refserver.Set(o.Faults), variant: refserver.Set(o.Variants), log: o.Log, answers: map[string]chan map[string]any{}, sent: map[string]bool{}, eof: make(chan struct{})}
	c.caps = map[string]any{"roots": map[string]any{"listChanged": true}, "sampling": map[string]any{}}
	switch {
	case c.variant["bare"]:
		c.caps = map[string]any{}
	case c.variant["capable"]:
		c.caps["elicitation"] = map[string]any{}
	}
	// no-method-header, the Mcp-Param faults and ignores-iss
	// (-metadata-issuer) break rules of 2026-07-28 alone: they speak that
	// revision, as the modern variant does.
	for _, f := range []string{"no-method-header", "ignores-iss", "ignores-metadata-issuer", "iss-only-when-advertised", "iss-strict", "refresh-unregistered", "offline-always", "no-param-headers", "param-unencoded", "param-null-sent", "keeps-invalid-tools", "no-application-type", "reuses-client"} {
		if c.fault[f] {
			c.variant["modern"] = true
		}
	}
	if c.variant["application-type-web"] {
		c.variant["modern"] = true
	}
	if c.fault["preregistered-no-secret"] {
		c.variant["preregistered"] = true
	}
	if c.skillsOn() {
		// The extension is of 2026-07-28 on: declared in the capabilities
		// every request's _meta carries.
		c.variant["modern"] = true
		c.caps["extensions"] = map[string]any{skillsExt: map[string]any{}}
	}
	if c.variant["no-refresh"] {
		c.variant["modern"] = true
	}
	if c.fault["fallback-on-32601-only"] || c.fault["stop-unless-32601"] || c.variant["probe-http"] {
		c.variant["probe"] = true
	}
	for _, f := range httpProbeFaults {
		if c.fault[f] {
			c.variant["probe"] = true
		}
	}
	// The undeclared-answer faults answer what they do not declare.
	if c.fault["sampling-undeclared-answer"] {
		delete(c.caps, "sampling")
	}
	if c.fault["roots-undeclared-answer"] || c.variant["roots-undeclared-empty"] {
		delete(c.caps, "roots")
	}
	return c
}

func (c *client) send(v map[string]any) {
	b, _ := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.in.Write(append(b, '\n'))
}

// request sends a request and returns a channel for its answer; id < 0
// takes the next id.
func (c *client) request(method string, params any, id int) (int, chan map[string]any) {
	c.mu.Lock()
	if id < 0 {
		c.nextID++
		id = c.nextID
	}
	ch := make(chan map[string]any, 2)
	key := fmt.Sprint(id)
	if c.variant["string-ids"] {
		key = fmt.Sprintf("c-%d", id)
	}
	c.answers[key] = ch
	c.sent[key] = true
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if c.variant["string-ids"] {
		msg["id"] = fmt.Sprintf("c-%d", id)
	}
	if c.modern {
		// 2026-07-28: every request says its revision and capabilities.
		p, _ := params.(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		meta, _ := p["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
		if !c.fault["meta-no-capabilities"] {
			meta["io.modelcontextprotocol/clientCapabilities"] = c.caps
		}
		if !c.fault["meta-no-client-info"] {
			meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "wirecheck-reference-client", "version": "0.1.0"}
		}
		p["_meta"] = meta
		params = p
	}
	if params != nil {
		msg["params"] = params
	}
	if c.fault["no-jsonrpc"] && method == "tools/list" {
		delete(msg, "jsonrpc")
	}
	c.send(msg)
	return id, ch
}

// asks is the revision the client asks for: its newest, or with the
// variant oldest its oldest.
func (c *client) asks() string {
	if c.variant["oldest"] {
		return supported[0]
	}
	return supported[len(supported)-1]
}

func (c *client) await(method string, ch chan map[string]any) (map[string]any, bool) {
	select {
	case m := <-ch:
		return m, true
	case <-time.After(wait):
		fmt.Fprintf(c.log, "mcp reference client: no answer to %s within %v\n", method, wait)
		return nil, false
	}
}

func (c *client) call(method string, params any) (map[string]any, bool) {
	_, ch := c.request(method, params, -1)
	return c.await(method, ch)
}

func (c *client) run() int {
	c.modern = c.variant["modern"] || c.variant["probe"] || c.variant["param-base64-all"] || c.fault["meta-no-capabilities"] || c.fault["meta-no-client-info"] || c.fault["deref-ref"] || c.fault["mrtr-state-dropped"] || c.fault["mrtr-state-leak"] || c.fault["mrtr-no-responses"] || c.fault["mrtr-state-stale"]
	if c.modern {
		d, ok := c.call("server/discover", nil)
		if !ok {
			return 1
		}
		r, isResult := d["result"].(map[string]any)
		if !isResult && c.variant["probe"] {
			// Any error is a server of an earlier revision (stdio's
			// backward compatibility): initialize instead; the fault
			// fallback-on-32601-only takes every other code for a
			// modern server's.
			// stop-unless-32601 takes it for a server that refuses
			// the client and stops.
			e, _ := d["error"].(map[string]any)
			if code, decided := c.httpProbeFault(e); decided {
				return code
			}
			keyed := c.fault["fallback-on-32601-only"] || c.fault["stop-unless-32601"]
			if code, _ := e["code"].(float64); !keyed || code == -32601 {
				c.modern = false
				return c.legacy()
			}
			if c.fault["stop-unless-32601"] {
				fmt.Fprintf(c.log, "mcp reference client: server/discover answered error %v: stopping\n", e["code"])
				return 1
			}
			return c.work()
		}
		c.serverCaps, _ = r["capabilities"].(map[string]any)
		vs, _ := r["supportedVersions"].([]any)
		if !slices.Contains(vs, any("2026-07-28")) {
			fmt.Fprintf(c.log, "mcp reference client: the server supports %v, not 2026-07-28: disconnecting\n", vs)
			return 1
		}
		return c.work()
	}
	return c.legacy()
}

// httpProbeFaults misjudge the answer to their probe over HTTP
// (2026-07-28 basic/transports/streamable-http, Backward Compatibility):
// http-probe-no-fallback takes any 400 for a modern server's and goes on;
// http-fallback-json-body-only falls back after a 400 only when its body
// is a JSON-RPC error, and stops after an empty or text one;
// http-fallback-rpc-only falls back only after a JSON-RPC error in a 200,
// and stops after any 400.
var httpProbeFaults = []string{"http-probe-no-fallback", "http-fallback-json-body-only", "http-fallback-rpc-only"}

// httpProbeFault is what an httpProbeFaults fault does with the error e
// answering its probe: decided when the fault decides, with run's code.
func (c *client) httpProbeFault(e map[string]any) (code int, decided bool) {
	data, _ := e["data"].(map[string]any)
	status, _ := data["httpStatus"].(float64)
	refused := status == 400
	var body struct {
		Error map[string]any `json:"error"`
	}
	raw, _ := data["body"].(string)
	jsonError := json.Unmarshal([]byte(raw), &body) == nil && body.Error != nil
	stop := func(why string) (int, bool) {
		fmt.Fprintf(c.log, "mcp reference client: server/discover answered %s: stopping\n", why)
		return 1, true
	}
	switch {
	case c.fault["http-probe-no-fallback"] && refused:
		return c.work(), true
	case c.fault["http-fallback-json-body-only"] && refused && !jsonError:
		return stop("HTTP 400 without a JSON-RPC error")
	case c.fault["http-fallback-rpc-only"] && refused:
		return stop("HTTP 400")
	}
	return 0, false
}

// legacy opens the session with the initialize handshake and works.
func (c *client) legacy() int {
	if c.fault["list-first"] {
		if _, ok := c.call("tools/list", nil); !ok {
			return 1
		}
	}
	initID, initCh := c.request("initialize", map[string]any{
		"protocolVersion": c.asks(),
		"capabilities":    c.caps,
		"clientInfo":      map[string]any{"name": "wirecheck-reference-client", "version": "0.1.0"},
	}, -1)
	var early chan map[string]any
	if c.fault["request-before-initialized"] {
		_, early = c.request("tools/list", nil, -1)
	}
	init, ok := c.await("initialize", initCh)
	if !ok {
		return 1
	}
	r, _ := init["result"].(map[string]any)
	v, _ := r["protocolVersion"].(string)
	c.serverCaps, _ = r["capabilities"].(map[string]any)
	if !slices.Contains(supported, v) && !c.fault["wrong-version"] {
		fmt.Fprintf(c.log, "mcp reference client: the server answered protocol version %q, which this client does not support: disconnecting\n", v)
		return 1
	}
	if early != nil {
		c.await("tools/list", early)
	}
	if c.fault["cancel-initialize"] {
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": initID}})
	}
	if !c.fault["no-initialized"] {
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	if c.variant["pings"] {
		if _, ok := c.call("ping", nil); !ok {
			return 1
		}
	}
	return c.work()
}

// work is what the client is for once its session is open: list the
// tools, call them, and a last round trip.
func (c *client) work() int {
	listID, listCh := c.request("tools/list", nil, -1)
	list, ok := c.await("tools/list", listCh)
	if !ok {
		return 1
	}
	if c.fault["deref-ref"] {
		fetchRefs(list)
	}
	id := -1
	if c.fault["duplicate-id"] {
		id = listID
	}
	echo := func() map[string]any {
		return map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}, "_meta": map[string]any{"progressToken": "ref-1"}}
	}
	_, callCh := c.request("tools/call", echo(), id)
	res, ok := c.await("tools/call", callCh)
	if !ok {
		return 1
	}
	// 2026-07-28 (basic/patterns/mrtr): an InputRequiredResult is retried
	// under a new id, with its requestState echoed (none if it has none)
	// and its inputRequests answered; a few rounds at most.
	failArgs := map[string]any{"name": "fail", "arguments": map[string]any{}}
	last := ""
	for round := 0; round < 3; round++ {
		r, _ := res["result"].(map[string]any)
		if r["resultType"] != "input_required" {
			break
		}
		retry := echo()
		state, hasState := r["requestState"].(string)
		switch {
		case hasState && !c.fault["mrtr-state-dropped"]:
			retry["requestState"] = state
		case !hasState && last != "" && c.fault["mrtr-state-stale"]:
			retry["requestState"] = last
		}
		if hasState {
			last = state
		}
		if irs, ok := r["inputRequests"].(map[string]any); ok && !c.fault["mrtr-no-responses"] {
			retry["inputResponses"] = c.inputs(irs)
		}
		if hasState && c.fault["mrtr-state-leak"] {
			failArgs["requestState"] = state
		}
		if res, ok = c.call("tools/call", retry); !ok {
			return 1
		}
	}
	if _, ok := c.call("tools/call", failArgs); !ok {
		return 1
	}
	if !c.callOthers(list) {
		return 1
	}
	// What the server declared decides what else the client asks for
	// (undeclared-use: whatever it declared).
	for _, cp := range []struct{ cap, method string }{{"resources", "resources/list"}, {"prompts", "prompts/list"}} {
		if _, ok := c.serverCaps[cp.cap]; ok || c.fault["undeclared-use"] {
			if _, ok := c.call(cp.method, nil); !ok {
				return 1
			}
		}
	}
	if c.skillsOn() && c.modern && !c.useSkills() {
		return 1
	}
	if c.fault["cancel-unknown"] {
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 777, "reason": "never sent"}})
	}
	if c.variant["cancel-overtakes"] {
		// The cancellation of the last call reaches the server first, as
		// when its POST overtakes the call's (the two travel apart).
		c.mu.Lock()
		next := c.nextID + 1
		c.mu.Unlock()
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": next, "reason": "overtook its request"}})
	}
	if c.variant["cancel-aborted"] {
		// A call cancelled as it was made, its POST aborted before it
		// reached the server: the id is spent, the request never arrives,
		// the cancellation does.
		c.mu.Lock()
		c.nextID++
		aborted := c.nextID
		c.mu.Unlock()
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": aborted, "reason": "aborted"}})
	}
	// A last round trip, so every request the server sent meanwhile has
	// been answered before the client goes.
	if _, ok := c.call("tools/list", nil); !ok {
		return 1
	}
	return 0
}

// callOthers calls every other tool listed whose arguments it can make,
// leaving out (as a client over Streamable HTTP must) a tool whose
// x-mcp-header annotations are invalid, unless the fault keeps-invalid-
// tools; its valid annotations go to the link first.
func (c *client) callOthers(list map[string]any) bool {
	r, _ := list["result"].(map[string]any)
	ts, _ := r["tools"].([]any)
	for _, t := range ts {
		tool, _ := t.(map[string]any)
		name, _ := tool["name"].(string)
		if name == "" || name == "echo" || name == "fail" {
			continue
		}
		ps, err := mcpheader.Params(tool["inputSchema"])
		if err != nil && !c.fault["keeps-invalid-tools"] {
			fmt.Fprintf(c.log, "mcp reference client: tool %s rejected: %v\n", name, err)
			continue
		}
		c.mu.Lock()
		if c.params == nil {
			c.params = map[string][]mcpheader.Param{}
		}
		c.params[name] = ps
		c.mu.Unlock()
		schema, _ := tool["inputSchema"].(map[string]any)
		a, _ := arguments(schema)
		args, _ := a.(map[string]any)
		if args == nil {
			args = map[string]any{}
		}
		if _, ok := c.call("tools/call", map[string]any{"name": name, "arguments": args}); !ok {
			return false
		}
	}
	return true
}

// arguments makes a value for a schema: its default where it has one
// (null too), else one of its type (objects property by property); false
// for what it cannot make.
func arguments(schema map[string]any) (any, bool) {
	if d, ok := schema["default"]; ok {
		return d, true
	}
	switch schema["type"] {
	case "string":
		return "wirecheck", true
	case "integer":
		return 1, true
	case "boolean":
		return true, true
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			sub, _ := v.(map[string]any)
			if a, ok := arguments(sub); ok {
				out[k] = a
			}
		}
		return out, true
	}
	return nil, false
}

// inputs answers an InputRequiredResult's inputRequests as the client
// answers the same requests sent on their own.
func (c *client) inputs(irs map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range irs {
		m, _ := v.(map[string]any)
		switch m["method"] {
		case "roots/list":
			out[k] = map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp", "name": "tmp"}}}
		case "sampling/createMessage":
			out[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}, "model": "wirecheck-reference", "stopReason": "endTurn"}
		case "elicitation/create":
			out[k] = map[string]any{"action": "decline"}
		}
	}
	return out
}

// fetchRefs GETs every network $ref in the listed tools' inputSchemas:
// what a schema library that resolves remote references does.
func fetchRefs(list map[string]any) {
	hc := &http.Client{Timeout: 2 * time.Second}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && (strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://")) {
				if resp, err := hc.Get(ref); err == nil {
					_ = resp.Body.Close()
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	r, _ := list["result"].(map[string]any)
	walk(r["tools"])
}

func (c *client) read(r io.Reader) {
	defer close(c.eof)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			if c.fault["hang-on-bad-line"] && !json.Valid(sc.Bytes()) {
				// Waits for the rest of a message that never comes.
				select {}
			}
			continue
		}
		id, hasID := m["id"]
		mv, hasM := m["method"]
		method, _ := mv.(string)
		switch id.(type) {
		case string, float64:
		case nil:
			if hasM && hasID {
				// MCP: a request's id is a string or an integer, never null.
				c.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "invalid request: a null id"}})
				continue
			}
		default:
			// JSON-RPC 2.0 § 5: an id that is no id is an invalid
			// request, answered with a null id, not echoed.
			if hasM {
				c.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": "invalid request: the id is neither a string nor a number"}})
			}
			continue
		}
		switch {
		case method != "" && hasID:
			c.answer(method, id, m)
		case hasM && hasID:
			c.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": "invalid request: method is not a name"}})
		case hasID:
			c.mu.Lock()
			ch := c.answers[fmt.Sprint(id)]
			delete(c.answers, fmt.Sprint(id))
			known := c.sent[fmt.Sprint(id)]
			c.mu.Unlock()
			if !known && c.fault["crash-on-unknown-id"] {
				fmt.Fprintf(c.log, "mcp reference client: a response to id %v, which it never sent: exiting\n", id)
				os.Exit(3)
			}
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *client) answer(method string, id any, m map[string]any) {
	reply := func(res any) { c.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": res}) }
	refuse := func(feature string) {
		if c.variant["silent-undeclared"] {
			return
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "this client does not support " + feature}})
	}
	has := func(f string) bool { _, ok := c.caps[f]; return ok }
	switch method {
	case "ping":
		switch {
		case c.fault["ping-unanswered"]:
		case c.fault["ping-not-empty"]:
			reply(map[string]any{"pong": true})
		case c.fault["id-mangled"]:
			c.send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprint(id), "result": map[string]any{}})
		default:
			reply(map[string]any{})
		}
	case "roots/list":
		switch {
		case has("roots") || c.fault["roots-undeclared-answer"]:
			reply(map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp", "name": "tmp"}}})
		case c.variant["roots-undeclared-empty"]:
			reply(map[string]any{"roots": []any{}})
		default:
			refuse("roots")
		}
	case "sampling/createMessage":
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		if tok, ok := meta["progressToken"]; ok && (c.variant["progress"] || c.fault["progress-unknown-token"]) {
			if c.fault["progress-unknown-token"] {
				tok = "not-given"
			}
			c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": tok, "progress": 1}})
		}
		if has("sampling") || c.fault["sampling-undeclared-answer"] {
			reply(map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}, "model": "wirecheck-reference", "stopReason": "endTurn"})
		} else {
			refuse("sampling")
		}
	case "elicitation/create":
		if has("elicitation") || c.fault["elicit-undeclared-answer"] {
			reply(map[string]any{"action": "decline"})
		} else {
			refuse("elicitation")
		}
	default:
		c.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "method not found"}})
	}
}
