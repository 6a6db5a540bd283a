package mcp_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a server that requires a token, run without one", func() {
	DescribeTable("fails none of its rules (401 is what the authorization pages ask), and every error says to pass a token",
		func(revision, authRule string) {
			// The reference server with the variant auth: correct, and it
			// answers every request without credentials 401 (basic/
			// authorization), so a run without --header learns nothing but
			// its authorization rules. Found by internal/runner/alonecheck:
			// each such 401 failed MCP-JSONRPC-5, and over the legacy
			// transport MCP-SSE-1.
			t, stop := testrun.Front(refserver.Options{Variants: []string{"auth"}}, nil)
			DeferCleanup(stop)
			b, err := protocols.Load("mcp")
			Expect(err).NotTo(HaveOccurred())
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: revision, Command: t},
				runner.Config{Scenarios: b.Scenarios, Timeout: 5 * time.Second})
			Expect(err).NotTo(HaveOccurred())
			var errs []string
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(Equal(verdict.Fail), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
				if f.Verdict == verdict.Error {
					errs = append(errs, f.Message)
				}
			}
			Expect(errs).NotTo(BeEmpty())
			Expect(strings.Join(errs, "\n")).To(ContainSubstring("the server requires a token and this run sent none: pass one with --header"))
			v, msg := finding(rep, authRule)
			Expect(v).To(Equal(verdict.Pass), "the authorization rules are judged without a token: %s", msg)
		},
		Entry("2025-06-18", "2025-06-18", "MCP-AUTH-5"),
		// server/discover refused 401 says nothing of the revision the
		// server speaks: MCP-DISCOVER-1 is skipped (it failed, found by
		// alonecheck in session 11).
		Entry("2026-07-28", "2026-07-28", "MCP-AUTH-2"),
	)
})
