package protocols_test

import (
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A server that is MCP but not Sophon: the sophon suite must say which of
// Sophon's promises it does not keep, each with its evidence, and judge
// the rest (MCP's rules, Sophon's it does keep) as it would any server.
var _ = Describe("the sophon suite against the plain MCP reference server", func() {
	DescribeTable("reports exactly the sophon rules it does not meet, with their evidence, and no harness error",
		func(tr string, want []string) {
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			t := target.Target{Argv: []string{bin, "serve", "mcp"}}
			if tr != "stdio" {
				// The plain server serves MCP's usual paths, not Sophon's.
				t = target.Target{Argv: []string{bin, "serve", "mcp", "--" + tr, "127.0.0.1:{port}"}, Transport: tr,
					Paths: map[string]string{"http": "/mcp", "sse": "/sse"}}
			}
			rep, err := testrun.Run(testrun.Server{Protocol: "sophon", Command: t},
				runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Params: map[string]string{"rate_limit": "check"}})
			Expect(err).NotTo(HaveOccurred())
			failed := map[string]bool{}
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(Equal(verdict.Error), "a harness error: %s in %s: %s", f.Rule, f.Scenario, f.Message)
				if f.Verdict != verdict.Fail {
					continue
				}
				Expect(f.Rule).To(HavePrefix("SOPHON-"), "the plain server meets MCP: %s", evidence(rep, f.Rule))
				failed[f.Rule] = true
				Expect(f.Message).NotTo(BeEmpty())
				Expect(f.Actual).NotTo(BeEmpty(), "%s: the evidence", f.Rule)
			}
			var got []string
			for r := range failed {
				got = append(got, r)
			}
			sort.Strings(got)
			Expect(got).To(Equal(want), "%s", strings.Join(got, ", "))
			// What it does keep is judged, not skipped: the handshake,
			// the error codes, reading and subscribing.
			v := testrun.Verdicts(rep)
			for _, r := range []string{"SOPHON-INIT-1", "SOPHON-INIT-2", "SOPHON-INIT-3", "SOPHON-ERROR-32700", "SOPHON-ERROR-32601", "SOPHON-RES-2", "SOPHON-RES-4"} {
				Expect(v[r]).To(Equal(verdict.Pass), "%s", r)
			}
			// It has no memory.search: its tool rules have nothing to judge.
			Expect(v["SOPHON-TOOLS-1"]).To(Equal(verdict.Skip))
		},
		Entry("over stdio", "stdio", []string{"SOPHON-PROMPTS-1", "SOPHON-RES-1"}),
		// It requires no token (AUTH) and limits no one (RATE, checked).
		Entry("over http", "http", []string{"SOPHON-AUTH-1", "SOPHON-AUTH-2", "SOPHON-PROMPTS-1", "SOPHON-RATE-1", "SOPHON-RES-1"}),
	)
})
