// Package agentbridge is the reference backend of the agent-bridge protocol
// (`wirecheck serve agent-bridge`): the Node backend's side of the JSON line
// protocol with the Dart SDK, with a scripted, deterministic stand-in for the
// Claude Agent SDK (no network, no model). It implements every message,
// error code and query method of the document and passes its own suite at
// 100%. Each fault named in specs/agent-bridge.yaml breaks one rule on
// purpose.
//
// The scripted SDK: a turn starts with system/init (the first turn of a
// session), then, when include_partial_messages is on, stream_event
// messages; a prompt that asks for a tool (it mentions a tool, Bash or
// running something) gets an assistant tool_use of Bash, a can_use_tool
// callback.request (unless the permission mode or allowed_tools already
// allow it), and a user tool_result that reflects the answer: the command's
// output after an allow (run with updated_input when given), an error
// carrying the denial message after a deny. Every turn ends with a result.
// Hooks configured in session.create are asked through hook callbacks at
// UserPromptSubmit, PreToolUse, PostToolUse and Stop; a PreToolUse hook
// answered with decision "block" refuses the tool (no permission is asked,
// the tool_result is an error carrying the hook's reason).
//
// session.interrupt during a turn resolves the callback the turn waits for
// before it answers session.interrupted (a later callback.response for it
// gets CALLBACK_NOT_FOUND); the turn runs no tool and ends with an
// error_during_execution result, and the session takes session.send again.
//
// A callback not answered within the callback timeout (2s, or the
// duration in $WIRECHECK_AGENT_BRIDGE_CALLBACK_TIMEOUT) is reported as
// error CALLBACK_TIMEOUT and read as a deny. The backend logs to stderr
// only, answers every line it cannot use with an error, and exits 0 when
// stdin ends.
package agentbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/ndjson"
)

// Error codes of the document.
const (
	InvalidMessage      = "INVALID_MESSAGE"
	SessionNotFound     = "SESSION_NOT_FOUND"
	SessionCreateFailed = "SESSION_CREATE_FAILED"
	CallbackTimeout     = "CALLBACK_TIMEOUT"
	CallbackNotFound    = "CALLBACK_NOT_FOUND"
	QueryMethodFailed   = "QUERY_METHOD_FAILED"
	SDKError            = "SDK_ERROR"
)

// TimeoutEnv names the environment variable that sets the callback timeout.
const TimeoutEnv = "WIRECHECK_AGENT_BRIDGE_CALLBACK_TIMEOUT"

// DefaultCallbackTimeout is how long a callback.request waits for its
// answer: long enough that wirecheck's answer arrives in time on a loaded
// machine, short enough that the suite's unanswered callback costs little.
const DefaultCallbackTimeout = 2 * time.Second

// LongCallbackTimeout is the callback timeout of the variant
// callback-timeout-30s: longer than wirecheck's old bound of 25s, shorter
// than its default of 60s.
const LongCallbackTimeout = 30 * time.Second

// Slow is how long the variants slow-start and slow-exit take.
const Slow = 1500 * time.Millisecond

// Server is one backend instance.
type Server struct {
	Faults map[string]bool
	// Variants holds the legal alternatives switched on.
	Variants        map[string]bool
	CallbackTimeout time.Duration

	wmu sync.Mutex
	out *bufio.Writer
	log io.Writer

	mu        sync.Mutex
	sessions  map[string]*session
	callbacks map[string]*pending
	seq       int
	firstSDK  string
	wg        sync.WaitGroup
}

type session struct {
	id, sdkID, cwd string
	model          string
	mode           string
	partial        bool
	checkpoints    bool
	hooks          map[string]bool
	allowed        map[string]bool
	mcp            []string

	turns chan string
	done  chan struct{}

	// guarded by Server.mu
	killed    bool
	busy      bool
	interrupt chan struct{}
	initSent  bool
	userUUIDs map[string]bool
}

type pending struct {
	id     string
	s      *session
	answer chan map[string]any
}

// Serve runs a backend with the named faults until in ends and returns the
// exit code.
func Serve(o refserver.Options) int {
	s := &Server{Faults: refserver.Set(o.Faults), Variants: refserver.Set(o.Variants), CallbackTimeout: DefaultCallbackTimeout}
	if v := os.Getenv(TimeoutEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			s.CallbackTimeout = d
		} else {
			fmt.Fprintf(o.Log, "agent-bridge: ignoring %s=%q: not a positive duration\n", TimeoutEnv, v)
		}
	}
	if s.Variants["callback-timeout-30s"] {
		s.CallbackTimeout = LongCallbackTimeout
	}
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
	if s.CallbackTimeout <= 0 {
		s.CallbackTimeout = DefaultCallbackTimeout
	}
	s.sessions = map[string]*session{}
	s.callbacks = map[string]*pending{}
	fmt.Fprintf(log, "agent-bridge reference backend: callback timeout %s, faults %v, variants %v\n", s.CallbackTimeout, on(s.Faults), on(s.Variants))
	if s.Variants["slow-start"] {
		time.Sleep(Slow) // an interpreter loading its modules
	}
	keep := func(line []byte, _ bool) bool { return len(bytes.TrimSpace(line)) > 0 }
	code := ndjson.Loop(in, keep, s.handle, nil, s.Faults["ignore-eof"])
	s.mu.Lock()
	for _, ss := range s.sessions {
		s.end(ss)
	}
	s.mu.Unlock()
	s.wg.Wait()
	if s.Variants["slow-exit"] {
		time.Sleep(Slow) // flushing sessions before it exits
	}
	return code
}

func on(f map[string]bool) []string {
	var out []string
	for k, v := range f {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// frame is one message on the wire; a nil Payload is left out (a fault).
type frame struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Payload   any    `json:"payload,omitempty"`
}

func (s *Server) write(f frame) {
	var v any = f
	if s.Variants["extra-fields"] {
		v = s.extra(f)
	}
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(s.log, "agent-bridge: cannot encode:", err)
		return
	}
	s.writeLine(b)
}

// extra is the frame with fields the document does not list, in the
// envelope and in an object payload (variant extra-fields).
func (s *Server) extra(f frame) map[string]any {
	m := map[string]any{"type": f.Type, "timestamp": "2026-01-01T00:00:00Z", "backend_version": "reference"}
	if f.ID != "" {
		m["id"] = f.ID
	}
	if f.SessionID != "" {
		m["session_id"] = f.SessionID
	}
	if p, ok := f.Payload.(map[string]any); ok {
		q := make(map[string]any, len(p)+1)
		for k, v := range p {
			q[k] = v
		}
		q["x_backend"] = "reference"
		m["payload"] = q
	} else if f.Payload != nil {
		m["payload"] = f.Payload
	}
	return m
}

func (s *Server) writeLine(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.out.Write(b)
	if s.Variants["crlf"] {
		s.out.WriteByte('\r')
	}
	s.out.WriteByte('\n')
	s.out.Flush()
}

func (s *Server) fail(id, sid, code, msg string) {
	p := map[string]any{"code": code, "message": msg}
	if s.Faults["error-no-message"] {
		delete(p, "message")
	}
	s.write(frame{Type: "error", ID: id, SessionID: sid, Payload: p})
}

// failLine answers a line whose id could not be read: without an id, or
// with id null (variant async-errors-no-id).
func (s *Server) failLine(msg string) {
	if !s.Variants["async-errors-no-id"] {
		s.fail("", "", InvalidMessage, msg)
		return
	}
	b, err := json.Marshal(map[string]any{"type": "error", "id": nil, "payload": map[string]any{"code": InvalidMessage, "message": msg}})
	if err == nil {
		s.writeLine(b)
	}
}

// handle serves one line; stop is set when the backend must exit.
func (s *Server) handle(line []byte, tooLong bool) (int, bool) {
	if tooLong {
		s.failLine(fmt.Sprintf("line longer than %d bytes", ndjson.MaxLine))
		return 0, false
	}
	v, err := ndjson.Decode(line)
	if err != nil {
		if s.Faults["malformed-silent"] {
			return 0, false
		}
		fmt.Fprintf(s.log, "agent-bridge: unreadable line (%d bytes)\n", len(line))
		s.failLine("the line is not one JSON value")
		return 0, false
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		if s.Faults["exit-non-object"] {
			fmt.Fprintln(s.log, "agent-bridge: not an object, exiting")
			return 1, true
		}
		if s.Faults["malformed-silent"] {
			return 0, false
		}
		s.failLine("a message is a JSON object")
		return 0, false
	}
	id, _ := m["id"].(string)
	sid, _ := m["session_id"].(string)
	typ, _ := m["type"].(string)
	if typ == "" {
		s.fail(id, sid, InvalidMessage, "the message has no type")
		return 0, false
	}
	payload, hasPayload := m["payload"].(map[string]any)
	if !hasPayload {
		code := InvalidMessage
		if typ == "session.create" && s.Faults["missing-payload-create-failed"] {
			code = SessionCreateFailed
		}
		if s.Faults["invalid-no-id"] {
			// The error is sent, but without the id it answers.
			id = ""
		}
		s.fail(id, sid, code, "the message has no payload object")
		return 0, false
	}
	switch typ {
	case "session.create":
		s.create(id, payload)
	case "session.send":
		if ss := s.lookup(id, sid); ss != nil {
			msg, ok := payload["message"].(string)
			if !ok {
				s.fail(id, sid, InvalidMessage, "session.send needs payload.message, a string")
				return 0, false
			}
			if !s.Faults["send-ignored"] {
				s.enqueue(ss, msg)
			}
		}
	case "session.interrupt":
		if ss := s.lookup(id, sid); ss != nil {
			s.interrupt(id, ss)
		}
	case "session.kill":
		if ss := s.lookup(id, sid); ss != nil {
			s.kill(id, ss)
		}
	case "callback.response":
		s.callbackResponse(id, sid, payload)
	case "query.call":
		if ss := s.lookup(id, sid); ss != nil {
			s.query(id, ss, payload)
		}
	default:
		code := InvalidMessage
		if s.Faults["unknown-type-sdk-error"] {
			code = SDKError
		}
		s.fail(id, sid, code, fmt.Sprintf("unknown message type %q", typ))
	}
	return 0, false
}

func (s *Server) lookup(id, sid string) *session {
	s.mu.Lock()
	ss := s.sessions[sid]
	s.mu.Unlock()
	if ss == nil {
		code := SessionNotFound
		if s.Faults["unknown-session-invalid"] {
			code = InvalidMessage
		}
		s.fail(id, sid, code, fmt.Sprintf("no session %q", sid))
	}
	return ss
}

func (s *Server) uuid() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.seq)
}

func (s *Server) create(id string, p map[string]any) {
	prompt, okP := p["prompt"].(string)
	cwd, okC := p["cwd"].(string)
	opts, okO := p["options"].(map[string]any)
	if p["options"] == nil {
		opts, okO = map[string]any{}, true
	}
	if !okP || !okC || !okO {
		code := InvalidMessage
		// The variant hands a payload it can read to the SDK, which refuses
		// it: the session could not be created.
		if s.Faults["missing-payload-create-failed"] || s.Variants["create-failed-fields"] {
			code = SessionCreateFailed
		}
		s.fail(id, "", code, "session.create needs payload.prompt and payload.cwd (strings), and options, when given, an object")
		return
	}
	if s.Faults["log-stdout"] {
		s.writeLine([]byte("creating session in " + cwd))
	}
	if partial, _ := opts["include_partial_messages"].(bool); partial && s.Faults["create-error"] {
		s.fail(id, "", SDKError, "the SDK failed to start")
		return
	}
	if _, has := opts["sandbox"]; has && s.Faults["reject-options"] {
		s.fail(id, "", SessionCreateFailed, "sandbox settings are not supported")
		return
	}
	if st, err := os.Stat(cwd); (err != nil || !st.IsDir()) && !s.Variants["create-missing-cwd"] {
		code := SessionCreateFailed
		if s.Faults["create-fail-code"] {
			code = SDKError
		}
		s.fail(id, "", code, fmt.Sprintf("cwd %q is not a directory", cwd))
		return
	}
	ss := &session{
		cwd: cwd, model: "claude-sonnet-4-5", mode: "default",
		hooks: map[string]bool{}, allowed: map[string]bool{}, userUUIDs: map[string]bool{},
		turns: make(chan string, 64), done: make(chan struct{}), interrupt: make(chan struct{}, 1),
	}
	if m, ok := opts["model"].(string); ok && m != "" {
		ss.model = m
	}
	if m, ok := opts["permission_mode"].(string); ok && m != "" {
		ss.mode = m
	}
	ss.partial, _ = opts["include_partial_messages"].(bool)
	ss.partial = ss.partial && !s.Faults["no-partial"]
	ss.checkpoints, _ = opts["enable_file_checkpointing"].(bool)
	if hs, ok := opts["hooks"].(map[string]any); ok {
		for ev := range hs {
			ss.hooks[ev] = true
		}
	}
	if ts, ok := opts["allowed_tools"].([]any); ok {
		for _, t := range ts {
			if n, ok := t.(string); ok {
				ss.allowed[n] = true
			}
		}
	}
	if ms, ok := opts["mcp_servers"].(map[string]any); ok {
		for n := range ms {
			ss.mcp = append(ss.mcp, n)
		}
		sort.Strings(ss.mcp)
	}
	s.mu.Lock()
	s.seq++
	n := s.seq
	ss.id = fmt.Sprintf("session-%d", n)
	ss.sdkID = fmt.Sprintf("sdk-%08d-0000-4000-8000-000000000000", n)
	if s.firstSDK == "" {
		s.firstSDK = ss.sdkID
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	if s.Faults["init-before-created"] {
		ss.initSent = true
		s.emitInit(ss)
	}
	created := map[string]any{"sdk_session_id": ss.sdkID}
	if s.Faults["created-no-sdk-id"] {
		delete(created, "sdk_session_id")
	}
	switch {
	case s.Faults["created-no-id"]:
		id = ""
	case s.Faults["created-wrong-id"]:
		id += "-x"
	}
	s.write(frame{Type: "session.created", ID: id, SessionID: ss.id, Payload: created})
	fmt.Fprintf(s.log, "agent-bridge: created %s in %s\n", ss.id, cwd)
	s.wg.Add(1)
	go s.run(ss)
	s.enqueue(ss, prompt)
}

func (s *Server) enqueue(ss *session, prompt string) {
	select {
	case ss.turns <- prompt:
	case <-ss.done:
	}
}

// end stops a session's turns; the caller holds s.mu.
func (s *Server) end(ss *session) {
	if !ss.killed {
		ss.killed = true
		close(ss.done)
	}
}

// interrupt stops the session's turn. A callback the turn waits for is
// resolved here, before session.interrupted is written: an answer the
// client sends for it afterwards finds no pending callback
// (CALLBACK_NOT_FOUND), and the turn, woken by the interrupt signal, ends
// with an error_during_execution result without running the tool.
func (s *Server) interrupt(id string, ss *session) {
	s.mu.Lock()
	idle := !ss.busy
	if ss.busy {
		select {
		case ss.interrupt <- struct{}{}:
		default:
		}
		if !s.Faults["interrupt-keeps-callback"] {
			for cid, cb := range s.callbacks {
				if cb.s == ss {
					delete(s.callbacks, cid)
				}
			}
		}
	}
	s.mu.Unlock()
	if s.Faults["interrupt-silent"] {
		return
	}
	if idle && s.Variants["interrupt-idle-error"] {
		s.fail(id, ss.id, SDKError, "no turn in progress: nothing to interrupt")
		return
	}
	f := frame{Type: "session.interrupted", ID: id, SessionID: ss.id, Payload: map[string]any{}}
	if s.Faults["interrupt-no-session-id"] {
		f.SessionID = ""
	}
	if s.Faults["no-payload"] {
		f.Payload = nil
	}
	s.write(f)
	if s.Faults["double-answer"] {
		s.write(f)
	}
}

func (s *Server) kill(id string, ss *session) {
	s.mu.Lock()
	victims := []*session{ss}
	if s.Faults["kill-all"] {
		victims = victims[:0]
		for _, o := range s.sessions {
			victims = append(victims, o)
		}
	}
	if !s.Faults["kill-keeps-session"] {
		for _, v := range victims {
			s.end(v)
			delete(s.sessions, v.id)
		}
	}
	s.mu.Unlock()
	f := frame{Type: "session.killed", ID: id, SessionID: ss.id, Payload: map[string]any{}}
	if s.Faults["kill-no-session-id"] {
		f.SessionID = ""
	}
	if s.Faults["no-payload"] {
		f.Payload = nil
	}
	s.write(f)
}

func (s *Server) callbackResponse(id, sid string, p map[string]any) {
	s.mu.Lock()
	cb := s.callbacks[id]
	delete(s.callbacks, id)
	s.mu.Unlock()
	if cb == nil {
		if s.Faults["callback-not-found-silent"] {
			return
		}
		s.fail(id, sid, CallbackNotFound, fmt.Sprintf("no pending callback %q", id))
		return
	}
	cb.answer <- p
}

// emit writes one SDK message of a live session.
func (s *Server) emit(ss *session, payload map[string]any) {
	s.mu.Lock()
	if ss.killed && !s.Faults["kill-keeps-session"] {
		s.mu.Unlock()
		return
	}
	sdk := ss.sdkID
	if s.Faults["shared-sdk-session"] {
		sdk = s.firstSDK
	}
	s.mu.Unlock()
	if _, has := payload["session_id"]; !has {
		payload["session_id"] = sdk
	}
	if _, has := payload["uuid"]; !has {
		payload["uuid"] = s.uuid()
	}
	typ, _ := payload["type"].(string)
	switch {
	case typ == "system" && s.Faults["init-no-subtype"]:
		delete(payload, "subtype")
	case typ == "assistant" && s.Faults["assistant-no-message"]:
		delete(payload, "message")
	case typ == "user" && s.Faults["user-no-message"]:
		delete(payload, "message")
	case typ == "result" && s.Faults["result-bad-subtype"]:
		payload["subtype"] = "done"
	case typ == "stream_event" && s.Faults["stream-event-no-event"]:
		delete(payload, "event")
	}
	f := frame{Type: "sdk.message", SessionID: ss.id, Payload: payload}
	if s.Faults["sdk-no-session"] && typ == "stream_event" || s.Faults["sdk-message-no-session"] {
		f.SessionID = ""
	}
	s.write(f)
}

// stop ends a turn that was interrupted or whose session ended.
type stop struct{ interrupted bool }

// ask sends a callback.request and waits for its answer; nil means it timed
// out (reported as CALLBACK_TIMEOUT).
func (s *Server) ask(ss *session, payload map[string]any) (map[string]any, *stop) {
	cb := &pending{id: s.uuid(), s: ss, answer: make(chan map[string]any, 1)}
	cb.id = "cb-" + strings.TrimLeft(cb.id[len(cb.id)-12:], "0")
	s.mu.Lock()
	s.callbacks[cb.id] = cb
	s.mu.Unlock()
	s.write(frame{Type: "callback.request", ID: cb.id, SessionID: ss.id, Payload: payload})
	forget := func() {
		s.mu.Lock()
		delete(s.callbacks, cb.id)
		s.mu.Unlock()
	}
	var timeout <-chan time.Time
	if !s.Faults["no-callback-timeout"] {
		t := time.NewTimer(s.CallbackTimeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case a := <-cb.answer:
		return a, nil
	case <-timeout:
		forget()
		id, code := cb.id, CallbackTimeout
		if s.Variants["async-errors-no-id"] {
			id = "" // responds to no request of the client
		}
		if s.Faults["callback-timeout-code"] {
			code = SDKError
		}
		s.fail(id, ss.id, code, fmt.Sprintf("no callback.response for %s within %s", cb.id, s.CallbackTimeout))
		return nil, nil
	case <-ss.interrupt:
		if !s.Faults["interrupt-keeps-callback"] {
			forget()
		}
		return nil, &stop{interrupted: true}
	case <-ss.done:
		forget()
		return nil, &stop{}
	}
}

// hook asks the hook callback of an event, when one is configured, and
// returns the answer (nil when none was asked or none came in time).
func (s *Server) hook(ss *session, event string, input map[string]any, toolUseID string) (map[string]any, *stop) {
	if !ss.hooks[event] || s.Faults["no-hooks"] {
		return nil, nil
	}
	input["hook_event_name"] = event
	input["session_id"] = ss.sdkID
	input["cwd"] = ss.cwd
	p := map[string]any{"callback_type": "hook", "hook_event": event, "hook_input": input}
	if toolUseID != "" {
		p["tool_use_id"] = toolUseID
	}
	return s.ask(ss, p)
}

// blocked says whether a hook answer is a block decision.
func blocked(a map[string]any) bool { return a != nil && a["decision"] == "block" }

func (s *Server) run(ss *session) {
	defer s.wg.Done()
	for {
		select {
		case <-ss.done:
			return
		case prompt := <-ss.turns:
			s.mu.Lock()
			ss.busy = true
			select { // an interrupt of an idle session is spent
			case <-ss.interrupt:
			default:
			}
			s.mu.Unlock()
			s.turn(ss, prompt)
			s.mu.Lock()
			ss.busy = false
			s.mu.Unlock()
		}
	}
}

var (
	wantsTool = regexp.MustCompile(`(?i)\b(tools?|bash|run|execute)\b`)
	backtick  = regexp.MustCompile("`([^`]+)`")
)

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func (s *Server) assistant(ss *session, blocks ...map[string]any) {
	content := make([]any, len(blocks))
	for i, b := range blocks {
		content[i] = b
	}
	s.emit(ss, map[string]any{
		"type": "assistant", "parent_tool_use_id": nil,
		"message": map[string]any{"id": "msg-" + s.uuid()[24:], "type": "message", "role": "assistant",
			"model": s.modelOf(ss), "content": content, "stop_reason": nil},
	})
}

// modelOf and modeOf read what query.call may change.
func (s *Server) modelOf(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ss.model
}

func (s *Server) modeOf(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ss.mode
}

// emitInit sends the session's system/init message.
func (s *Server) emitInit(ss *session) {
	tools := []any{"Bash", "Read", "Write", "Edit", "Glob", "Grep"}
	mcp := []any{}
	for _, n := range ss.mcp {
		mcp = append(mcp, map[string]any{"name": n, "status": "connected"})
	}
	s.emit(ss, map[string]any{"type": "system", "subtype": "init", "cwd": ss.cwd, "model": s.modelOf(ss),
		"permissionMode": s.modeOf(ss), "tools": tools, "mcp_servers": mcp, "apiKeySource": "none",
		"slash_commands": []any{"compact", "clear"}})
}

func (s *Server) turn(ss *session, prompt string) {
	s.mu.Lock()
	first := !ss.initSent
	ss.initSent = true
	s.mu.Unlock()
	end := func(subtype string, resultText string) {
		p := map[string]any{"type": "result", "subtype": subtype, "is_error": subtype != "success",
			"duration_ms": 0, "duration_api_ms": 0, "num_turns": 1,
			"total_cost_usd": 0, "usage": map[string]any{"input_tokens": 0, "output_tokens": 0}}
		if subtype == "success" {
			p["result"] = resultText
		}
		s.emit(ss, p)
	}
	stopped := func(st *stop) bool {
		if st == nil {
			return false
		}
		if st.interrupted {
			// The fault forgets the session before the result goes out: a
			// client that sends at once on reading it must find it gone
			// (after it, the send could win the race, under load).
			if s.Faults["interrupt-drops-session"] {
				s.mu.Lock()
				delete(s.sessions, ss.id)
				s.mu.Unlock()
			}
			end("error_during_execution", "")
			if s.Faults["interrupt-drops-session"] {
				s.mu.Lock()
				s.end(ss)
				s.mu.Unlock()
			}
		}
		return true
	}
	if s.Faults["cli-dies"] {
		// The CLI the SDK drives dies before it says anything: the backend
		// reports it for the session, and no message of the turn follows.
		fmt.Fprintf(s.log, "agent-bridge: %s: Claude Code process exited with code 1\n", ss.id)
		s.fail("", ss.id, SDKError, "Claude Code process exited with code 1")
		return
	}
	if first && s.Faults["stray-result"] {
		end("success", "a result left over from nothing")
	}
	// The fault sends the first turn's result first: the turn then runs
	// without one at its end.
	early := first && s.Faults["result-before-init"]
	if early {
		end("success", "wirecheck reference backend: "+prompt)
	}
	// A callback.request is no sdk.message: the hook may come before
	// system/init (variant ask-before-assistant).
	ask := s.Variants["ask-before-assistant"]
	if first && !ask {
		s.emitInit(ss)
	}
	if _, st := s.hook(ss, "UserPromptSubmit", map[string]any{"prompt": prompt}, ""); stopped(st) {
		return
	}
	if first && ask {
		s.emitInit(ss)
	}
	if ss.partial {
		s.emit(ss, map[string]any{"type": "stream_event", "parent_tool_use_id": nil,
			"event": map[string]any{"type": "message_start", "message": map[string]any{"role": "assistant", "model": s.modelOf(ss)}}})
		s.emit(ss, map[string]any{"type": "stream_event", "parent_tool_use_id": nil,
			"event": map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "…"}}})
	}
	answer := "wirecheck reference backend: " + prompt
	if wantsTool.MatchString(prompt) {
		var st *stop
		if answer, st = s.toolUse(ss, prompt); stopped(st) {
			return
		}
	} else {
		s.assistant(ss, text(answer))
	}
	if _, st := s.hook(ss, "Stop", map[string]any{"stop_hook_active": false}, ""); stopped(st) {
		return
	}
	if !early {
		end("success", answer)
	}
}

// toolUse plays one Bash tool use: ask permission, run or refuse, report.
func (s *Server) toolUse(ss *session, prompt string) (string, *stop) {
	command := "echo wirecheck"
	if m := backtick.FindStringSubmatch(prompt); m != nil {
		command = m[1]
	}
	input := map[string]any{"command": command}
	toolUseID := "toolu_" + s.uuid()[24:]
	announce := func() {
		s.assistant(ss, text("I will run a command."), map[string]any{"type": "tool_use", "id": toolUseID, "name": "Bash", "input": input})
	}
	// The SDK may ask (hook, permission) before the assistant message that
	// carries the tool_use is forwarded (variant ask-before-assistant).
	early := s.Variants["ask-before-assistant"]
	if !early {
		announce()
	}
	d, st := s.decide(ss, input, toolUseID)
	if st != nil {
		return "", st
	}
	allow, reason, refusal, used := d.allow, d.reason, d.refusal, d.used
	if early {
		announce()
	}
	var result map[string]any
	var summary string
	if allow {
		cmd, _ := used["command"].(string)
		output := "ran: " + cmd
		if rest, ok := strings.CutPrefix(cmd, "echo "); ok {
			output = rest
		}
		result = map[string]any{"type": "tool_result", "tool_use_id": toolUseID, "content": output, "is_error": false}
		summary = "The command printed: " + output
	} else {
		result = map[string]any{"type": "tool_result", "tool_use_id": toolUseID, "content": refusal + reason, "is_error": true}
		summary = "I was not allowed to run the command."
	}
	uid := s.uuid()
	s.mu.Lock()
	ss.userUUIDs[uid] = true
	s.mu.Unlock()
	s.emit(ss, map[string]any{"type": "user", "uuid": uid, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{result}}})
	if allow {
		if _, st := s.hook(ss, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": used, "tool_response": result["content"]}, toolUseID); st != nil {
			return "", st
		}
	}
	s.assistant(ss, text(summary))
	return summary, nil
}

// decision is whether one tool use runs, why not, and with what input.
type decision struct {
	allow           bool
	reason, refusal string
	used            map[string]any
}

// decide runs the PreToolUse hook and asks the permission of one Bash use.
func (s *Server) decide(ss *session, input map[string]any, toolUseID string) (decision, *stop) {
	pre, st := s.hook(ss, "PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input}, toolUseID)
	if st != nil {
		return decision{}, st
	}
	allow, reason, refusal, used := true, "", "Permission denied: ", input
	// A PreToolUse hook that blocks refuses the tool outright: no permission
	// is asked and nothing runs.
	if blocked(pre) && !s.Faults["ignore-hook-block"] {
		allow, refusal = false, "Blocked by a PreToolUse hook: "
		reason, _ = pre["reason"].(string)
		if reason == "" {
			reason = "a PreToolUse hook blocked this tool use"
		}
	} else if s.modeOf(ss) != "bypassPermissions" && !ss.allowed["Bash"] && !s.Faults["no-permission-ask"] {
		kind := "can_use_tool"
		if s.Faults["callback-bad-type"] {
			kind = "permission"
		}
		a, st := s.ask(ss, map[string]any{"callback_type": kind, "tool_name": "Bash", "tool_input": input,
			"suggestions": []any{map[string]any{"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash"}}, "behavior": "allow", "destination": "session"}},
			"tool_use_id": toolUseID})
		if st != nil && st.interrupted && s.Faults["interrupt-runs-tool"] {
			// The fault reads the interrupt as an allow: the turn goes on.
			st, a = nil, map[string]any{"behavior": "allow"}
		}
		if st != nil {
			return decision{}, st
		}
		switch {
		case a == nil:
			allow, reason = false, "the permission request timed out"
		case a["behavior"] == "allow":
			allow = !s.Faults["ignore-allow"]
			reason = "denied"
			if u, ok := a["updated_input"].(map[string]any); ok && !s.Faults["ignore-updated-input"] {
				used = u
			}
		default:
			allow = s.Faults["ignore-deny"]
			reason, _ = a["message"].(string)
			if reason == "" {
				reason = "the user denied this tool use"
			}
		}
	}
	return decision{allow, reason, refusal, used}, nil
}

// Models the reference backend offers.
var models = []any{
	map[string]any{"value": "claude-sonnet-4-5", "displayName": "Sonnet 4.5", "description": "balanced"},
	map[string]any{"value": "claude-opus-4-1", "displayName": "Opus 4.1", "description": "most capable"},
	map[string]any{"value": "claude-haiku-4-5", "displayName": "Haiku 4.5", "description": "fastest"},
}

var modes = map[string]bool{"default": true, "acceptEdits": true, "bypassPermissions": true, "plan": true}

// unsupported are the documented query methods the fault query-unsupported
// answers as unknown, as a backend that never wired them up does.
var unsupported = map[string]bool{"accountInfo": true, "setMaxThinkingTokens": true, "rewindFiles": true}

func (s *Server) query(id string, ss *session, p map[string]any) {
	method, _ := p["method"].(string)
	args, isList := p["args"].([]any)
	if p["args"] == nil {
		args, isList = []any{}, true
	}
	if !isList {
		s.fail(id, ss.id, InvalidMessage, "query.call needs payload.args, a list")
		return
	}
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	var result any
	var failure string
	switch {
	case s.Faults["query-unsupported"] && unsupported[method]:
		failure = "Unknown or unsupported query method: " + method
	case method == "supportedModels":
		result = models
	case method == "supportedCommands":
		result = []any{
			map[string]any{"name": "compact", "description": "Compact the conversation", "argumentHint": ""},
			map[string]any{"name": "clear", "description": "Clear the conversation", "argumentHint": ""},
		}
	case method == "mcpServerStatus":
		list := []any{}
		for _, n := range ss.mcp {
			list = append(list, map[string]any{"name": n, "status": "connected"})
		}
		result = list
	case method == "accountInfo":
		result = map[string]any{"email": "wirecheck@example.invalid", "organization": "wirecheck", "subscriptionType": "reference"}
	case method == "setModel":
		m, ok := arg(0).(string)
		if arg(0) != nil && !ok {
			failure = "setModel takes a model name"
			break
		}
		s.mu.Lock()
		ss.model = m
		s.mu.Unlock()
	case method == "setPermissionMode":
		m, _ := arg(0).(string)
		if !modes[m] {
			failure = fmt.Sprintf("unknown permission mode %v", arg(0))
			break
		}
		s.mu.Lock()
		ss.mode = m
		s.mu.Unlock()
	case method == "setMaxThinkingTokens":
		if _, ok := arg(0).(json.Number); !ok && arg(0) != nil {
			failure = "setMaxThinkingTokens takes a number or null"
		}
	case method == "rewindFiles":
		u, _ := arg(0).(string)
		s.mu.Lock()
		known := ss.userUUIDs[u]
		s.mu.Unlock()
		switch {
		case !ss.checkpoints:
			failure = "file checkpointing is not enabled for this session"
		case !known:
			failure = fmt.Sprintf("no checkpoint at user message %q", u)
		}
	default:
		s.fail(id, ss.id, InvalidMessage, fmt.Sprintf("unknown query method %q", method))
		return
	}
	if failure != "" && s.Faults["query-fail-code"] {
		s.fail(id, ss.id, SDKError, failure)
		return
	}
	if failure != "" && s.Variants["query-error-code"] {
		s.fail(id, ss.id, QueryMethodFailed, failure)
		return
	}
	payload := map[string]any{"success": failure == "", "result": result}
	if failure != "" {
		payload["error"] = failure
	}
	if s.Faults["query-no-success"] {
		delete(payload, "success")
	}
	if s.Faults["json-log-stdout"] {
		s.writeLine([]byte(`{"level":"debug","msg":"query ` + method + `"}`))
	}
	rid := id
	if s.Faults["wrong-id"] {
		rid += "-x"
	}
	s.write(frame{Type: "query.result", ID: rid, SessionID: ss.id, Payload: payload})
}
