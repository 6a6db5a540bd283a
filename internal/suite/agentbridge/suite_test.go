package agentbridge_test

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/suite/agentbridge"
	"github.com/wirecheck/wirecheck/schemas"
)

func TestAgentBridgeSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "agent-bridge scenarios Suite")
}

func inbound(raw string) *peer.Inbound {
	v, err := schema.Decode([]byte(raw))
	Expect(err).NotTo(HaveOccurred())
	return &peer.Inbound{Raw: []byte(raw), Value: v}
}

func decode(b []byte) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal(b, &m)).To(Succeed())
	return m
}

const canUseTool = `{"type":"callback.request","id":"cb-1","session_id":"s-1","payload":{"callback_type":"can_use_tool","tool_name":"Bash","tool_input":{"command":"ls","description":"list"}}}`

var _ = Describe("the callback answerer", func() {
	var reg *schema.Registry
	BeforeEach(func() {
		var err error
		reg, err = schema.Compile(schemas.FS, "agent-bridge")
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("answers can_use_tool by its policy with a callback.response of the same id and session",
		func(p agentbridge.Policy, want map[string]any) {
			a := agentbridge.NewAnswerer(p)
			out := a.Handle(inbound(canUseTool))
			Expect(a.Seen()).To(HaveLen(1))
			if want == nil {
				Expect(out).To(BeNil())
				return
			}
			m := decode(out)
			Expect(m).To(HaveKeyWithValue("type", "callback.response"))
			Expect(m).To(HaveKeyWithValue("id", "cb-1"))
			Expect(m).To(HaveKeyWithValue("session_id", "s-1"))
			Expect(m["payload"]).To(Equal(want))
			v, err := schema.Decode(out)
			Expect(err).NotTo(HaveOccurred())
			Expect(reg.Get("request.json").Validate(v)).To(Succeed())
		},
		Entry("allow", agentbridge.Allow, map[string]any{"behavior": "allow", "updated_input": map[string]any{"command": "ls", "description": "list"}}),
		Entry("deny", agentbridge.Deny, map[string]any{"behavior": "deny", "message": agentbridge.DenyMessage}),
		Entry("allow-updated", agentbridge.AllowUpdated, map[string]any{"behavior": "allow", "updated_input": map[string]any{"command": agentbridge.UpdatedCommand, "description": "list"}}),
		Entry("never", agentbridge.Never, nil),
	)

	It("answers hooks with continue under every answering policy, and ignores other requests", func() {
		hook := inbound(`{"type":"callback.request","id":"h-1","session_id":"s-1","payload":{"callback_type":"hook","hook_event":"Stop","hook_input":{}}}`)
		for _, p := range []agentbridge.Policy{agentbridge.Allow, agentbridge.Deny, agentbridge.AllowUpdated} {
			Expect(decode(agentbridge.NewAnswerer(p).Handle(hook))["payload"]).To(Equal(map[string]any{"continue": true}))
		}
		Expect(agentbridge.Handler(inbound(`{"type":"sdk.message","session_id":"s","payload":{"type":"user"}}`))).To(BeNil())
	})

	It("answers the hook events it is told to block with decision block, others with continue", func() {
		a := agentbridge.NewAnswerer(agentbridge.Allow)
		a.Block = map[string]bool{"PreToolUse": true}
		pre := inbound(`{"type":"callback.request","id":"h-1","session_id":"s-1","payload":{"callback_type":"hook","hook_event":"PreToolUse","hook_input":{}}}`)
		stop := inbound(`{"type":"callback.request","id":"h-2","session_id":"s-1","payload":{"callback_type":"hook","hook_event":"Stop","hook_input":{}}}`)
		out := a.Handle(pre)
		Expect(decode(out)["payload"]).To(Equal(map[string]any{"decision": "block", "reason": agentbridge.BlockReason}))
		v, err := schema.Decode(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(reg.Get("request.json").Validate(v)).To(Succeed())
		Expect(decode(a.Handle(stop))["payload"]).To(Equal(map[string]any{"continue": true}))
		Expect(decode(a.Handle(inbound(canUseTool)))["payload"]).To(HaveKeyWithValue("behavior", "allow"))
	})

	It("reads the policy a user picks, and rejects an unknown one", func() {
		p, err := agentbridge.ParsePolicy("")
		Expect(err).NotTo(HaveOccurred())
		Expect(p).To(Equal(agentbridge.Allow))
		p, err = agentbridge.ParsePolicy("allow-updated")
		Expect(err).NotTo(HaveOccurred())
		Expect(p).To(Equal(agentbridge.AllowUpdated))
		_, err = agentbridge.ParsePolicy("maybe")
		Expect(err).To(MatchError(ContainSubstring("allow, deny, allow-updated, never")))
	})

	It("sends a session.create with every option that is valid against the request schema", func() {
		req := map[string]any{"type": "session.create", "id": "c", "payload": map[string]any{"prompt": "p", "cwd": "/", "options": agentbridge.AllOptions("/tmp")}}
		b, err := json.Marshal(req)
		Expect(err).NotTo(HaveOccurred())
		v, err := schema.Decode(b)
		Expect(err).NotTo(HaveOccurred())
		Expect(reg.Get("request.json").Validate(v)).To(Succeed())
		opts := req["payload"].(map[string]any)["options"].(map[string]any)
		Expect(opts["hooks"]).To(HaveLen(len(agentbridge.HookEvents)))
		// And the schema rejects an option the document does not list.
		opts["colour"] = "blue"
		b, _ = json.Marshal(req)
		v, _ = schema.Decode(b)
		Expect(reg.Get("request.json").Validate(v)).NotTo(Succeed())
	})
})
