// Package sondeserve is the reference server of the sonde-serve protocol
// (`wirecheck serve sonde-serve`): a complete implementation with a small
// built-in tool catalogue, extended by a sondage.manifest.json in its working
// directory, that passes its own suite at 100%. Each fault named in
// specs/sonde-serve.yaml breaks one rule on purpose.
//
// Manifest format (sondage.manifest.json):
//
//	{"tools": [{"name": "deploy", "description": "Deploy project",
//	            "inputSchema": {"type": "object"},
//	            "output": {"url": "…"},     // returned as result.output
//	            "error": "quota exceeded"}]} // or: fail at runtime with this message
package sondeserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/ndjson"
)

// ProtocolVersion and APIVersion are what the ready line announces.
const (
	ProtocolVersion = "1.0.0"
	APIVersion      = "1.0.0"
	// ManifestFile is read from the working directory when present.
	ManifestFile = "sondage.manifest.json"
)

// Tool is one entry of the catalogue.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       string          `json:"error,omitempty"`
	run         func(input map[string]any) (any, error)
}

// Builtin is the catalogue every instance serves.
func Builtin() []Tool {
	return []Tool{
		{
			Name: "echo", Description: "Return the text it is given",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":256}},"required":["text"],"additionalProperties":false}`),
			run: func(in map[string]any) (any, error) {
				return map[string]any{"text": in["text"]}, nil
			},
		},
		{
			Name: "deploy", Description: "Deploy project",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"target":{"enum":["preview","production"]},"dryRun":{"type":"boolean"}},"required":["target"],"additionalProperties":false}`),
			run: func(in map[string]any) (any, error) {
				t, _ := in["target"].(string)
				if t == "" {
					return nil, errors.New("deploy needs a target")
				}
				return map[string]any{"target": t, "url": "https://" + t + ".example.invalid/"}, nil
			},
		},
		{
			Name: "fail", Description: "Always fails at runtime (for error paths)",
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`),
			run: func(map[string]any) (any, error) {
				return nil, errors.New("simulated runtime failure")
			},
		},
	}
}

// LoadManifest reads the manifest in dir; a missing file is no error.
func LoadManifest(dir string) ([]Tool, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m struct {
		Tools []Tool `json:"tools"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	for i, t := range m.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("%s: tool %d has no name", ManifestFile, i+1)
		}
		if len(t.InputSchema) == 0 {
			m.Tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	return m.Tools, nil
}

// SlowStep is how long the slow-start and slow-exit variants take: slower
// than any healthy server, well inside the defaults a plausible server
// meets.
const SlowStep = 1500 * time.Millisecond

// Server is one instance; Faults holds the names of the faults switched on.
type Server struct {
	Tools  []Tool
	Faults map[string]bool
	// Variants holds the legal alternatives switched on.
	Variants map[string]bool
	out      *bufio.Writer
	log      io.Writer
	muted    bool
	// lastEmpty: the line before was empty (answer-empty-late waits
	// once per run of them).
	lastEmpty bool
}

// Serve runs the built-in tools and those of the manifest in o.Dir, with
// the named faults and variants, until o.In ends, and returns the exit
// code (2 when the manifest is bad).
func Serve(o refserver.Options) int {
	extra, err := LoadManifest(o.Dir)
	if err != nil {
		fmt.Fprintln(o.Log, "sonde-serve:", err)
		return 2
	}
	s := &Server{Tools: append(Builtin(), extra...), Faults: refserver.Set(o.Faults), Variants: refserver.Set(o.Variants)}
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
	fmt.Fprintf(log, "sonde-serve reference: %d tools, faults %v, variants %v\n", len(s.Tools), keys(s.Faults), keys(s.Variants))
	if s.Variants["slow-start"] {
		time.Sleep(SlowStep)
	}
	if s.Faults["log-stdout"] {
		s.line([]byte("starting sonde serve (log line on stdout)"))
	}
	if !s.Faults["no-ready"] {
		ready := map[string]any{"ok": true, "apiVersion": APIVersion, "protocolVersion": ProtocolVersion, "command": "serve", "status": "ready"}
		if s.Faults["ready-fields"] {
			delete(ready, "apiVersion")
			delete(ready, "command")
		}
		s.write(ready)
	}
	s.out.Flush()
	// Blank lines are handled too (the answer-empty fault answers them).
	keep := func(line []byte, eof bool) bool { return len(line) > 0 || !eof }
	code := ndjson.Loop(in, keep, s.handle, func() { s.out.Flush() }, s.Faults["ignore-eof"])
	if s.Variants["slow-exit"] && code == 0 {
		fmt.Fprintln(log, "variant slow-exit: winding down before exiting")
		time.Sleep(SlowStep)
	}
	return code
}

func (s *Server) handle(line []byte, tooLong bool) (int, bool) {
	if s.Faults["exit-long-line"] && (tooLong || len(line) > 64<<10) {
		fmt.Fprintln(s.log, "fault exit-long-line: exiting on a long line")
		return 3, true
	}
	if s.Faults["exit-non-ascii"] {
		for _, c := range line {
			if c >= 0x80 {
				fmt.Fprintln(s.log, "fault exit-non-ascii: exiting on non-ASCII input")
				return 4, true
			}
		}
	}
	if s.muted {
		return 0, false
	}
	trimmed := bytes.TrimSpace(line)
	empty := len(trimmed) == 0 && !tooLong
	if !empty {
		s.lastEmpty = false
	}
	if empty && len(line) > 0 && s.Variants["answer-whitespace"] {
		// A reader that skips only "" parses a line of spaces, and
		// answers it as input that is not JSON.
		s.fail(nil, "Invalid JSON request")
		return 0, false
	}
	if empty {
		switch {
		case s.Faults["answer-empty"]:
			s.fail(nil, "Invalid JSON request")
		case s.Faults["answer-empty-late"]:
			// Slower than any window a client would wait for silence,
			// but in order: the answer still comes before the next
			// request's. The first of a run of empty lines waits.
			if !s.lastEmpty {
				time.Sleep(SlowStep)
			}
			s.fail(nil, "Invalid JSON request")
		}
		s.lastEmpty = true
		return 0, false
	}
	v, err := ndjson.Decode(trimmed)
	if tooLong || err != nil {
		if s.Faults["mute-after-malformed"] {
			s.muted = true
		}
		if s.Faults["malformed-silent"] {
			return 0, false
		}
		if s.Faults["malformed-message"] {
			s.fail(nil, "Unexpected end of JSON input")
			return 0, false
		}
		s.fail(nil, "Invalid JSON request")
		return 0, false
	}
	req, isObj := v.(map[string]any)
	if !isObj {
		if s.Faults["exit-non-object"] {
			fmt.Fprintln(s.log, "fault exit-non-object: exiting on a JSON value that is not an object")
			return 5, true
		}
		if s.Variants["other-messages"] {
			s.failWith(noID, "Bad request: a request is a JSON object", map[string]any{"code": "BAD_REQUEST"})
		} else {
			s.fail(noID, "Invalid JSON request: expected an object")
		}
		return 0, false
	}
	id, hasID := req["id"]
	given := hasID
	switch id.(type) {
	case string, json.Number:
	default:
		hasID = false
	}
	if !hasID {
		switch {
		case s.Faults["no-id-made-up"]:
			// Pretends the request had an id it never carried.
			id = "0"
		case given && s.Variants["odd-ids-echoed"]:
			// Serves it, echoing the id exactly as it was given.
		case s.Variants["serve-no-id"]:
			id = nil
		default:
			s.fail(noID, "Invalid request: missing id")
			return 0, false
		}
	}
	if _, isNum := id.(json.Number); isNum && s.Faults["numeric-id-ignored"] {
		return 0, false
	}
	method, _ := req["method"].(string)
	params, _ := req["params"].(map[string]any)
	switch method {
	case "tools/list":
		s.list(id)
		if s.Faults["double-answer"] {
			s.list(id)
		}
		if s.Faults["json-log"] {
			s.write(map[string]any{"level": "info", "msg": "listed tools"})
		}
	case "tools/call":
		return s.call(id, params)
	default:
		switch {
		case s.Faults["unknown-as-call"]:
			// Runs whatever it does not know as a tool call.
			return s.call(id, params)
		case s.Variants["invalid-null-id"]:
			s.fail(noID, "Invalid request: unknown method '"+method+"'")
		case s.Variants["other-messages"]:
			s.failWith(id, "Method not found: "+method, map[string]any{"code": "METHOD_NOT_FOUND", "methods": []string{"tools/list", "tools/call"}})
		default:
			s.fail(id, fmt.Sprintf("Unknown method '%s'", method))
		}
	}
	return 0, false
}

// noID stands for the id of a request that had none to read: null, or, in
// the no-id-key variant, no id key at all.
var noID any = &struct{ none bool }{}

func (s *Server) list(id any) {
	tools := make([]map[string]any, 0, len(s.Tools))
	for _, t := range s.Tools {
		m := map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema}
		if s.Faults["list-no-schema"] {
			delete(m, "inputSchema")
		}
		if s.Faults["input-schema-not-object"] && t.Name == "echo" {
			m["inputSchema"] = json.RawMessage(`{"type":"string"}`)
		}
		if s.Variants["extra-fields"] {
			m["annotations"] = map[string]any{"readOnlyHint": t.Name == "echo"}
		}
		tools = append(tools, m)
	}
	s.ok(id, map[string]any{"tools": tools})
}

func (s *Server) call(id any, params map[string]any) (int, bool) {
	if s.Faults["drop-call"] {
		return 0, false
	}
	name, _ := params["name"].(string)
	if name == "" {
		if s.Faults["missing-name-message"] {
			s.fail(id, "Unknown tool 'undefined'")
		} else {
			s.fail(id, "Missing tool name in tools/call request")
		}
		return 0, false
	}
	var tool *Tool
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			tool = &s.Tools[i]
		}
	}
	if tool == nil {
		if s.Faults["unknown-tool-ok"] {
			s.ok(id, map[string]any{"tool": name, "output": map[string]any{}})
		} else {
			s.fail(id, fmt.Sprintf("Unknown tool '%s'", name))
		}
		return 0, false
	}
	input, _ := params["input"].(map[string]any)
	out, err := tool.invoke(input)
	if err != nil && s.Variants["failure-in-output"] {
		// The tool ran and its run failed: the variant reports the
		// failure as the tool's output, as a command runner reports an
		// exit status.
		fmt.Fprintf(s.log, "tool %s failed: %v\n", name, err)
		out, err = map[string]any{"exitCode": 1, "stderr": err.Error()}, nil
	}
	if err != nil {
		fmt.Fprintf(s.log, "tool %s failed: %v\n", name, err)
		if s.Faults["crash-on-error"] {
			return 6, true
		}
		if s.Faults["runtime-null-id"] {
			id = nil
		}
		s.fail(id, err.Error())
		return 0, false
	}
	if s.Faults["call-wrong-tool"] {
		name = name + "-other"
	}
	result := map[string]any{"tool": name, "output": out}
	if s.Faults["invalid-utf8"] {
		result["output"] = "\xff\xfe broken"
	}
	s.ok(id, result)
	return 0, false
}

func (t *Tool) invoke(input map[string]any) (any, error) {
	if t.run != nil {
		return t.run(input)
	}
	if t.Error != "" {
		return nil, errors.New(t.Error)
	}
	if len(t.Output) > 0 {
		return t.Output, nil
	}
	return map[string]any{}, nil
}

func (s *Server) ok(id, result any) {
	if r, isMap := result.(map[string]any); isMap && s.Variants["extra-fields"] {
		r["durationMs"] = 0
	}
	s.respond(map[string]any{"id": id, "ok": true, "protocolVersion": ProtocolVersion, "result": result})
}

func (s *Server) fail(id any, msg string) { s.failWith(id, msg, nil) }

// failWith answers ok false; extra adds fields to the error object.
func (s *Server) failWith(id any, msg string, extra map[string]any) {
	e := map[string]any{"message": msg}
	for k, v := range extra {
		e[k] = v
	}
	s.respond(map[string]any{"id": id, "ok": false, "protocolVersion": ProtocolVersion, "error": e})
}

func (s *Server) respond(m map[string]any) {
	if m["id"] == noID {
		m["id"] = nil
		if s.Variants["no-id-key"] {
			delete(m, "id")
		}
		if e, isMap := m["error"].(map[string]any); isMap && s.Faults["invalid-error-string"] {
			m["error"] = e["message"]
		}
	}
	if s.Variants["extra-fields"] {
		m["server"] = "wirecheck-reference"
	}
	if s.Faults["wrong-id"] && m["id"] != nil {
		m["id"] = fmt.Sprint(m["id"]) + "-x"
	}
	if n, isNum := m["id"].(json.Number); isNum && s.Faults["id-as-string"] {
		m["id"] = n.String()
	}
	if s.Faults["ok-string"] {
		m["ok"] = fmt.Sprint(m["ok"])
	}
	if s.Faults["no-protocol-version"] {
		if r, isMap := m["result"].(map[string]any); isMap && r["tool"] != nil {
			delete(m, "protocolVersion")
		}
	}
	s.write(m)
}

func (s *Server) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(s.log, "cannot encode response: %v\n", err)
		return
	}
	if s.Faults["invalid-utf8"] {
		// encoding/json replaces bad UTF-8; put the raw byte back.
		b = bytes.ReplaceAll(b, []byte(`\ufffd\ufffd`), []byte("\xff\xfe"))
	}
	s.line(b)
}

func (s *Server) line(b []byte) {
	if s.Variants["ascii-escaped"] {
		b = asciiEscape(b)
	}
	if s.Variants["spaced-json"] {
		b = spaced(b)
	}
	s.out.Write(b)
	if s.Variants["crlf"] {
		s.out.WriteByte('\r')
	}
	s.out.WriteByte('\n')
}

// asciiEscape writes every character outside ASCII in a JSON text as a
// \u escape (a surrogate pair beyond the BMP): the same JSON value.
func asciiEscape(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, "\\u%04x\\u%04x", 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, "\\u%04x", r)
		}
	}
	return out.Bytes()
}

// spaced puts a space after every ':' and ',' outside strings, as many
// JSON writers do: the same JSON value, still one line.
func spaced(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	inStr, esc := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k, on := range m {
		if on {
			out = append(out, k)
		}
	}
	return out
}
