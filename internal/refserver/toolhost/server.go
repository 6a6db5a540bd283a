// Package toolhost is the reference tool host of the tool-host protocol
// (`wirecheck serve tool-host`): it implements every required and optional
// method of v1 with a handful of tools (one streams parts, one fails, one
// throws, one keeps a counter in the state) and passes its own suite at
// 100%. Each fault named in specs/tool-host.yaml breaks one rule on purpose.
//
// It reads one request per line and answers in order; a streaming tool's
// events are written before its response. It logs to stderr only, answers
// every line it cannot use with an ok:false error (carrying the request id
// when one can be read) and keeps serving, and exits 0 when stdin ends.
//
// init's config may carry "unimplemented": a list of optional method names
// the host then answers as unknown methods, so the harness's "skip when not
// implemented" path can be exercised against a known host.
//
// Each variant named in specs/tool-host.yaml is a legal alternative a
// correct host may choose where the document is silent or permissive
// (lenient params, id-less requests served, CRLF, slow start and exit,
// answers out of order, optional methods left out, extra fields, events of
// other types); the suite must pass every one at --level should.
package toolhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/ndjson"
)

// Version is the protocol version the host speaks.
const Version = 1

// Methods the host implements.
var (
	Required = []string{"init", "get_tool_schemas", "execute_tool"}
	Optional = []string{"get_config_schema", "get_ui_elements", "get_tags", "required_tags",
		"format_tool_result", "format_tool_call_preview", "to_display_format"}
)

// How long the slow-start and slow-exit variants take: longer than a
// quick host, well inside any plausible wait.
const (
	SlowStart = 1500 * time.Millisecond
	SlowExit  = 1500 * time.Millisecond
	// SlowTool is how long each listed tool runs under the slow-tool
	// variant: longer than the 1 s --timeout the variant table runs with.
	SlowTool = 1500 * time.Millisecond
)

// Server is one host instance; Faults holds the faults switched on.
type Server struct {
	Faults map[string]bool
	// Variants holds the legal alternatives switched on.
	Variants map[string]bool

	in  *bufio.Reader
	out *bufio.Writer
	log io.Writer
	// off lists optional methods init's config switched off.
	off map[string]bool
	// held keeps back the lines of an execute_tool answer (variant
	// out-of-order) until the request after it is answered; capturing
	// routes lines there while the tool runs.
	held      [][]byte
	capturing bool
	stopped   bool
	// method is the method of the request being answered.
	method string
}

// Serve runs a host with the named faults until in ends and returns the
// exit code.
func Serve(o refserver.Options) int {
	s := &Server{Faults: refserver.Set(o.Faults), Variants: refserver.Set(o.Variants)}
	return s.Serve(o.In, o.Out, o.Log)
}

// Serve runs the protocol on in/out until in ends, and returns the exit code.
func (s *Server) Serve(in io.Reader, out, log io.Writer) int {
	s.out = bufio.NewWriter(out)
	s.log = log
	if s.Faults == nil {
		s.Faults = map[string]bool{}
	}
	if s.Variants == nil {
		s.Variants = map[string]bool{}
	}
	s.off = map[string]bool{}
	if s.Variants["no-optional"] || s.Variants["vague-decline"] {
		for _, m := range Optional {
			s.off[m] = true
		}
	}
	fmt.Fprintf(log, "tool-host reference: %d tools, faults %v, variants %v\n", len(tools), on(s.Faults), on(s.Variants))
	if s.Variants["slow-start"] {
		// A host that loads its tools before reading anything.
		time.Sleep(SlowStart)
	}
	// ndjson.Loop reads through this reader itself (bufio.NewReaderSize
	// returns a large enough *bufio.Reader unchanged), so the out-of-order
	// variant can see whether the next request has already arrived.
	s.in = bufio.NewReaderSize(in, 64<<10)
	keep := func(line []byte, _ bool) bool { return len(line) > 0 }
	code := ndjson.Loop(s.in, keep, s.handleLine, func() { s.out.Flush() }, s.Faults["ignore-eof"])
	s.release(s.held)
	s.out.Flush()
	if !s.stopped && s.Variants["slow-exit"] {
		// A host that tears its tools down before exiting.
		time.Sleep(SlowExit)
	}
	if !s.stopped && s.Variants["eof-exit-1"] {
		fmt.Fprintln(log, "tool-host reference: stdin closed")
		return 1
	}
	return code
}

// handleLine answers one line; an execute_tool answer held back by the
// out-of-order variant goes out after this line's answer.
func (s *Server) handleLine(line []byte, tooLong bool) (int, bool) {
	prev := s.held
	s.held = nil
	code, stop := s.handle(line, tooLong)
	s.release(prev)
	s.stopped = stop
	return code, stop
}

func (s *Server) release(lines [][]byte) {
	for _, l := range lines {
		s.line(l)
	}
}

// pipelined reports whether another request line has already arrived, so
// holding an answer back cannot leave the client waiting for it.
func (s *Server) pipelined() bool {
	b, _ := s.in.Peek(s.in.Buffered())
	return len(bytes.TrimSpace(b)) > 0
}

// request is one readable request line.
type request struct {
	id     any
	method string
	params map[string]any
}

// hostError is an ok:false answer: Type names the kind of failure the way a
// Node host's error class would.
type hostError struct {
	Type, Detail, Stack string
}

func (e *hostError) Error() string { return e.Type + ": " + e.Detail }

func invalidParams(format string, args ...any) *hostError {
	return &hostError{Type: "InvalidParams", Detail: fmt.Sprintf(format, args...)}
}

func (s *Server) handle(line []byte, tooLong bool) (int, bool) {
	if s.Faults["exit-long-line"] && (tooLong || len(line) > 64<<10) {
		fmt.Fprintf(s.log, "fault exit-long-line: exiting on a line of %d bytes\n", len(line))
		return 7, true
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 && !tooLong {
		// Blank lines carry no request; NDJSON readers skip them.
		return 0, false
	}
	v, err := ndjson.Decode(trimmed)
	if tooLong || err != nil {
		if s.Faults["malformed-silent"] {
			return 0, false
		}
		detail := "the line is not JSON"
		if tooLong {
			detail = fmt.Sprintf("the line is longer than %d bytes", ndjson.MaxLine)
		} else {
			detail += ": " + err.Error()
		}
		s.fail(nil, &hostError{Type: "ParseError", Detail: detail})
		return 0, false
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		if s.Faults["exit-non-object"] {
			fmt.Fprintln(s.log, "fault exit-non-object: exiting on a JSON value that is not an object")
			return 5, true
		}
		s.fail(nil, &hostError{Type: "InvalidRequest", Detail: "a request must be a JSON object"})
		return 0, false
	}
	// The id is echoed whenever it can be read, even when the rest of the
	// request is unusable, so the client can tell which call failed.
	id := obj["id"]
	switch id.(type) {
	case string, json.Number:
	default:
		if !s.Variants["serve-no-id"] {
			s.fail(nil, &hostError{Type: "InvalidRequest", Detail: "a request needs an id (a string)"})
			return 0, false
		}
		// Served all the same, the id echoed as given (null when none).
	}
	if ver, _ := obj["v"].(json.Number); ver.String() != "1" {
		s.fail(id, &hostError{Type: "InvalidRequest", Detail: fmt.Sprintf("unsupported protocol version %v (this host speaks v %d)", show(obj["v"]), Version)})
		return 0, false
	}
	method, isStr := obj["method"].(string)
	if !isStr || method == "" {
		s.fail(id, &hostError{Type: "InvalidRequest", Detail: "a request needs a method (a string)"})
		return 0, false
	}
	raw, has := obj["params"]
	params, isObj := raw.(map[string]any)
	if !isObj {
		missing := !has || raw == nil
		switch {
		case s.Faults["bad-params-silent"]:
			fmt.Fprintf(s.log, "fault bad-params-silent: not answering %s whose params are %s\n", method, kind(raw))
			return 0, false
		case missing && (s.Variants["params-default"] || s.lenient()):
		case !missing && s.lenient():
		default:
			s.fail(id, invalidParams("params must be a JSON object, not %s", kind(raw)))
			return 0, false
		}
		params = map[string]any{}
	}
	return s.dispatch(request{id: id, method: method, params: params})
}

// lenient is the lenient-params variant: fields of the wrong type are
// ignored, as a JavaScript host that destructures its params would.
func (s *Server) lenient() bool { return s.Variants["lenient-params"] }

func (s *Server) dispatch(req request) (int, bool) {
	known := contains(Required, req.method) || contains(Optional, req.method)
	if !known && s.Faults["unknown-method-silent"] {
		fmt.Fprintf(s.log, "fault unknown-method-silent: not answering %q\n", req.method)
		return 0, false
	}
	if !known && s.Faults["unknown-method-as-init"] {
		req.method, known = "init", true
	}
	s.method = req.method
	if !known || s.off[req.method] || (req.method == "get_tool_schemas" && s.Faults["no-get-tool-schemas"]) {
		s.unknownMethod(req)
		return 0, false
	}
	state, err := s.stateOf(req)
	if err != nil {
		s.fail(req.id, err)
		return 0, false
	}
	var value any
	switch req.method {
	case "init":
		value, state, err = s.initHost(req)
	case "get_tool_schemas":
		value = s.schemas()
	case "execute_tool":
		return s.execute(req, state)
	case "get_config_schema":
		value = s.configSchema()
	case "get_ui_elements":
		value = s.uiElements()
	case "get_tags":
		value, err = s.tags(req)
	case "required_tags":
		value = s.requiredTags()
	case "format_tool_result":
		value, err = s.formatResult(req)
	case "format_tool_call_preview":
		value, err = s.preview(req)
	case "to_display_format":
		value, err = s.display(req)
	}
	if err != nil {
		s.fail(req.id, err)
		return 0, false
	}
	if req.method == "get_tool_schemas" && s.Faults["json-log-stdout"] {
		// Before the answer, so the client has read it by the time the
		// answer arrives and it is judged with the call that caused it.
		s.write(map[string]any{"level": "info", "msg": "listing tools"})
	}
	s.ok(req.id, value, state)
	if req.method == "get_tool_schemas" && s.Faults["double-answer"] {
		s.ok(req.id, value, state)
	}
	return 0, false
}

func (s *Server) unknownMethod(req request) {
	if s.Variants["vague-decline"] {
		s.fail(req.id, &hostError{Type: "Error", Detail: fmt.Sprintf("no handler for %s", req.method)})
		return
	}
	s.fail(req.id, &hostError{Type: "MethodNotFound", Detail: fmt.Sprintf("Unknown method '%s'", req.method)})
}

// stateOf reads params.state and returns the state to answer with: the
// round-tripped state with its revision bumped, or nil when the request
// carried none (init makes its own).
func (s *Server) stateOf(req request) (map[string]any, error) {
	raw, has := req.params["state"]
	if !has || s.lenient() && raw == nil {
		return nil, nil
	}
	st, isObj := raw.(map[string]any)
	if !isObj {
		if s.lenient() {
			return nil, nil
		}
		return nil, invalidParams("params.state must be an object, not %s", kind(raw))
	}
	if _, issued := st["rev"]; issued && s.Faults["reject-state"] {
		return nil, &hostError{Type: "StateError", Detail: "unknown state revision"}
	}
	next := make(map[string]any, len(st)+1)
	for k, v := range st {
		next[k] = v
	}
	rev, _ := number(st["rev"])
	next["rev"] = rev + 1
	return next, nil
}

func (s *Server) initHost(req request) (any, map[string]any, error) {
	if s.Faults["log-stdout"] {
		s.line([]byte("tool-host: initialising tools"))
	}
	config := map[string]any{}
	if raw, has := req.params["config"]; has && raw != nil {
		c, isObj := raw.(map[string]any)
		if !isObj && !s.lenient() {
			return nil, nil, invalidParams("params.config must be an object, not %s", kind(raw))
		}
		if isObj {
			config = c
		}
	}
	if g, _ := config["greeting"].(string); g == "" && s.Variants["config-required"] {
		return nil, nil, invalidParams("config.greeting is required (a non-empty string)")
	}
	if names, isList := config["unimplemented"].([]any); isList {
		for _, n := range names {
			if name, _ := n.(string); contains(Optional, name) {
				s.off[name] = true
			}
		}
	}
	state := map[string]any{"rev": 1, "count": 0, "config": config}
	if s.Faults["init-no-state"] {
		state = nil
	}
	return map[string]any{"tools": len(tools)}, state, nil
}

func (s *Server) configSchema() any {
	if s.Faults["config-schema-list"] {
		return []any{map[string]any{"name": "greeting", "type": "string"}}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"greeting":      map[string]any{"type": "string", "description": "prefix echo adds to its text"},
			"unimplemented": map[string]any{"type": "array", "items": map[string]any{"enum": anys(Optional)}},
		},
		"additionalProperties": false,
	}
}

func (s *Server) uiElements() any {
	elems := []any{
		map[string]any{"type": "badge", "label": "reference host"},
		map[string]any{"type": "toggle", "key": "verbose", "label": "Verbose output", "default": false},
	}
	if s.Faults["ui-elements-object"] {
		return map[string]any{"elements": elems}
	}
	return elems
}

func (s *Server) tags(req request) (any, error) {
	if raw, has := req.params["config"]; has {
		if _, isObj := raw.(map[string]any); !isObj && !s.lenient() {
			return nil, invalidParams("params.config must be an object, not %s", kind(raw))
		}
	}
	if raw, has := req.params["models"]; has {
		if _, isList := raw.([]any); !isList && !s.lenient() {
			return nil, invalidParams("params.models must be a list, not %s", kind(raw))
		}
	}
	if s.Faults["tags-numbers"] {
		return []any{1, 2}, nil
	}
	return []any{"reference", "testing"}, nil
}

func (s *Server) requiredTags() any {
	if s.Faults["required-tags-string"] {
		return "reference"
	}
	return []any{"reference"}
}

func (s *Server) formatResult(req request) (any, error) {
	res, isObj := req.params["result"].(map[string]any)
	if !isObj {
		if !s.lenient() {
			return nil, invalidParams("params.result must be an object, not %s", kind(req.params["result"]))
		}
		res = map[string]any{}
	}
	if s.Faults["format-result-number"] {
		return 42, nil
	}
	var text string
	structured := false
	if ok, _ := res["success"].(bool); !ok {
		text = fmt.Sprintf("Error: %v", res["error"])
	} else {
		switch r := res["result"].(type) {
		case string:
			text = r
		case map[string]any, []any:
			structured = true
			text = show(r)
		default:
			text = show(r)
		}
	}
	if s.Faults["format-result-object"] {
		return map[string]any{"text": text}, nil
	}
	if !structured {
		return text, nil
	}
	// Structured results opt into provider-native output, the way a host
	// that wants the model to see JSON content parts would.
	env := map[string]any{
		"type":    "provider_native_tool_result",
		"format":  "openai.chat_completions",
		"content": []any{map[string]any{"type": "text", "text": text}},
	}
	switch {
	case s.Faults["native-no-format"]:
		delete(env, "format")
	case s.Variants["native-other-format"]:
		env["format"] = "anthropic.messages"
	}
	return env, nil
}

func (s *Server) preview(req request) (any, error) {
	name, isStr := req.params["tool_name"].(string)
	if !isStr && !s.lenient() {
		return nil, invalidParams("params.tool_name must be a string, not %s", kind(req.params["tool_name"]))
	}
	args, isObj := req.params["arguments"].(map[string]any)
	if raw, has := req.params["arguments"]; has && !isObj && !s.lenient() {
		return nil, invalidParams("params.arguments must be an object, not %s", kind(raw))
	}
	text := fmt.Sprintf("%s(%s)", name, show(args))
	if s.Faults["preview-object"] {
		return map[string]any{"text": text}, nil
	}
	return text, nil
}

func (s *Server) display(req request) (any, error) {
	text, isStr := req.params["text"].(string)
	if !isStr && !s.lenient() {
		return nil, invalidParams("params.text must be a string, not %s", kind(req.params["text"]))
	}
	if s.Faults["display-string"] {
		return text, nil
	}
	return map[string]any{"type": "markdown", "content": text}, nil
}

func (s *Server) ok(id, value any, state map[string]any) {
	result := map[string]any{"value": value}
	if s.Faults["state-init-only"] && s.method != "init" {
		state = nil
	}
	if state != nil && !s.Faults["no-state"] {
		result["state"] = state
	}
	if s.Variants["extra-fields"] {
		result["meta"] = map[string]any{"host": "wirecheck reference", "elapsed_ms": 0}
	}
	s.respond(map[string]any{"v": Version, "id": id, "ok": true, "result": result})
}

func (s *Server) fail(id any, err error) {
	var he *hostError
	if !errors.As(err, &he) {
		he = &hostError{Type: "Error", Detail: err.Error()}
	}
	e := map[string]any{"type": he.Type, "detail": he.Detail}
	if he.Stack != "" {
		e["stack"] = he.Stack
	}
	if s.Variants["extra-fields"] {
		e["code"] = "E_" + he.Type
	}
	if s.Faults["error-message"] {
		e = map[string]any{"message": he.Detail}
	}
	s.respond(map[string]any{"v": Version, "id": id, "ok": false, "error": e})
}

func (s *Server) respond(m map[string]any) {
	if s.Faults["wrong-id"] && m["id"] != nil {
		m["id"] = fmt.Sprint(m["id"]) + "-x"
	}
	if s.Faults["no-version"] {
		delete(m, "v")
	}
	if m["id"] == nil && s.Variants["omit-null-id"] {
		// As JSON.stringify drops an undefined id.
		delete(m, "id")
	}
	if s.Variants["extra-fields"] {
		m["host"] = "wirecheck-reference"
	}
	s.write(m)
}

func (s *Server) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(s.log, "cannot encode a message: %v\n", err)
		return
	}
	s.line(b)
}

// line writes one line and flushes it, so a streamed part reaches the
// client before the tool goes on.
func (s *Server) line(b []byte) {
	if s.capturing {
		s.held = append(s.held, b)
		return
	}
	s.out.Write(b)
	if s.Variants["crlf"] {
		s.out.WriteByte('\r')
	}
	s.out.WriteByte('\n')
	s.out.Flush()
}

func on(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null (or missing)"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func number(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
