package agentbridge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// queryBackend creates session s-1, whose turn ends at once, and answers
// each query.call by answer(method).
func queryBackend(answer func(method string) map[string]any) func(map[string]any) []string {
	return func(m map[string]any) []string {
		id, _ := m["id"].(string)
		switch m["type"] {
		case "session.create":
			return created(id, sdkLine(map[string]any{"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"}),
				sdkLine(map[string]any{"type": "result", "subtype": "success"}))
		case "query.call":
			method, _ := m["payload"].(map[string]any)["method"].(string)
			return []string{line(map[string]any{"type": "query.result", "id": id, "session_id": "s-1", "payload": answer(method)})}
		case "session.kill":
			return killed(id)
		}
		return nil
	}
}

var _ = Describe("the query methods", func() {
	It("fails BRIDGE-QUERY-1 for each documented method answered as unsupported, and does not take that for a failing method", func() {
		obs := runScenario("query-methods", queryBackend(func(method string) map[string]any {
			switch method {
			case "accountInfo", "setMaxThinkingTokens", "rewindFiles":
				return map[string]any{"success": false, "result": nil, "error": "Unknown or unsupported query method"}
			}
			return map[string]any{"success": true, "result": []any{}}
		}))
		fails := failures(obs, "BRIDGE-QUERY-1")
		Expect(fails).To(HaveLen(3))
		for i, m := range []string{"accountInfo", "setMaxThinkingTokens", "rewindFiles"} {
			Expect(fails[i]).To(And(ContainSubstring(m), ContainSubstring("unknown or unsupported")))
		}
		Expect(verdicts(obs, "BRIDGE-QUERY-2")).To(ConsistOf(verdict.Skip))
	})

	It("passes a rewindFiles that fails on the message id it was given, even when its error names the method", func() {
		obs := runScenario("query-methods", queryBackend(func(method string) map[string]any {
			if method == "rewindFiles" {
				return map[string]any{"success": false, "result": nil, "error": "rewindFiles: unknown user message wirecheck-no-such-message"}
			}
			return map[string]any{"success": true, "result": []any{}}
		}))
		Expect(failures(obs, "BRIDGE-QUERY-1")).To(BeEmpty())
		Expect(verdicts(obs, "BRIDGE-QUERY-2")).To(ConsistOf(verdict.Pass))
	})
})
