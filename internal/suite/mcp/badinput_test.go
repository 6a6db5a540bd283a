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

var _ = Describe("the answer to a bad line", func() {
	It("is never a frame read before the line was sent (a stray answer the legacy transport could not place)", func() {
		// The fault id-type answers ping "probe-2" as "probe-2-x". On the
		// legacy HTTP+SSE stream nothing places that answer, so it waits
		// in the inbox; parse-error took it for the answer to its bad
		// line and failed MCP-JSONRPC-7 (found by alonecheck).
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		scs := named("parse-error")
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Command: target.Target{
			Argv: []string{bin, "serve", "mcp", "--sse", "127.0.0.1:{port}", "--fault", "id-type"}, Transport: "sse"}},
			runner.Config{Scenarios: scs, Partial: true, Timeout: 2 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-JSONRPC-7")
		Expect(v).To(Equal(verdict.Pass), msg)
	})
})
