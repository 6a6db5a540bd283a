package mcp_test

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

var _ = Describe("a batch POSTed over Streamable HTTP", func() {
	It("passes a server answering it on one SSE stream, a response an event", func() {
		// The probe read the stream up to its first response and failed
		// MCP-JSONRPC-10 for want of the second.
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-03-26", Command: target.Target{
			Argv: []string{bin, "serve", "mcp", "--http", "127.0.0.1:{port}", "--variant", "batch-sse-events"}, Transport: "http"}},
			runner.Config{Scenarios: named("batch"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-JSONRPC-10")
		Expect(v).To(Equal(verdict.Pass), msg)
	})

	It("fails a server that answers [ping, {}] without an error for the {}", func() {
		// The POST's answer was judged on the pings alone: a server
		// taking {} for a notification (202 for [{}]) passed.
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-03-26", Command: target.Target{
			Argv: []string{bin, "serve", "mcp", "--http", "127.0.0.1:{port}", "--fault", "batch-drops-invalid"}, Transport: "http"}},
			runner.Config{Scenarios: named("batch"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		var failed []string
		for _, f := range rep.Findings {
			if f.Rule == "MCP-JSONRPC-10" && f.Verdict == verdict.Fail {
				failed = append(failed, f.Message+" / "+f.Actual)
			}
		}
		Expect(failed).To(ConsistOf(And(ContainSubstring("{}"), ContainSubstring(`"result"`))))
	})
})
