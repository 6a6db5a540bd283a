package fuzz_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
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
			p, _ := m["params"].(map[string]any)
			if method == "tools/call" && p["task"] != nil {
				sent["tools/call with a task"]++
			}
			if declaresTasksExt(p) {
				sent[method+" declaring the tasks extension"]++
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

	It("sends the 2026-07-28 tasks extension's methods, declaring it, about the tasks its calls made", func() {
		sent := sentMethods("2026-07-28", 120)
		for _, m := range []string{"tools/call", "tasks/get", "tasks/update", "tasks/cancel"} {
			Expect(sent).To(HaveKeyWithValue(m+" declaring the tasks extension", BeNumerically(">", 0)), "%s (sent: %v)", m, sent)
		}
	})

	It("sends the 2026-07-28 skills methods", func() {
		sent := sentMethods("2026-07-28", 40)
		for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
			Expect(sent).To(HaveKeyWithValue(m, BeNumerically(">", 0)), "%s (sent: %v)", m, sent)
		}
	})

	DescribeTable("finds a fault of the reference server's extension handling by the rule judging its answers",
		func(revision, fault, rule string, runs int, serve ...string) {
			bugs := revCampaign("mcp", revision, fuzz.Config{Runs: runs, Seed: 3, ShrinkTime: time.Nanosecond, MaxFailures: 1,
				Rules: []string{rule}}, append([]string{"--fault", fault}, serve...)...)
			Expect(rulesOf(bugs)).To(ContainElement(HavePrefix(rule + " after ")))
		},
		Entry(nil, "2025-11-25", "task-create-bad", "MCP-TASKS-2", 40),
		Entry(nil, "2025-11-25", "task-get-wrong", "MCP-TASKS-4", 40),
		Entry(nil, "2026-07-28", "skills-entry-no-resources", "MCP-SKILLS-5", 40),
		// Its tasks created completed: a campaign's sequences are quicker
		// than a task's run.
		Entry(nil, "2026-07-28", "task-ext-get-no-result", "MCP-TASKEXT-6", 120, "--variant", "task-ext-immediate"),
	)

	// The reference server refuses over HTTP a tasks/get whose Mcp-Name
	// is not its taskId (MCP-TASKEXT-15): the fault is found only if the
	// campaign's tasks/get carry the header as the extension asks.
	It("finds it over Streamable HTTP too, its tasks/get carrying Mcp-Name", func() {
		bugs, _ := fuzzServed([]string{"--fault", "task-ext-get-no-result", "--variant", "task-ext-immediate"}, "2026-07-28", "http", 40, 4, verdict.Should, "MCP-TASKEXT-6")
		Expect(bugRules(bugs)).To(ContainElement(HavePrefix("MCP-TASKEXT-6 ")))
	})
})

// declaresTasksExt reports whether a request's params declare the 2026-07-28
// tasks extension in their _meta.
func declaresTasksExt(p map[string]any) bool {
	meta, _ := p["_meta"].(map[string]any)
	caps, _ := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext["io.modelcontextprotocol/tasks"]
	return ok
}
