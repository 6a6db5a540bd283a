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
})
