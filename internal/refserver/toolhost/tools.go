package toolhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// tool is one entry of the reference catalogue. run returns the tool's
// result, a *softFailure for {success: false}, or a *hostError for a tool
// that throws (answered ok:false, as a Node host answers an exception).
type tool struct {
	name, description string
	parameters        string
	run               func(c *call) (any, error)
}

// call is one execution: its arguments, the state it may update, and the
// emit callback a streaming tool writes its parts through.
type call struct {
	args  map[string]any
	state map[string]any
	emit  func(payload any)
}

// softFailure is a tool failure reported as {success: false, error}.
type softFailure struct{ msg string }

func (f *softFailure) Error() string { return f.msg }

var tools = []tool{
	{
		name: "echo", description: "Return the text it is given, with the configured greeting",
		parameters: `{"type":"object","properties":{"text":{"type":"string","maxLength":200}},"required":["text"],"additionalProperties":false}`,
		run: func(c *call) (any, error) {
			text, isStr := c.args["text"].(string)
			if !isStr {
				return nil, &softFailure{"echo needs a string text"}
			}
			if cfg, _ := c.state["config"].(map[string]any); cfg != nil {
				if g, _ := cfg["greeting"].(string); g != "" {
					text = g + " " + text
				}
			}
			return map[string]any{"text": text, "length": utf8.RuneCountInString(text)}, nil
		},
	},
	{
		name: "stream", description: "Stream the text back in parts, then answer it whole",
		parameters: `{"type":"object","properties":{"text":{"type":"string","maxLength":200},"parts":{"type":"integer","minimum":1,"maximum":5}},"required":["text"],"additionalProperties":false}`,
		run: func(c *call) (any, error) {
			text, isStr := c.args["text"].(string)
			if !isStr {
				return nil, &softFailure{"stream needs a string text"}
			}
			n := int64(3)
			if p, ok := number(c.args["parts"]); ok && p >= 1 && p <= 5 {
				n = p
			}
			for i, chunk := range split(text, int(n)) {
				c.emit(map[string]any{"index": i, "text": chunk})
			}
			return text, nil
		},
	},
	{
		name: "fail", description: "Always fails, reporting success false (for error paths)",
		parameters: `{"type":"object","properties":{"reason":{"type":"string","maxLength":100}},"additionalProperties":false}`,
		run: func(c *call) (any, error) {
			reason, _ := c.args["reason"].(string)
			return nil, &softFailure{strings.TrimSpace("simulated failure " + reason)}
		},
	},
	{
		name: "throw", description: "Always throws, answered ok false (for error paths)",
		parameters: `{"type":"object","properties":{},"additionalProperties":false}`,
		run: func(*call) (any, error) {
			return nil, &hostError{Type: "Error", Detail: "simulated exception in tool throw",
				Stack: "Error: simulated exception in tool throw\n    at throw (wirecheck reference tool host)"}
		},
	},
	{
		name: "counter", description: "Add step to a count kept in the tool state",
		parameters: `{"type":"object","properties":{"step":{"type":"integer","minimum":1,"maximum":10}},"additionalProperties":false}`,
		run: func(c *call) (any, error) {
			step := int64(1)
			if p, ok := number(c.args["step"]); ok && p >= 1 && p <= 10 {
				step = p
			}
			count, _ := number(c.state["count"])
			count += step
			c.state["count"] = count
			return map[string]any{"count": count}, nil
		},
	},
}

// split cuts text into at most n parts of about equal length, on rune
// boundaries; empty text is one empty part.
func split(text string, n int) []string {
	rs := []rune(text)
	if len(rs) < n {
		n = max(len(rs), 1)
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(rs[i*len(rs)/n:(i+1)*len(rs)/n]))
	}
	return out
}

func (s *Server) schemas() any {
	list := make([]any, 0, len(tools))
	for _, t := range tools {
		params := json.RawMessage(t.parameters)
		if s.Faults["schema-bad-parameters"] {
			params = json.RawMessage(`"object"`)
		}
		entry := map[string]any{"name": t.name, "description": t.description, "parameters": params}
		if s.Variants["extra-fields"] {
			entry["strict"] = false
		}
		list = append(list, entry)
	}
	if s.Faults["ghost-tool"] {
		list = append(list, map[string]any{"name": "ghost", "description": "Listed, but execute_tool does not know it",
			"parameters": json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)})
	}
	if s.Faults["schemas-object"] {
		return map[string]any{"tools": list}
	}
	return list
}

func (s *Server) execute(req request, state map[string]any) (int, bool) {
	if s.Variants["out-of-order"] {
		// The answer (events and response) is kept back and goes out after
		// the next request's answer when that request is already waiting.
		s.capturing = true
		defer func() {
			s.capturing = false
			if !s.pipelined() {
				held := s.held
				s.held = nil
				s.release(held)
			}
		}()
	}
	name, isStr := req.params["tool_name"].(string)
	if !isStr && !s.lenient() {
		s.fail(req.id, invalidParams("params.tool_name must be a string, not %s", kind(req.params["tool_name"])))
		return 0, false
	}
	args, isObj := req.params["arguments"].(map[string]any)
	if raw, has := req.params["arguments"]; has && !isObj && !s.lenient() {
		s.fail(req.id, invalidParams("params.arguments must be an object, not %s", kind(raw)))
		return 0, false
	}
	var t *tool
	for i := range tools {
		if tools[i].name == name {
			t = &tools[i]
		}
	}
	if t == nil {
		if s.Faults["unknown-tool-ok"] {
			s.ok(req.id, map[string]any{"success": true, "result": nil}, state)
		} else {
			s.fail(req.id, &hostError{Type: "ToolNotFound", Detail: fmt.Sprintf("Unknown tool '%s'", name)})
		}
		return 0, false
	}
	if state == nil {
		state = map[string]any{}
	}
	if s.Variants["slow-tool"] {
		// A tool that does real work: longer than an answer to init.
		time.Sleep(SlowTool)
	}
	if s.Variants["event-kinds"] {
		// An event type the core does not map, with its payload left out.
		s.write(map[string]any{"v": Version, "id": req.id, "event": map[string]any{"type": "progress"}})
	}
	// Parts go out as the tool emits them; with event-after-response the
	// newest is kept back, so the last one follows the response.
	var pending map[string]any
	seq := 0
	c := &call{args: args, state: state, emit: func(payload any) {
		ev := map[string]any{"type": "part", "payload": payload}
		if s.Variants["extra-fields"] {
			ev["seq"] = seq
			seq++
		}
		if s.Faults["event-no-payload"] {
			delete(ev, "payload")
		}
		id := req.id
		if s.Faults["event-wrong-id"] {
			id = fmt.Sprint(id) + "-x"
		}
		frame := map[string]any{"v": Version, "id": id, "event": ev}
		if !s.Faults["event-after-response"] {
			s.write(frame)
			return
		}
		if pending != nil {
			s.write(pending)
		}
		pending = frame
	}}
	res, err := t.run(c)
	if err != nil {
		fmt.Fprintf(s.log, "tool %s failed: %v\n", name, err)
		if s.Faults["crash-on-failure"] {
			return 6, true
		}
	}
	var value any
	switch e := err.(type) {
	case nil:
		value = map[string]any{"success": true, "result": res}
		if s.Faults["exec-bare"] {
			value = res
		}
	case *softFailure:
		value = map[string]any{"success": false, "error": e.msg}
		if s.Faults["exec-bare"] {
			value = e.msg
		}
	}
	if _, soft := err.(*softFailure); err == nil || soft {
		s.ok(req.id, value, state)
	} else {
		s.fail(req.id, err)
	}
	if pending != nil {
		s.write(pending)
	}
	return 0, false
}
