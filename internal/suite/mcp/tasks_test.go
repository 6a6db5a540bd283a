package mcp_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/suite/mcp"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The tasks scenario (2025-11-25) against the reference server: by
// default (tasks declared) every MCP-TASKS rule passes; with the variant
// no-tasks only MCP-TASKS-1 is judged, and passes; each task-* fault fails
// the rule it plants.
var _ = Describe("tasks (2025-11-25)", func() {
	tasksRun := func(faults, variants []string, overHTTP bool) *report.Report {
		return runScenario("tasks", "2025-11-25", faults, variants, overHTTP)
	}
	tasksOf := func(rep *report.Report) map[string]verdict.Verdict { return familyOf(rep, "MCP-TASKS-") }
	all := func(v verdict.Verdict, except string, ev verdict.Verdict) map[string]verdict.Verdict {
		return allOf("MCP-TASKS-", 12, v, map[string]verdict.Verdict{except: ev})
	}

	DescribeTable("the server with tasks passes every rule",
		func(variants []string, overHTTP bool) {
			Expect(tasksOf(tasksRun(nil, variants, overHTTP))).To(Equal(all(verdict.Pass, "MCP-TASKS-1", verdict.Pass)))
		},
		Entry("stdio", nil, false),
		Entry("Streamable HTTP", nil, true),
		Entry("stdio, sending notifications/tasks/status", []string{"task-notifications"}, false),
		Entry("Streamable HTTP, sending notifications/tasks/status", []string{"task-notifications"}, true),
	)

	// A task works as long as its server likes: wirecheck waits for it by
	// its ttl (capped), not by --timeout.
	It("passes a server whose task works longer than --timeout, within its ttl", func() {
		rep := runScenarioWithin(time.Second, "tasks", "2025-11-25", nil, []string{"task-slow"}, false)
		Expect(tasksOf(rep)).To(Equal(all(verdict.Pass, "MCP-TASKS-1", verdict.Pass)))
		_, msg := finding(rep, "MCP-TASKS-5")
		Expect(msg).To(ContainSubstring("the wait would have lasted 30s (the task's ttl 1m0s, capped at 30s"))
	})

	It("passes over Streamable HTTP a server whose task works longer than --timeout, answering on a stream it opens at once", func() {
		rep := runScenarioWithin(time.Second, "tasks", "2025-11-25", nil, []string{"task-slow"}, true)
		Expect(tasksOf(rep)).To(Equal(all(verdict.Pass, "MCP-TASKS-1", verdict.Pass)))
	})

	// wirecheck's HTTP transport closes a stream that stays open 4×--timeout
	// without its response; a task working longer than that leaves its
	// tasks/result unseen, which is no finding against the server.
	It("skips MCP-TASKS-5, and finds nothing, when the task outlasts how long wirecheck's HTTP transport holds a stream", func() {
		rep := runScenarioWithin(500*time.Millisecond, "tasks", "2025-11-25", nil, []string{"task-slow"}, true)
		v, msg := finding(rep, "MCP-TASKS-5")
		Expect(v).To(Equal(verdict.Skip))
		Expect(msg).To(ContainSubstring("unanswered when wirecheck's HTTP transport closed its stream (4×--timeout, 2s)"))
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s: %s", f.Rule, f.Message)
		}
	})

	// tasks/result may be answered at the server's next look at the task:
	// tasks/get saying the task ended while it is unanswered is the
	// rule's whole ask, and the scenario does not wait for it.
	It("passes a server answering tasks/result a while after the task ends, once tasks/get says it ended", func() {
		rep := tasksRun(nil, []string{"task-result-late"}, false)
		Expect(tasksOf(rep)).To(Equal(all(verdict.Pass, "MCP-TASKS-1", verdict.Pass)))
		_, msg := finding(rep, "MCP-TASKS-5")
		Expect(msg).To(ContainSubstring("was still unanswered when tasks/get said \"completed\""))
		Expect(msg).To(ContainSubstring("polled every 100ms, the task's pollInterval"))
	})

	DescribeTable("a server without tasks is judged by MCP-TASKS-1 alone",
		func(variant string) {
			Expect(tasksOf(tasksRun(nil, []string{variant}, false))).To(Equal(all(verdict.Skip, "MCP-TASKS-1", verdict.Pass)))
		},
		Entry(nil, "no-tasks"),
		Entry(nil, "bare"),
	)

	DescribeTable("a task-* fault fails its rule",
		func(fault, rule string) {
			Expect(tasksOf(tasksRun([]string{fault}, nil, false))).To(HaveKeyWithValue(rule, verdict.Fail))
		},
		Entry(nil, "task-undeclared", "MCP-TASKS-1"),
		Entry(nil, "task-create-bad", "MCP-TASKS-2"),
		Entry(nil, "task-starts-completed", "MCP-TASKS-3"),
		Entry(nil, "task-get-wrong", "MCP-TASKS-4"),
		Entry(nil, "task-result-early", "MCP-TASKS-5"),
		Entry(nil, "task-result-differs", "MCP-TASKS-6"),
		Entry(nil, "task-status-regresses", "MCP-TASKS-7"),
		Entry(nil, "task-cancel-terminal-ok", "MCP-TASKS-8"),
		Entry(nil, "task-cancel-ignored", "MCP-TASKS-9"),
		Entry(nil, "task-unknown-ok", "MCP-TASKS-10"),
		Entry(nil, "task-list-empty", "MCP-TASKS-11"),
	)
})

// The runner starts the lanes that declare the longest waits first
// (scenario.Idle); the tasks scenario waits out a task the server runs for
// as long as it likes (server-everything's, some 5 s: the whole run's
// floor), so its lane must not start behind a queue of quick ones.
var _ = Describe("the tasks scenario's declared wait", func() {
	It("is the longest of the suite's, so its lane starts first", func() {
		all := mcp.Scenarios()
		var tasks *scenario.Scenario
		for _, s := range all {
			if s.Name == "tasks" {
				tasks = s
			}
		}
		Expect(tasks).NotTo(BeNil())
		for _, s := range all {
			if s != tasks {
				Expect(tasks.Idle).To(BeNumerically(">", s.Idle), "scenario %s", s.Name)
			}
		}
	})
})
