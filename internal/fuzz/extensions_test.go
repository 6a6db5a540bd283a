package fuzz_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// sentMethods runs a short campaign against the MCP reference server at a
// revision and counts the methods of the requests it sent (setup and
// discovery included), and of those the task-augmented tools/calls.
func sentMethods(revision string, runs int) map[string]int {
	sent := map[string]int{}
	_ = revCampaign("mcp", revision, fuzz.Config{Runs: runs, Seed: 2, Trace: func(steps []scenario.Step) {
		for _, st := range steps {
			m, ok := st.Send.(map[string]any)
			if !ok {
				continue
			}
			method, _ := m["method"].(string)
			sent[method]++
			if p, ok := m["params"].(map[string]any); ok && method == "tools/call" && p["task"] != nil {
				sent["tools/call with a task"]++
			}
		}
	}})
	return sent
}

// The fuzz model draws the requests of the revision under test and of the
// extensions the server declares (spec.Fuzz Requests, and follow-up
// requests about what the server lists or makes), not the generic request
// alone, which never names their methods.
var _ = Describe("fuzz draws the methods of the revision and of the extensions the server declares", func() {
	It("sends the 2025-11-25 tasks methods and task-augmented tools/call", func() {
		sent := sentMethods("2025-11-25", 40)
		for _, m := range []string{"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tools/call with a task"} {
			Expect(sent).To(HaveKeyWithValue(m, BeNumerically(">", 0)), "%s (sent: %v)", m, sent)
		}
	})

	It("sends the 2026-07-28 skills methods", func() {
		sent := sentMethods("2026-07-28", 40)
		for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
			Expect(sent).To(HaveKeyWithValue(m, BeNumerically(">", 0)), "%s (sent: %v)", m, sent)
		}
	})

	DescribeTable("finds a fault of the reference server's extension handling by the rule judging its answers",
		func(revision, fault, rule string) {
			bugs := revCampaign("mcp", revision, fuzz.Config{Runs: 40, Seed: 3, ShrinkTime: time.Nanosecond, MaxFailures: 1,
				Rules: []string{rule}}, "--fault", fault)
			Expect(rulesOf(bugs)).To(ContainElement(HavePrefix(rule + " after ")))
		},
		Entry(nil, "2025-11-25", "task-create-bad", "MCP-TASKS-2"),
		Entry(nil, "2025-11-25", "task-get-wrong", "MCP-TASKS-4"),
		Entry(nil, "2026-07-28", "skills-entry-no-resources", "MCP-SKILLS-5"),
	)
})
