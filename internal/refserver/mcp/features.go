package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/revtable"
)

// tool is one tool of the reference server.
type tool struct {
	def obj
	run func(s *server, args obj) obj
	// ext runs a profile's tool (extension.go) instead of run.
	ext func(c Call) (map[string]any, *Error)
}

func text(t string) obj { return obj{"type": "text", "text": t} }

func (s *server) tools() []tool {
	structured := s.revHas(revtable.StructuredContent)
	echo := obj{"name": "echo", "description": "Echoes its text.",
		"inputSchema": obj{"type": "object", "properties": obj{"text": obj{"type": "string"}}, "required": []any{"text"}}}
	add := obj{"name": "add", "description": "Adds two numbers.",
		"inputSchema": obj{"type": "object", "properties": obj{"a": obj{"type": "number"}, "b": obj{"type": "number"}}, "required": []any{"a", "b"}}}
	if structured {
		echo["title"] = "Echo"
		echo["outputSchema"] = obj{"type": "object", "properties": obj{"text": obj{"type": "string"}}, "required": []any{"text"}}
		add["outputSchema"] = obj{"type": "object", "properties": obj{"sum": obj{"type": "number"}}, "required": []any{"sum"}}
	}
	s.taskTool(add)
	if s.f("tools-list-bad") {
		delete(add, "inputSchema")
	}
	if s.f("schema-dialect-invalid") || s.v("draft07-schema") {
		// Tuple items: an array of schemas, valid in draft-07 only.
		in := echo["inputSchema"].(obj)
		in["properties"].(obj)["tags"] = obj{"type": "array", "items": []any{obj{"type": "string"}}}
		in["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		if s.v("draft07-schema") {
			in["$schema"] = "http://json-schema.org/draft-07/schema#"
		}
	}
	if s.f("tool-schema-invalid") {
		// Still an object schema to MCP's ListToolsResult, but no JSON Schema.
		echo["inputSchema"].(obj)["properties"].(obj)["text"] = obj{"type": "strung"}
	}
	failName := "fail"
	if s.f("tool-name-space") {
		failName = "fail, always"
	}
	ts := []tool{{
		def: echo,
		run: func(s *server, a obj) obj {
			t, _ := a["text"].(string)
			r := obj{"content": []any{text(t)}}
			if structured {
				r["structuredContent"] = obj{"text": t}
			}
			return r
		},
	}, {
		def: add,
		run: func(s *server, a obj) obj {
			x, _ := num(a["a"])
			y, _ := num(a["b"])
			r := obj{"content": []any{text(fmt.Sprint(x + y))}}
			if s.v("tool-varying") {
				// A tool whose answer changes call to call, as a clock's.
				s.mu.Lock()
				s.addCalls++
				n := s.addCalls
				s.mu.Unlock()
				r["content"] = append(r["content"].([]any), text(fmt.Sprintf("call %d", n)))
			}
			if structured {
				r["structuredContent"] = obj{"sum": x + y}
				if s.f("structured-mismatch") {
					r["structuredContent"] = obj{"sum": fmt.Sprint(x + y)}
				}
			}
			return r
		},
	}, {
		def: obj{"name": failName, "description": "Always fails, as a tool execution error.", "inputSchema": obj{"type": "object"}},
		run: func(s *server, a obj) obj {
			return obj{"content": []any{text("the tool failed on purpose")}, "isError": true}
		},
	}, {
		def: obj{"name": "countdown", "description": "Reports progress while it counts.",
			"inputSchema": obj{"type": "object", "properties": obj{"steps": obj{"type": "integer", "minimum": 1, "maximum": 5}}}},
		run: func(s *server, a obj) obj { return obj{"content": []any{text("done")}} },
	}, {
		def: obj{"name": "slow", "description": "Reports progress, then works for durationMs (at most 1000) unless cancelled.",
			"inputSchema": obj{"type": "object", "properties": obj{"durationMs": obj{"type": "integer", "minimum": 0, "maximum": 1000}}}},
	}, {
		def: obj{"name": "grow", "description": "Adds the tool \"grown\" to the list the first time it is called (the list changes).", "inputSchema": obj{"type": "object"}},
		run: func(s *server, a obj) obj {
			s.mu.Lock()
			first := !s.grown
			s.grown = true
			s.mu.Unlock()
			// 2026-07-28 sends list changes on a subscriptions/listen
			// stream only.
			if first && !s.modern() && !s.v("bare") {
				s.notify("notifications/tools/list_changed", nil)
			}
			return obj{"content": []any{text("the tool list has the tool grown")}}
		},
	}, {
		def: obj{"name": "ask-client", "description": "Asks the client to sample, list its roots, elicit and ping, then logs.", "inputSchema": obj{"type": "object"}},
		run: func(s *server, a obj) obj {
			// In 2026-07-28 callTool runs askInput instead (multi
			// round-trip), unless modern-server-request.
			var got []string
			sp := obj{"messages": []any{obj{"role": "user", "content": text("Say hello")}}, "maxTokens": 20}
			if s.f("sampling-bad") {
				delete(sp, "maxTokens")
			}
			if s.clientHas("sampling") {
				if m := s.ask("sampling/createMessage", sp); m != nil {
					got = append(got, "sampling")
				}
			}
			if s.clientHas("roots") {
				if m := s.ask("roots/list", obj{}); m != nil {
					got = append(got, "roots")
				}
			}
			if (s.revHas(revtable.Elicitation) && (s.clientHas("elicitation") || s.f("elicit-after-upgrade"))) || s.f("elicit-undeclared") {
				ep := obj{"message": "Your name?", "requestedSchema": obj{"type": "object", "properties": obj{"name": obj{"type": "string"}}}}
				if m := s.ask("elicitation/create", ep); m != nil {
					got = append(got, "elicitation")
				}
			}
			if m := s.ask("ping", nil); m != nil {
				got = append(got, "ping")
			}
			if !s.modern() {
				s.logMsg("info", "ask-client answered: "+strings.Join(got, ", "))
			}
			return obj{"content": []any{text("the client answered " + strings.Join(got, ", "))}}
		},
	}}
	if s.modern() {
		ts = append(ts, headerTools(s.f("x-mcp-header-number"))...)
	}
	if s.v("slow-tool") {
		ts = append(ts, tool{def: obj{"name": longPoll, "description": "Returns the next event of a feed, once one arrives; none ever does.", "inputSchema": obj{"type": "object"}}})
	}
	s.mu.Lock()
	grown := s.grown
	s.mu.Unlock()
	if grown {
		ts = append(ts, tool{
			def: obj{"name": "grown", "description": "Added by the grow tool.", "inputSchema": obj{"type": "object"}},
			run: func(s *server, a obj) obj { return obj{"content": []any{text("grown")}} },
		})
	}
	if s.v("live-tools") {
		ts = append(s.liveTools(), ts...)
	}
	if s.ext.ownOnly() {
		return s.extTools()
	}
	return append(s.extTools(), ts...)
}

// liveTools are the two gauges of the variant live-tools. Each tools/list
// refreshes one of them in turn, its reading in its description, and the
// gauge refreshed last is listed first: the order follows the set, and
// the set changes at every listing.
func (s *server) liveTools() []tool {
	s.mu.Lock()
	n := s.listings
	s.mu.Unlock()
	gauge := func(name, what string, at int) tool {
		return tool{
			def: obj{"name": name, "description": fmt.Sprintf("Reports the %s (as read at listing %d).", what, at), "inputSchema": obj{"type": "object"}},
			run: func(s *server, a obj) obj { return obj{"content": []any{text(what + ": nominal")}} },
		}
	}
	// The listings at which each was refreshed last: cpu at the odd ones,
	// disk at the even ones.
	cpu, disk := gauge("cpu-load", "CPU load", n-(n+1)%2), gauge("disk-usage", "disk usage", n-n%2)
	if n%2 == 1 {
		return []tool{cpu, disk}
	}
	return []tool{disk, cpu}
}

func num(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func (s *server) listTools(id any, p obj) {
	// A cursor's pages keep the listing that issued it.
	s.mu.Lock()
	if _, has := p["cursor"]; !has {
		s.listings++
	}
	odd := s.listings%2 == 0
	s.mu.Unlock()
	var defs []any
	for _, t := range s.tools() {
		defs = append(defs, t.def)
	}
	if s.f("tools-order-varies") && odd {
		// Every other listing reversed.
		slices.Reverse(defs)
	}
	s.page(id, p, "tools", defs, s.pageSize(3))
	if s.v("experimental-notification") {
		s.notify("notifications/com.example.wirecheck/heartbeat", obj{"alive": true})
	}
	if s.f("notification-other-revision") {
		// A 2025-11-25 notification, whatever the session's revision.
		s.notify("notifications/tasks/status", obj{"taskId": "t-1", "status": "working", "createdAt": "2025-11-25T00:00:00Z", "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": nil})
	}
}

func (s *server) callTool(id any, p obj) {
	name, _ := p["name"].(string)
	args, _ := p["arguments"].(obj)
	if args == nil {
		args = obj{}
	}
	if s.taskCall(id, p) || s.taskExtCall(id, p) {
		return
	}
	if name == "slow" && !s.ext.ownOnly() {
		s.slow(id, p, args)
		return
	}
	if name == longPoll && s.v("slow-tool") {
		s.poll(id)
		return
	}
	for _, t := range s.tools() {
		if t.def["name"] != name {
			continue
		}
		if name == "add" && s.v("tool-server-error") {
			s.fail(id, -32603, "Internal error: the adder backend is down")
			return
		}
		asks := name == "ask-client" && s.modern() && !s.f("modern-server-request")
		if e := s.askCapability(p); asks && e != nil {
			s.failWith(id, e)
			return
		}
		steps := 2
		if n, ok := num(args["steps"]); ok && n >= 1 && n <= 5 {
			steps = int(n)
		}
		s.progress(p, steps)
		if s.f("log-undeclared") {
			s.notify("notifications/message", obj{"level": "info", "data": "calling " + name})
		}
		if s.modern() {
			s.logFor(p, "info", "calling "+name)
		}
		var r obj
		if asks {
			var e *rpcError
			if r, e = s.askInput(p); e != nil {
				s.failWith(id, e)
				return
			}
		} else if t.ext != nil {
			var e *Error
			if r, e = t.ext(s.call(p, args, "")); e != nil {
				s.failWith(id, &rpcError{e.Code, e.Message, e.Data})
				return
			}
		} else {
			r = t.run(s, args)
		}
		if s.f("tool-result-bad") {
			r["content"] = []any{obj{"type": "txt", "text": "x"}}
		}
		s.result(id, r)
		if s.f("progress-after-response") {
			s.progress(p, 1)
		}
		return
	}
	if s.f("unknown-tool-result") {
		s.result(id, obj{"content": []any{text("no such tool")}, "isError": true})
		return
	}
	s.fail(id, -32602, "Unknown tool: "+name)
}

// longPoll is the tool of the variant slow-tool.
const longPoll = "long-poll"

// poll is a long poll on a feed that stays empty: it answers nothing
// until cancelled, and nothing then.
func (s *server) poll(id any) {
	stop := make(chan struct{})
	key := fmt.Sprint(id)
	s.mu.Lock()
	s.running[s.key(id)] = stop
	s.mu.Unlock()
	select {
	case <-stop:
		fmt.Fprintln(s.log, "tools/call "+key+" ("+longPoll+") cancelled: no answer")
	case <-s.stop:
	}
}

// slow reports the first of two progress steps, then works for
// durationMs unless the call is cancelled: a cancelled call is dropped
// without an answer. With the fault answer-cancelled the server notices
// the cancellation but finishes the work anyway, as a server that ignores
// cancellations does: it answers when its duration is up and it has
// answered the request read after the cancellation (the ping wirecheck
// sends behind it), so the answer is surely one sent after the
// cancellation was read, however late a loaded machine gets to it.
func (s *server) slow(id any, p obj, args obj) {
	d := 100 * time.Millisecond
	if n, ok := num(args["durationMs"]); ok && n >= 0 && n <= 1000 {
		d = time.Duration(n) * time.Millisecond
	}
	stop := make(chan struct{})
	key := fmt.Sprint(id)
	s.mu.Lock()
	s.running[s.key(id)] = stop
	s.mu.Unlock()
	s.progressStep(p, 1, 2)
	done := time.After(d)
	select {
	case <-stop:
		if !s.f("answer-cancelled") {
			fmt.Fprintln(s.log, "tools/call "+key+" cancelled: no answer")
			return
		}
		s.mu.Lock()
		after := s.afterCancel
		s.mu.Unlock()
		select {
		case <-after:
		case <-s.stop:
			return
		}
		<-done
	case <-done:
	case <-s.stop:
		return
	}
	s.mu.Lock()
	if s.running[s.key(id)] == stop {
		delete(s.running, s.key(id))
	}
	s.mu.Unlock()
	s.progressStep(p, 2, 2)
	s.result(id, obj{"content": []any{text(fmt.Sprintf("worked %v", d))}})
}

func (s *server) resources() []any {
	rs := []any{
		obj{"uri": "wirecheck://docs/readme", "name": "readme", "mimeType": "text/plain"},
		obj{"uri": "wirecheck://docs/logo", "name": "logo", "mimeType": "image/png"},
		obj{"uri": "wirecheck://items/1", "name": "item 1", "mimeType": "text/plain"},
	}
	if s.f("resources-list-bad") {
		delete(rs[0].(obj), "uri")
	}
	if s.v("big-resource") {
		rs = append(rs, obj{"uri": bigURI, "name": "big", "mimeType": "application/octet-stream"})
	}
	if s.ext.ownOnly() {
		return s.extResources()
	}
	rs = append(s.extResources(), rs...)
	if s.modern() {
		rs = append(rs, obj{"uri": askURI, "name": "client roots", "description": "Asks the client for its roots (a multi round-trip read), then lists them.", "mimeType": "text/plain"})
	}
	// Last: a client reading the first few resources meets the server's
	// own before the skill files.
	if s.skillsOn() && !s.v("skills-not-in-resources") {
		rs = append(rs, s.skillResources()...)
	}
	return rs
}

// bigURI is the resource of the variant big-resource.
const bigURI = "wirecheck://docs/big"

// bigBlob is that resource's content: 3.75 MB of bytes, 5,000,000 of
// base64, more than wirecheck's cap was before it became --max-frame.
var bigBlob = sync.OnceValue(func() string {
	b := make([]byte, 3_750_000)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return base64.StdEncoding.EncodeToString(b)
})

func (s *server) readResource(id any, p obj) {
	uri, _ := p["uri"].(string)
	if s.extRead(id, p, uri) || s.skillRead(id, uri) {
		return
	}
	if s.ext.ownOnly() {
		uri = "" // the reference server's own are hidden: not found
	}
	var c obj
	switch {
	case uri == "wirecheck://docs/readme":
		c = obj{"uri": uri, "mimeType": "text/plain", "text": "Read me."}
		if s.f("updated-undeclared") {
			s.notify("notifications/resources/updated", obj{"uri": uri})
		}
	case uri == askURI && s.modern():
		content, ask, e := s.askRoots(p)
		switch {
		case e != nil:
			s.failWith(id, e)
			return
		case ask != nil:
			s.result(id, ask)
			return
		}
		c = content
	case uri == bigURI && s.v("big-resource"):
		c = obj{"uri": uri, "mimeType": "application/octet-stream", "blob": bigBlob()}
	case uri == "wirecheck://docs/logo":
		c = obj{"uri": uri, "mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n"))}
		if s.f("blob-not-base64") {
			c["blob"] = "PNG bytes as they are, not base64"
		}
	case strings.HasPrefix(uri, "wirecheck://items/") && len(uri) > len("wirecheck://items/"):
		c = obj{"uri": uri, "mimeType": "text/plain", "text": "Item " + strings.TrimPrefix(uri, "wirecheck://items/")}
	default:
		code := -32002
		if s.revHas(revtable.ResourceNotFoundInvalidParams) {
			code = -32602 // 2026-07-28 changed the code
		}
		if s.f("unknown-resource-internal") {
			code = -32603
		}
		s.fail(id, code, "Resource not found")
		return
	}
	if s.f("read-bad") {
		delete(c, "uri")
	}
	s.result(id, s.cacheable(obj{"contents": []any{c}}))
}

func (s *server) prompts() []any {
	ps := []any{
		obj{"name": "greet", "description": "Greets someone.", "arguments": []any{obj{"name": "name", "description": "who", "required": true}}},
		obj{"name": "plain", "description": "A prompt without arguments."},
	}
	if s.f("prompts-list-bad") {
		delete(ps[1].(obj), "name")
	}
	if s.ext.ownOnly() {
		return s.extPrompts()
	}
	ps = append(s.extPrompts(), ps...)
	if s.v("prompt-embeds-argument") {
		ps = append(ps, obj{"name": "embed", "description": "Embeds a resource in the conversation.",
			"arguments": []any{obj{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}}})
	}
	if s.modern() {
		ps = append(ps, obj{"name": "ask", "description": "Asks the client for a name (a multi round-trip request), then greets it."})
	}
	return ps
}

func (s *server) getPrompt(id any, p obj) {
	name, _ := p["name"].(string)
	args, _ := p["arguments"].(obj)
	if s.f("prompt-get-internal") {
		s.fail(id, -32603, "Internal error")
		return
	}
	if s.extPrompt(id, p, name, args) {
		return
	}
	if s.ext.ownOnly() {
		s.fail(id, -32602, "Invalid params: unknown prompt "+name)
		return
	}
	role := "user"
	if s.f("prompt-get-bad") {
		role = "robot"
	}
	switch name {
	case "greet":
		who, _ := args["name"].(string)
		if who == "" {
			s.fail(id, -32602, "Invalid params: missing required argument name")
			return
		}
		s.result(id, obj{"description": "a greeting", "messages": []any{obj{"role": role, "content": text("Say hello to " + who)}}})
	case "plain":
		s.result(id, obj{"messages": []any{obj{"role": role, "content": text("Hello.")}}})
	case "embed":
		// Variant prompt-embeds-argument: the argument, as given, is the
		// embedded resource's uri.
		uri, _ := args["resourceUri"].(string)
		if !s.v("prompt-embeds-argument") || uri == "" {
			s.fail(id, -32602, "Invalid params: unknown prompt "+name+" or no resourceUri")
			return
		}
		s.result(id, obj{"messages": []any{
			obj{"role": role, "content": obj{"type": "resource", "resource": obj{"uri": uri, "mimeType": "text/plain", "text": "Embedded resource content."}}},
			obj{"role": role, "content": text("Please process the embedded resource above.")}}})
	case "ask":
		if !s.modern() {
			s.fail(id, -32602, "Invalid params: unknown prompt "+name)
			return
		}
		r, e := s.askPrompt(p)
		if e != nil {
			s.failWith(id, e)
			return
		}
		s.result(id, r)
	default:
		code := -32602
		if s.f("unknown-prompt-internal") {
			code = -32603
		}
		s.fail(id, code, "Invalid params: unknown prompt "+name)
	}
}

func (s *server) complete(id any, p obj) {
	arg, _ := p["argument"].(obj)
	prefix, _ := arg["value"].(string)
	ref, _ := p["ref"].(obj)
	var vals []any
	for _, n := range []string{"Ada", "Alan", "Grace"} {
		// The embed prompt's resourceUri has no completions: it is any URI.
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(prefix)) && ref["name"] != "embed" {
			vals = append(vals, n)
		}
	}
	if vals == nil {
		vals = []any{}
	}
	var c any = obj{"values": vals, "total": len(vals), "hasMore": false}
	if s.f("completion-bad") {
		c = obj{"values": "Ada"}
	}
	s.result(id, obj{"completion": c})
}
