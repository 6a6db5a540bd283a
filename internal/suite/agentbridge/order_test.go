package agentbridge_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/suite/agentbridge"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// scripted is an in-memory transport whose server is a Go function: every
// message wirecheck sends is answered, at once and in order, by the lines
// serve returns.
type scripted struct {
	serve  func(msg map[string]any) []string
	frames chan transport.Frame
	exited chan struct{}
	once   sync.Once
	// exitOnce guards exited when the process ends alone (exitOnly).
	exitOnce sync.Once
	// die, once serve sets it, ends the backend after the lines of that
	// answer: its stdout closes and the process has exited.
	die bool
	// exit, once serve sets it, ends the backend's process after the
	// lines of that answer while its stdout stays open (a child of it
	// holds the pipe).
	exit bool
}

func newScripted(serve func(map[string]any) []string) *scripted {
	return &scripted{serve: serve, frames: make(chan transport.Frame, 1024), exited: make(chan struct{})}
}

func (s *scripted) Send(b []byte) error {
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		for _, line := range s.serve(m) {
			s.frames <- transport.Frame{Raw: []byte(line), At: time.Now()}
		}
		if s.die {
			return s.Close()
		}
		if s.exit {
			s.exitOnce.Do(func() { close(s.exited) })
		}
	}
	return nil
}

func (s *scripted) WriteRaw(b []byte) error          { return s.Send(b) }
func (s *scripted) Recv() <-chan transport.Frame     { return s.frames }
func (s *scripted) Stderr() <-chan transport.Frame   { return nil }
func (s *scripted) CloseInput() error                { return nil }
func (s *scripted) Exited() <-chan struct{}          { return s.exited }
func (s *scripted) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (s *scripted) Overflowed() bool                 { return false }
func (s *scripted) Close() error {
	s.once.Do(func() { close(s.frames); s.exitOnce.Do(func() { close(s.exited) }) })
	return nil
}

func line(v map[string]any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// runScenario runs one agent-bridge scenario against a scripted backend
// and returns what was observed.
func runScenario(name string, serve func(map[string]any) []string, params ...string) []verdict.Observation {
	obs, err := runOn(newScripted(serve), nil, name, params...)
	Expect(err).NotTo(HaveOccurred())
	return obs
}

// runOn runs one agent-bridge scenario over t, learning into causes (nil:
// nothing is learned), and returns what was observed and how it ended.
func runOn(t *scripted, causes *scenario.Causes, name string, params ...string) ([]verdict.Observation, error) {
	b, err := protocols.Load("agent-bridge")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(t.Close)
	var mu sync.Mutex
	var obs []verdict.Observation
	observe := func(o verdict.Observation) {
		mu.Lock()
		obs = append(obs, o)
		mu.Unlock()
	}
	p := peer.New(peer.Options{Protocol: b.Protocol, Schemas: b.Schemas, Transport: t,
		Recorder: transcript.NewRecorder(), Observe: observe})
	p.SetScenario(name)
	e := &scenario.Env{Protocol: b.Protocol, Timeout: 300 * time.Millisecond, Observe: observe, Params: map[string]string{}, Causes: causes}
	e.SetPeer(p)
	for i := 0; i+1 < len(params); i += 2 {
		e.Params[params[i]] = params[i+1]
	}
	var sc *scenario.Scenario
	for _, s := range agentbridge.Scenarios() {
		if s.Name == name {
			sc = s
		}
	}
	Expect(sc).NotTo(BeNil())
	err = sc.Run(e)
	if err == nil {
		// As the runner does once its probe after the scenario is answered.
		e.Confirm()
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]verdict.Observation(nil), obs...), err
}

func verdicts(obs []verdict.Observation, rule string) []verdict.Verdict {
	var out []verdict.Verdict
	for _, o := range obs {
		if o.Rule == rule {
			out = append(out, o.Verdict)
		}
	}
	return out
}

var _ = Describe("judging by arrival order", func() {
	It("does not blame session.kill for a frame that arrived before session.killed but was read after it", func() {
		killed := false
		sdk := func(payload map[string]any) string {
			return line(map[string]any{"type": "sdk.message", "session_id": "s-1", "payload": payload})
		}
		serve := func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch typ := m["type"]; {
			case typ == "session.create":
				return []string{
					line(map[string]any{"type": "session.created", "id": id, "session_id": "s-1", "payload": map[string]any{"sdk_session_id": "sdk-1"}}),
					sdk(map[string]any{"type": "system", "subtype": "init", "session_id": "sdk-1"}),
					sdk(map[string]any{"type": "assistant", "uuid": "u-1", "session_id": "sdk-1", "message": map[string]any{"content": []any{}}}),
					sdk(map[string]any{"type": "result", "subtype": "success", "session_id": "sdk-1"}),
					// A straggler after the result (BRIDGE-STREAM-2's), queued
					// while the scenario interrupts and kills.
					sdk(map[string]any{"type": "assistant", "uuid": "u-2", "session_id": "sdk-1", "message": map[string]any{"content": []any{}}}),
				}
			case !killed && typ == "session.interrupt":
				return []string{line(map[string]any{"type": "session.interrupted", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
			case !killed && typ == "session.kill":
				killed = true
				return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
			}
			return []string{line(map[string]any{"type": "error", "id": id, "payload": map[string]any{"code": "SESSION_NOT_FOUND", "message": "no session"}})}
		}
		obs := runScenario("interrupt-kill", serve)
		Expect(verdicts(obs, "BRIDGE-KILL-2")).To(ContainElement(verdict.Pass))
		Expect(failures(obs, "BRIDGE-KILL-2")).To(BeEmpty())
	})

	It("reads past a stray result before system/init: the turn's callback and tool result that follow are judged, not skipped", func() {
		obs := runScenario("callback-allow", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return []string{
					line(map[string]any{"type": "session.created", "id": id, "session_id": "s-1", "payload": map[string]any{"sdk_session_id": "sdk-1"}}),
					sdkLine(map[string]any{"type": "result", "subtype": "success"}), // the stray
					sdkLine(map[string]any{"type": "system", "subtype": "init"}),
					sdkLine(map[string]any{"type": "assistant", "uuid": "u-1", "message": map[string]any{"content": []any{
						map[string]any{"type": "tool_use", "id": "tu-1", "name": "Bash", "input": map[string]any{"command": "echo hi"}}}}}),
					line(map[string]any{"type": "callback.request", "id": "cb-1", "session_id": "s-1", "payload": map[string]any{
						"callback_type": "can_use_tool", "tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi"}, "tool_use_id": "tu-1"}}),
				}
			case "callback.response":
				return []string{
					sdkLine(map[string]any{"type": "user", "uuid": "u-2", "message": map[string]any{"content": []any{
						map[string]any{"type": "tool_result", "tool_use_id": "tu-1", "content": "hi", "is_error": false}}}}),
					sdkLine(map[string]any{"type": "result", "subtype": "success"}),
				}
			case "session.kill":
				return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
			}
			return nil
		})
		Expect(verdicts(obs, "BRIDGE-CB-ALLOW-1")).To(ConsistOf(verdict.Pass))
		Expect(verdicts(obs, "BRIDGE-CB-ASK-1")).To(ConsistOf(verdict.Pass))
	})

	It("does not fail BRIDGE-SESSIONS-1 when a session's turn never ends but no frame carries the other session's ids", func() {
		n := 0
		obs := runScenario("sessions", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				n++
				sid := fmt.Sprintf("s-%d", n)
				out := []string{line(map[string]any{"type": "session.created", "id": id, "session_id": sid, "payload": map[string]any{"sdk_session_id": "sdk-" + sid}})}
				if n == 1 { // the first session's turn never ends
					return out
				}
				return append(out,
					line(map[string]any{"type": "sdk.message", "session_id": sid, "payload": map[string]any{"type": "system", "subtype": "init", "session_id": "sdk-" + sid}}),
					line(map[string]any{"type": "sdk.message", "session_id": sid, "payload": map[string]any{"type": "result", "subtype": "success", "session_id": "sdk-" + sid}}))
			case "session.kill":
				return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": m["session_id"], "payload": map[string]any{}})}
			}
			return []string{line(map[string]any{"type": "error", "id": id, "payload": map[string]any{"code": "SDK_ERROR", "message": "no"}})}
		})
		Expect(failures(obs, "BRIDGE-SESSIONS-1")).To(BeEmpty())
		Expect(failures(obs, "BRIDGE-STREAM-1")).NotTo(BeEmpty(), "the turn that never ended is BRIDGE-STREAM-1's")
	})
})

// sdkLine is an sdk.message of session s-1 (SDK session sdk-1).
func sdkLine(payload map[string]any) string {
	payload["session_id"] = "sdk-1"
	return line(map[string]any{"type": "sdk.message", "session_id": "s-1", "payload": payload})
}

// failures lists the failure messages of a rule.
func failures(obs []verdict.Observation, rule string) []string {
	var out []string
	for _, o := range obs {
		if o.Rule == rule && o.Verdict == verdict.Fail {
			out = append(out, o.Message)
		}
	}
	return out
}

// askingBackend creates session s-1 whose turn asks one can_use_tool
// permission; after is what it sends once the callback goes unanswered
// (sent at once: the scripted backend has no clock).
func askingBackend(after ...string) func(map[string]any) []string {
	return func(m map[string]any) []string {
		id, _ := m["id"].(string)
		switch m["type"] {
		case "session.create":
			return append([]string{
				line(map[string]any{"type": "session.created", "id": id, "session_id": "s-1", "payload": map[string]any{"sdk_session_id": "sdk-1"}}),
				sdkLine(map[string]any{"type": "system", "subtype": "init"}),
				sdkLine(map[string]any{"type": "assistant", "uuid": "u-1", "message": map[string]any{"content": []any{
					map[string]any{"type": "tool_use", "id": "tu-1", "name": "Bash", "input": map[string]any{"command": "echo hi"}}}}}),
				line(map[string]any{"type": "callback.request", "id": "cb-1", "session_id": "s-1", "payload": map[string]any{
					"callback_type": "can_use_tool", "tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi"}, "tool_use_id": "tu-1"}}),
			}, after...)
		case "session.kill":
			return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
		}
		return nil
	}
}

var _ = Describe("an unanswered callback", func() {
	refused := sdkLine(map[string]any{"type": "user", "uuid": "u-2", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "tu-1", "content": "timed out", "is_error": true}}}})
	result := sdkLine(map[string]any{"type": "result", "subtype": "success"})

	It("passes an asynchronous CALLBACK_TIMEOUT without an id", func() {
		obs := runScenario("callback-never", askingBackend(
			line(map[string]any{"type": "error", "session_id": "s-1", "payload": map[string]any{"code": "CALLBACK_TIMEOUT", "message": "late"}}),
			refused, result))
		Expect(verdicts(obs, "BRIDGE-CB-TIMEOUT-1")).To(ConsistOf(verdict.Pass))
		Expect(verdicts(obs, "BRIDGE-CB-TIMEOUT-2")).To(ConsistOf(verdict.Pass))
		Expect(failures(obs, "BRIDGE-RESPONSE-1")).To(BeEmpty())
	})

	It("fails BRIDGE-CB-TIMEOUT-1 when the backend gives up without CALLBACK_TIMEOUT", func() {
		obs := runScenario("callback-never", askingBackend(refused, result))
		Expect(failures(obs, "BRIDGE-CB-TIMEOUT-1")).To(HaveLen(1))
		Expect(verdicts(obs, "BRIDGE-CB-TIMEOUT-2")).To(ConsistOf(verdict.Pass))
	})

	It("fails only the SHOULD rule when the backend never gives up, naming the bound and its flag", func() {
		obs := runScenario("callback-never", askingBackend(), "callback_timeout", "400ms")
		Expect(verdicts(obs, "BRIDGE-CB-TIMEOUT-1")).To(ConsistOf(verdict.Skip))
		Expect(failures(obs, "BRIDGE-CB-TIMEOUT-2")).To(ConsistOf(And(ContainSubstring("within 400ms"), ContainSubstring("--param callback_timeout"))))
	})
})

var _ = Describe("a message of a type the document does not list", func() {
	It("is a message, not a log line on stdout: BRIDGE-LOG-1 holds, BRIDGE-ENVELOPE-1 judges its shape", func() {
		obs := runScenario("callback-unknown", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return []string{
					line(map[string]any{"type": "session.created", "id": id, "session_id": "s-1", "payload": map[string]any{"sdk_session_id": "sdk-1"}}),
					line(map[string]any{"type": "session.status", "session_id": "s-1", "payload": map[string]any{"state": "running"}}),
					sdkLine(map[string]any{"type": "system", "subtype": "init"}),
					sdkLine(map[string]any{"type": "result", "subtype": "success"}),
				}
			case "callback.response":
				return []string{line(map[string]any{"type": "error", "id": id, "payload": map[string]any{"code": "CALLBACK_NOT_FOUND", "message": "no"}})}
			case "session.kill":
				return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
			}
			return nil
		})
		Expect(failures(obs, "BRIDGE-LOG-1")).To(BeEmpty())
		Expect(failures(obs, "BRIDGE-ENVELOPE-1")).To(BeEmpty())
		Expect(verdicts(obs, "BRIDGE-CB-NOTFOUND-1")).To(ConsistOf(verdict.Pass, verdict.Pass))
	})
})
