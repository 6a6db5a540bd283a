package agentbridge

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func frame(raw string) *peer.Inbound {
	v, err := schema.Decode([]byte(raw))
	Expect(err).NotTo(HaveOccurred())
	return &peer.Inbound{Raw: []byte(raw), Value: v}
}

var _ = Describe("a callback rule skipped for want of a tool use", func() {
	var seen []verdict.Observation
	var b *bridge
	BeforeEach(func() {
		seen = nil
		b = &bridge{e: &scenario.Env{Observe: func(o verdict.Observation) { seen = append(seen, o) }}}
	})

	It("names the dead process, not the prompt, when the turn ended in an error", func() {
		t := &turn{
			errors: []*peer.Inbound{frame(`{"type":"error","session_id":"s-1","payload":{"code":"SDK_ERROR","message":"Claude Code process exited with code 1"}}`)},
			result: frame(`{"type":"sdk.message","session_id":"s-1","payload":{"type":"result","subtype":"error_during_execution","is_error":true}}`),
		}
		b.judgeCallbacks(&session{id: "s-1"}, t, Allow)
		Expect(seen).To(HaveLen(1))
		Expect(seen[0].Verdict).To(Equal(verdict.Skip))
		Expect(seen[0].Message).To(ContainSubstring("Claude Code process exited with code 1"))
		Expect(seen[0].Message).To(ContainSubstring("error_during_execution"))
		Expect(seen[0].Message).NotTo(ContainSubstring("--param prompt"))
	})

	It("keeps the prompt hint when the turn ended well without a tool", func() {
		t := &turn{result: frame(`{"type":"sdk.message","session_id":"s-1","payload":{"type":"result","subtype":"success","is_error":false}}`)}
		b.judgeCallbacks(&session{id: "s-1"}, t, Allow)
		Expect(seen).To(HaveLen(1))
		Expect(seen[0].Message).To(ContainSubstring("--param prompt"))
	})
})
