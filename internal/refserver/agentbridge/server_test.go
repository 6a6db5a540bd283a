package agentbridge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/agentbridge"
	"github.com/wirecheck/wirecheck/internal/refserver/pipe"
)

func TestAgentBridge(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reference agent-bridge backend Suite")
}

// backend is one in-process reference backend on pipes.
type backend struct{ *pipe.Server }

func start(timeout time.Duration, faults ...string) *backend {
	s := &agentbridge.Server{Faults: map[string]bool{}, CallbackTimeout: timeout}
	for _, f := range faults {
		s.Faults[f] = true
	}
	b := &backend{pipe.Start(s.Serve)}
	DeferCleanup(func() { b.In.Close() })
	return b
}

func (b *backend) send(v any) {
	line, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	_, err = b.In.Write(append(line, '\n'))
	Expect(err).NotTo(HaveOccurred())
}

// recv reads the next stdout line: one JSON object with a type and a payload.
func (b *backend) recv() map[string]any {
	var line []byte
	Eventually(b.Lines, 2*time.Second).Should(Receive(&line), "the backend writes a message")
	var m map[string]any
	Expect(json.Unmarshal(line, &m)).To(Succeed(), "stdout line is a JSON object: %s", line)
	Expect(m).To(HaveKey("type"))
	Expect(m).To(HaveKey("payload"))
	return m
}

// until reads messages up to the first whose type (and SDK type) match.
func (b *backend) until(typ, sdkType string) []map[string]any {
	var out []map[string]any
	for {
		m := b.recv()
		out = append(out, m)
		if m["type"] == typ && (sdkType == "" || m["payload"].(map[string]any)["type"] == sdkType) {
			return out
		}
	}
}

func create(id, prompt string, options map[string]any) map[string]any {
	return map[string]any{"type": "session.create", "id": id, "payload": map[string]any{"prompt": prompt, "cwd": "/", "options": options}}
}

func payload(m map[string]any) map[string]any { p, _ := m["payload"].(map[string]any); return p }

// toolResult finds the tool_result block among messages.
func toolResult(ms []map[string]any) map[string]any {
	for _, m := range ms {
		p := payload(m)
		if m["type"] != "sdk.message" || p["type"] != "user" {
			continue
		}
		for _, b := range p["message"].(map[string]any)["content"].([]any) {
			if bl := b.(map[string]any); bl["type"] == "tool_result" {
				return bl
			}
		}
	}
	return nil
}

const toolPrompt = "Use the Bash tool to run `echo hi`."

var _ = Describe("the reference agent-bridge backend", func() {
	It("creates a session and streams system/init, an assistant answer and a result under its id", func() {
		b := start(time.Second)
		b.send(create("c1", "Say hi.", nil))
		created := b.recv()
		Expect(created).To(HaveKeyWithValue("type", "session.created"))
		Expect(created).To(HaveKeyWithValue("id", "c1"))
		sid := created["session_id"]
		sdk := payload(created)["sdk_session_id"]
		ms := b.until("sdk.message", "result")
		Expect(payload(ms[0])).To(HaveKeyWithValue("subtype", "init"))
		for _, m := range ms {
			Expect(m).To(HaveKeyWithValue("session_id", sid))
			Expect(payload(m)).To(HaveKeyWithValue("session_id", sdk))
		}
		Expect(payload(ms[len(ms)-1])).To(HaveKeyWithValue("subtype", "success"))
	})

	It("under fault result-before-init sends the first turn's result first and none at its end; the next turn is whole", func() {
		b := start(time.Second, "result-before-init")
		b.send(create("c1", "Say hi.", nil))
		sid := b.recv()["session_id"]
		first := b.recv()
		Expect(payload(first)).To(HaveKeyWithValue("type", "result"))
		ms := b.until("sdk.message", "assistant")
		Expect(payload(ms[0])).To(HaveKeyWithValue("subtype", "init"))
		b.send(map[string]any{"type": "session.send", "id": "s1", "session_id": sid, "payload": map[string]any{"message": "Again."}})
		// The next line is the second turn's: nothing of the first is left.
		Expect(payload(b.recv())).To(HaveKeyWithValue("type", "assistant"))
		Expect(payload(b.recv())).To(HaveKeyWithValue("type", "result"))
	})

	It("under fault sdk-message-no-session sends every sdk.message without session_id", func() {
		b := start(time.Second, "sdk-message-no-session")
		b.send(create("c1", "Say hi.", nil))
		Expect(b.recv()).To(HaveKey("session_id"))
		for _, m := range b.until("sdk.message", "result") {
			Expect(m).NotTo(HaveKey("session_id"))
		}
	})

	It("under fault cli-dies reports every turn as error SDK_ERROR with the session_id and no id, and nothing else of it", func() {
		b := start(time.Second, "cli-dies")
		b.send(create("c1", "Say hi.", nil))
		sid := b.recv()["session_id"]
		for _, next := range []map[string]any{nil, {"type": "session.send", "id": "s1", "session_id": sid, "payload": map[string]any{"message": "Again."}}} {
			if next != nil {
				b.send(next)
			}
			e := b.recv()
			Expect(e).To(HaveKeyWithValue("type", "error"))
			Expect(e).To(HaveKeyWithValue("session_id", sid))
			Expect(e).NotTo(HaveKey("id"))
			Expect(payload(e)).To(HaveKeyWithValue("code", "SDK_ERROR"))
		}
		b.send(map[string]any{"type": "session.kill", "id": "k1", "session_id": sid, "payload": map[string]any{}})
		Expect(b.recv()).To(HaveKeyWithValue("type", "session.killed"))
	})

	DescribeTable("asks can_use_tool for a tool prompt and carries the answer through",
		func(answer map[string]any, isError bool, content string) {
			b := start(time.Second)
			b.send(create("c1", toolPrompt, nil))
			sid := b.recv()["session_id"]
			ms := b.until("callback.request", "")
			cb := ms[len(ms)-1]
			Expect(cb).To(HaveKeyWithValue("session_id", sid))
			Expect(payload(cb)).To(HaveKeyWithValue("callback_type", "can_use_tool"))
			Expect(payload(cb)).To(HaveKeyWithValue("tool_name", "Bash"))
			b.send(map[string]any{"type": "callback.response", "id": cb["id"], "session_id": sid, "payload": answer})
			ms = b.until("sdk.message", "result")
			res := toolResult(ms)
			Expect(res).NotTo(BeNil())
			Expect(res["is_error"]).To(Equal(isError))
			Expect(res["content"]).To(ContainSubstring(content))
		},
		Entry("allow", map[string]any{"behavior": "allow"}, false, "hi"),
		Entry("allow with updated_input", map[string]any{"behavior": "allow", "updated_input": map[string]any{"command": "echo changed"}}, false, "changed"),
		Entry("deny", map[string]any{"behavior": "deny", "message": "not today"}, true, "not today"),
	)

	It("answers CALLBACK_TIMEOUT when a callback is not answered in time, then ends the turn", func() {
		b := start(30 * time.Millisecond)
		b.send(create("c1", toolPrompt, nil))
		b.recv()
		ms := b.until("callback.request", "")
		cb := ms[len(ms)-1]
		ms = b.until("error", "")
		e := ms[len(ms)-1]
		Expect(e).To(HaveKeyWithValue("id", cb["id"]))
		Expect(payload(e)).To(HaveKeyWithValue("code", agentbridge.CallbackTimeout))
		b.until("sdk.message", "result")
		b.send(map[string]any{"type": "callback.response", "id": cb["id"], "session_id": cb["session_id"], "payload": map[string]any{"behavior": "allow"}})
		Expect(payload(b.recv())).To(HaveKeyWithValue("code", agentbridge.CallbackNotFound))
	})

	It("asks the hooks configured for the events of a turn", func() {
		b := start(time.Second)
		b.send(create("c1", toolPrompt, map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{}, "PreToolUse": []any{}, "PostToolUse": []any{}, "Stop": []any{}}}))
		sid := b.recv()["session_id"]
		var events []any
		for {
			m := b.recv()
			if m["type"] == "callback.request" {
				p := payload(m)
				if p["callback_type"] == "hook" {
					events = append(events, p["hook_event"])
					b.send(map[string]any{"type": "callback.response", "id": m["id"], "session_id": sid, "payload": map[string]any{"continue": true}})
				} else {
					b.send(map[string]any{"type": "callback.response", "id": m["id"], "session_id": sid, "payload": map[string]any{"behavior": "allow"}})
				}
			}
			if m["type"] == "sdk.message" && payload(m)["type"] == "result" {
				break
			}
		}
		Expect(events).To(Equal([]any{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}))
	})

	It("refuses a tool whose PreToolUse hook answers block, without asking permission", func() {
		b := start(time.Second)
		b.send(create("c1", toolPrompt, map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash"}}}}))
		sid := b.recv()["session_id"]
		ms := b.until("callback.request", "")
		hook := ms[len(ms)-1]
		Expect(payload(hook)).To(HaveKeyWithValue("hook_event", "PreToolUse"))
		b.send(map[string]any{"type": "callback.response", "id": hook["id"], "session_id": sid, "payload": map[string]any{"decision": "block", "reason": "not here"}})
		ms = b.until("sdk.message", "result")
		for _, m := range ms {
			Expect(m["type"]).NotTo(Equal("callback.request"), "no permission is asked for a blocked tool")
		}
		res := toolResult(ms)
		Expect(res).To(HaveKeyWithValue("is_error", true))
		Expect(res["content"]).To(ContainSubstring("not here"))
	})

	It("resolves a pending callback at session.interrupt: no tool runs, a late answer is CALLBACK_NOT_FOUND, the session goes on", func() {
		b := start(time.Second)
		b.send(create("c1", toolPrompt, nil))
		sid := b.recv()["session_id"]
		ms := b.until("callback.request", "")
		cb := ms[len(ms)-1]
		b.send(map[string]any{"type": "session.interrupt", "id": "i1", "session_id": sid, "payload": map[string]any{}})
		// session.interrupted may come before or after the turn's result; the
		// late answer is sent only once session.interrupted was read.
		var got []map[string]any
		for {
			m := b.recv()
			got = append(got, m)
			if m["type"] == "session.interrupted" {
				break
			}
		}
		Expect(got[len(got)-1]).To(HaveKeyWithValue("id", "i1"))
		b.send(map[string]any{"type": "callback.response", "id": cb["id"], "session_id": sid, "payload": map[string]any{"behavior": "allow"}})
		for {
			m := b.recv()
			got = append(got, m)
			if m["type"] == "error" {
				Expect(m).To(HaveKeyWithValue("id", cb["id"]))
				Expect(payload(m)).To(HaveKeyWithValue("code", agentbridge.CallbackNotFound))
				break
			}
		}
		if !strings.Contains(fmt.Sprint(got), "error_during_execution") {
			got = append(got, b.until("sdk.message", "result")...)
		}
		Expect(toolResult(got)).To(BeNil(), "the interrupted tool does not run")
		var subtypes []any
		for _, m := range got {
			if m["type"] == "sdk.message" && payload(m)["type"] == "result" {
				subtypes = append(subtypes, payload(m)["subtype"])
			}
		}
		Expect(subtypes).To(Equal([]any{"error_during_execution"}))
		b.send(map[string]any{"type": "session.send", "id": "s1", "session_id": sid, "payload": map[string]any{"message": "Say hi."}})
		ms = b.until("sdk.message", "result")
		Expect(payload(ms[len(ms)-1])).To(HaveKeyWithValue("subtype", "success"))
	})

	It("answers every query method, and a failing one with success false", func() {
		b := start(time.Second)
		b.send(create("c1", "Say hi.", map[string]any{"mcp_servers": map[string]any{"m": map[string]any{"command": "true"}}}))
		sid := b.recv()["session_id"]
		b.until("sdk.message", "result")
		for _, m := range []string{"supportedModels", "supportedCommands", "mcpServerStatus", "accountInfo", "setModel", "setPermissionMode", "setMaxThinkingTokens"} {
			args := map[string][]any{"setModel": {"claude-opus-4-1"}, "setPermissionMode": {"plan"}, "setMaxThinkingTokens": {2048}}[m]
			if args == nil {
				args = []any{}
			}
			b.send(map[string]any{"type": "query.call", "id": "q-" + m, "session_id": sid, "payload": map[string]any{"method": m, "args": args}})
			r := b.recv()
			Expect(r).To(HaveKeyWithValue("type", "query.result"))
			Expect(r).To(HaveKeyWithValue("id", "q-"+m))
			Expect(payload(r)).To(HaveKeyWithValue("success", true), m)
		}
		b.send(map[string]any{"type": "query.call", "id": "q-rw", "session_id": sid, "payload": map[string]any{"method": "rewindFiles", "args": []any{"nope"}}})
		r := b.recv()
		Expect(payload(r)).To(HaveKeyWithValue("success", false))
		Expect(payload(r)["error"]).NotTo(BeEmpty())
	})

	It("under fault query-unsupported answers three documented query methods as unknown, and the others as ever", func() {
		b := start(time.Second, "query-unsupported")
		b.send(create("c1", "Say hi.", nil))
		sid := b.recv()["session_id"]
		b.until("sdk.message", "result")
		for _, m := range []string{"supportedModels", "accountInfo", "setMaxThinkingTokens", "rewindFiles"} {
			b.send(map[string]any{"type": "query.call", "id": "q-" + m, "session_id": sid, "payload": map[string]any{"method": m, "args": []any{}}})
			r := b.recv()
			Expect(r).To(HaveKeyWithValue("type", "query.result"))
			if m == "supportedModels" {
				Expect(payload(r)).To(HaveKeyWithValue("success", true))
				continue
			}
			Expect(payload(r)).To(HaveKeyWithValue("success", false))
			Expect(payload(r)["error"]).To(ContainSubstring("Unknown or unsupported query method"))
		}
	})

	It("forgets a killed session: every later message for it is SESSION_NOT_FOUND", func() {
		b := start(time.Second)
		b.send(create("c1", "Say hi.", nil))
		sid := b.recv()["session_id"]
		b.until("sdk.message", "result")
		b.send(map[string]any{"type": "session.interrupt", "id": "i1", "session_id": sid, "payload": map[string]any{}})
		Expect(b.recv()).To(And(HaveKeyWithValue("type", "session.interrupted"), HaveKeyWithValue("id", "i1")))
		b.send(map[string]any{"type": "session.kill", "id": "k1", "session_id": sid, "payload": map[string]any{}})
		Expect(b.recv()).To(And(HaveKeyWithValue("type", "session.killed"), HaveKeyWithValue("id", "k1")))
		for _, t := range []string{"session.send", "session.interrupt", "session.kill", "query.call"} {
			b.send(map[string]any{"type": t, "id": "x-" + t, "session_id": sid, "payload": map[string]any{"message": "hi", "method": "accountInfo"}})
			r := b.recv()
			Expect(r).To(HaveKeyWithValue("id", "x-"+t))
			Expect(payload(r)).To(HaveKeyWithValue("code", agentbridge.SessionNotFound))
		}
	})

	It("answers bad input with INVALID_MESSAGE, logs only to stderr and exits 0 at the end of input", func() {
		b := start(time.Second)
		_, err := io.WriteString(b.In, "not json\n[1]\n{\"type\":\"nope\",\"id\":\"n\",\"payload\":{}}\n")
		Expect(err).NotTo(HaveOccurred())
		for range 3 {
			Expect(payload(b.recv())).To(HaveKeyWithValue("code", agentbridge.InvalidMessage))
		}
		b.In.Close()
		Eventually(b.Exit, 2*time.Second).Should(Receive(Equal(0)))
		Expect(b.Stderr.String()).To(ContainSubstring("agent-bridge reference backend"))
	})

	It("is deterministic: the same input gives the same output", func() {
		run := func() string {
			b := start(time.Second)
			b.send(create("c1", toolPrompt, map[string]any{"include_partial_messages": true}))
			var out strings.Builder
			for _, m := range b.until("callback.request", "") {
				j, _ := json.Marshal(m)
				out.Write(append(j, '\n'))
			}
			b.send(map[string]any{"type": "callback.response", "id": "cb-6", "session_id": "session-1", "payload": map[string]any{"behavior": "allow"}})
			for _, m := range b.until("sdk.message", "result") {
				j, _ := json.Marshal(m)
				out.Write(append(j, '\n'))
			}
			return out.String()
		}
		first := run()
		Expect(first).To(ContainSubstring(`"id":"cb-6"`))
		Expect(run()).To(Equal(first))
	})
})
