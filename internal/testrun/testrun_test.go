package testrun_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a server to test", func() {
	It("is the reference server with its variants and faults", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		t, err := testrun.Server{Protocol: "mcp", Faults: []string{"f"}, Variants: []string{"v"}}.Target()
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Argv).To(Equal([]string{bin, "serve", "mcp", "--variant", "v", "--fault", "f"}))
	})

	It("is the command given instead, as given", func() {
		cmd := target.Target{Argv: []string{"node", "x.js"}, Env: []string{"A=1"}, Cwd: "/tmp"}
		t, err := testrun.Server{Protocol: "mcp", Faults: []string{"f"}, Command: cmd}.Target()
		Expect(err).NotTo(HaveOccurred())
		Expect(t).To(Equal(cmd))
	})

	It("runs the suite under the revision asked for, the protocol's bundle filling the rest", func() {
		// Batches are of 2025-03-26 only: the rule is judged there and
		// skipped under the default.
		verdictOf := func(revision string) verdict.Verdict {
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: revision}, runner.Config{
				Timeout: time.Second, Rules: []string{"MCP-JSONRPC-10"},
			})
			Expect(err).NotTo(HaveOccurred())
			for _, g := range rep.ByRule() {
				if g.Rule.ID == "MCP-JSONRPC-10" {
					return g.Verdict
				}
			}
			return ""
		}
		Expect(verdictOf("2025-03-26")).To(Equal(verdict.Pass))
		Expect(verdictOf("")).To(Equal(verdict.Skip))
	})
})
