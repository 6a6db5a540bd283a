package fuzz_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// A server may make its taskIds and cursors anew each run: a reproducer
// that repeated the ones the fuzzed server made would ask the replayed
// one about a task it never made. The variant random-ids makes them so.
var _ = Describe("a reproducer of a finding about what the server made", func() {
	DescribeTable("refers to the taskIds and cursors of the replayed server's answers: replayed, the same rule fails, and only it",
		func(revision, fault, rule string, runs int, taskPath string, variants ...string) {
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			serve := []string{bin, "serve", "mcp", "--fault", fault, "--variant", "random-ids", "--variant", "one-per-page"}
			for _, v := range variants {
				serve = append(serve, "--variant", v)
			}
			b, err := protocols.Load("mcp")
			Expect(err).NotTo(HaveOccurred())
			p, err := b.Protocol.ForVersion(revision)
			Expect(err).NotTo(HaveOccurred())
			c, err := fuzz.New(fuzz.Config{Protocol: p, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge,
				Target: target.Target{Argv: serve}, Timeout: time.Second, StartupTimeout: 5 * time.Second,
				Runs: runs, Seed: 3, ShrinkTime: 30 * time.Second, MaxFailures: 1, Rules: []string{rule}})
			Expect(err).NotTo(HaveOccurred())
			bugs, err := c.Run(context.Background())
			Expect(err).NotTo(HaveOccurred())
			Expect(rulesOf(bugs)).To(ConsistOf(HavePrefix(rule + " after ")))
			file, err := c.Save(bugs[0], GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())

			data, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			var steps []string
			for _, l := range strings.Split(string(data), "\n") {
				if !strings.HasPrefix(l, "#") {
					steps = append(steps, l)
				}
			}
			saved := strings.Join(steps, "\n")
			Expect(saved).To(MatchRegexp(`taskId:\s*\n\s*\$from: r\d+\n\s*\$path: `+taskPath), "the tasks/get refers to the call's answer")
			Expect(saved).To(MatchRegexp(`cursor:\s*\n\s*\$from: r\d+\n\s*\$path: /result/nextCursor`), "a page refers to the cursor of the page before")
			// The server's ids are task-<16 hex> (random-ids): none is
			// repeated. A taskId the fuzzer drew itself may stay when a
			// loaded machine cuts the shrinking short.
			Expect(saved).NotTo(MatchRegexp(`taskId: "?task-[0-9a-f]{16}`), "no taskId the fuzzed server made")

			// What the server answered, copied: no answer says it was asked
			// about a task or a cursor it never made.
			answered := filepath.Join(GinkgoT().TempDir(), "stdout")
			teed := append([]string{"bash", "-c", `out=$1; shift; "$@" | tee -a "$out"`, "wirecheck-tee", answered}, serve...)
			out, _ := exec.Command(bin, append([]string{"replay", file, "--"}, teed...)...).CombinedOutput()
			failed := regexp.MustCompile(`(?m)^\s*FAIL\s+(\S+)\s+(?:MUST|SHOULD|MAY)\s`).FindAllStringSubmatch(string(out), -1)
			var rules []string
			for _, m := range failed {
				rules = append(rules, m[1])
			}
			Expect(rules).To(ConsistOf(rule), string(out))
			got, err := os.ReadFile(answered)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(ContainSubstring(`"nextCursor"`), "the pages were read")
			Expect(string(got)).NotTo(ContainSubstring("unknown cursor"))
			Expect(string(got)).NotTo(ContainSubstring("Task not found"))
		},
		Entry("2025-11-25: tasks/get of a task a task-augmented call made", "2025-11-25", "task-get-wrong", "MCP-TASKS-4", 40, "/result/task/taskId"),
		// Its tasks created completed: a campaign's sequences are quicker
		// than a task's run.
		Entry("2026-07-28, the tasks extension: tasks/get of a task a call declaring it made", "2026-07-28", "task-ext-get-no-result", "MCP-TASKEXT-6", 120,
			"/result/taskId", "task-ext-immediate"),
	)
})
