package mcp_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A tool slower than --timeout (a long poll, a tool waiting on the
// network) breaks nothing: MCP bounds no response time. The reference
// server's variant slow-tool lists long-poll, which answers no call until
// cancelled and none then, so whatever the timeout its calls go
// unanswered: the verdicts below do not depend on timing.
var _ = Describe("a tool slower than --timeout", func() {
	slowRun := func(revision string, overHTTP bool, params map[string]string) *report.Report {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		srv := testrun.Server{Protocol: "mcp", Revision: revision, Variants: []string{"slow-tool"}}
		if overHTTP {
			t, stop := testrun.Front(refserver.Options{Variants: srv.Variants}, nil)
			DeferCleanup(stop)
			srv.Command = t
		}
		rep, err := testrun.Run(srv, runner.Config{Scenarios: b.Scenarios, Timeout: 2 * time.Second, Params: params})
		Expect(err).NotTo(HaveOccurred())
		return rep
	}
	notJudged := func(rep *report.Report) []string {
		var out []string
		for _, n := range rep.Notes {
			if strings.Contains(n, `tool "long-poll" not judged`) {
				out = append(out, n)
			}
		}
		return out
	}

	DescribeTable("is cancelled and left unjudged, naming --timeout and --param skip-tool, while the other tools are judged",
		func(revision string, overHTTP bool) {
			rep := slowRun(revision, overHTTP, nil)
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
			}
			Expect(notJudged(rep)).NotTo(BeEmpty())
			Expect(notJudged(rep)[0]).To(ContainSubstring("no answer within 2s (--timeout); wirecheck cancelled the call, and the server answered the probe after it; raise --timeout, or leave the tool out with --param skip-tool=long-poll"))
			Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("MCP-TOOLS-5", verdict.Pass))
		},
		Entry("2025-06-18", "2025-06-18", false),
		Entry("2026-07-28", "2026-07-28", false),
		// The POST's exchange runs out of --timeout too (no response
		// headers): no finding either.
		Entry("2025-06-18 over Streamable HTTP", "2025-06-18", true),
		Entry("2026-07-28 over Streamable HTTP", "2026-07-28", true),
	)

	It("is not called at all with --param skip-tool naming it", func() {
		// long-poll never answers: called, it would be noted as slow.
		rep := slowRun("2025-06-18", false, map[string]string{"skip-tool": "echo\nlong-poll"})
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
		}
		Expect(notJudged(rep)).To(BeEmpty())
		Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("MCP-TOOLS-5", verdict.Pass))
	})
})
