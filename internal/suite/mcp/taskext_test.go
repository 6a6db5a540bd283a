package mcp_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The tasks extension (2026-07-28) against the reference server: by
// default (extension declared, add made a task) every MCP-TASKEXT rule
// passes; its legal variants pass what they exercise and fail nothing;
// each task-ext-* fault fails the rule it plants.
var _ = Describe("the tasks extension (2026-07-28)", func() {
	extRun := func(faults, variants []string, overHTTP bool) *report.Report {
		return runScenario("tasks-extension", "2026-07-28", faults, variants, overHTTP)
	}
	extOf := func(rep *report.Report) map[string]verdict.Verdict { return familyOf(rep, "MCP-TASKEXT-") }
	all := func(v verdict.Verdict, except map[string]verdict.Verdict) map[string]verdict.Verdict {
		return allOf("MCP-TASKEXT-", 15, v, except)
	}

	DescribeTable("a server with the extension passes every rule it exercises",
		func(variants []string, overHTTP bool, want map[string]verdict.Verdict) {
			if !overHTTP {
				// Routing headers are HTTP's.
				want = mergeVerdicts(want, map[string]verdict.Verdict{"MCP-TASKEXT-15": verdict.Skip})
			}
			Expect(extOf(extRun(nil, variants, overHTTP))).To(Equal(all(verdict.Pass, want)))
		},
		Entry("stdio", nil, false, nil),
		Entry("Streamable HTTP", nil, true, nil),
		Entry("tasks created completed", []string{"task-ext-immediate"}, false, nil),
		Entry("ttlMs null", []string{"task-ext-no-ttl"}, false, nil),
		Entry("add refused -32021 without the extension", []string{"task-ext-required"}, false,
			map[string]verdict.Verdict{"MCP-TASKEXT-7": verdict.Skip}),
		Entry("add answering differently each call", []string{"tool-varying"}, false,
			map[string]verdict.Verdict{"MCP-TASKEXT-7": verdict.Skip}),
	)

	It("waits for a task working longer than --timeout by its ttlMs", func() {
		rep := runScenarioWithin(time.Second, "tasks-extension", "2026-07-28", nil, []string{"task-slow"}, false)
		Expect(extOf(rep)).To(Equal(all(verdict.Pass, map[string]verdict.Verdict{"MCP-TASKEXT-15": verdict.Skip})))
	})

	It("judges only unknown taskIds of a server declaring the extension that makes no task", func() {
		Expect(extOf(extRun(nil, []string{"task-ext-sync"}, false))).To(Equal(all(verdict.Skip,
			map[string]verdict.Verdict{"MCP-TASKEXT-11": verdict.Pass, "MCP-TASKEXT-12": verdict.Pass})))
	})

	DescribeTable("a server without the extension is not judged by it",
		func(variant string) {
			Expect(extOf(extRun(nil, []string{variant}, false))).To(Equal(all(verdict.Skip, nil)))
		},
		Entry(nil, "tasks-ext-undeclared"),
		Entry(nil, "bare"),
	)

	DescribeTable("a task-ext-* fault fails its rule",
		func(fault, rule string) {
			Expect(extOf(extRun([]string{fault}, nil, false))).To(HaveKeyWithValue(rule, verdict.Fail))
		},
		Entry(nil, "task-ext-unasked", "MCP-TASKEXT-1"),
		Entry(nil, "task-ext-required-bad-code", "MCP-TASKEXT-2"),
		Entry(nil, "task-ext-result-type", "MCP-TASKEXT-3"),
		Entry(nil, "task-ext-get-type", "MCP-TASKEXT-4"),
		Entry(nil, "task-ext-not-durable", "MCP-TASKEXT-5"),
		Entry(nil, "task-ext-get-no-result", "MCP-TASKEXT-6"),
		Entry(nil, "task-ext-result-differs", "MCP-TASKEXT-7"),
		Entry(nil, "task-ext-update-envelope", "MCP-TASKEXT-8"),
		Entry(nil, "task-ext-cancel-envelope", "MCP-TASKEXT-9"),
		Entry(nil, "task-ext-cancel-terminal-refused", "MCP-TASKEXT-10"),
		Entry(nil, "task-ext-unknown-ok", "MCP-TASKEXT-11"),
		Entry(nil, "task-ext-ungated", "MCP-TASKEXT-13"),
		Entry(nil, "task-ext-listen-ungated", "MCP-TASKEXT-14"),
	)

	It("fails MCP-TASKEXT-15 of a server over HTTP serving tasks/get whose Mcp-Name is another task's", func() {
		Expect(extOf(extRun([]string{"task-ext-name-unchecked"}, nil, true))).To(Equal(all(verdict.Pass,
			map[string]verdict.Verdict{"MCP-TASKEXT-15": verdict.Fail})))
	})
})

func mergeVerdicts(a, b map[string]verdict.Verdict) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
