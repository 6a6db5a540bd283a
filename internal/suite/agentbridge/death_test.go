package agentbridge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a backend that died while a wait for its frames ran", func() {
	It("leaves BRIDGE-HOOK-1 not observed (a skip naming the death), not failed", func() {
		var t *scripted
		t = newScripted(func(m map[string]any) []string {
			id, _ := m["id"].(string)
			if m["type"] == "session.create" {
				// The process exits right after session.created; a child
				// it started holds its stdout open, so the wait for the
				// turn's frames runs its bound out.
				t.exit = true
				return created(id)
			}
			return nil
		})
		obs, _ := runOn(t, nil, "options", "turn_timeout", "300ms")
		Expect(observed(obs, "BRIDGE-OPTIONS-1", verdict.Pass)).NotTo(BeEmpty())
		Expect(observed(obs, "BRIDGE-HOOK-1", verdict.Fail)).To(BeEmpty())
		skips := observed(obs, "BRIDGE-HOOK-1", verdict.Skip)
		Expect(skips).To(HaveLen(1))
		Expect(skips[0].Message).To(And(HavePrefix("not observed: the server exited (exit 0) before the wait ended"),
			ContainSubstring("no hook callback.request arrived")))
	})
})
