package protocols_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Issue 26, "one cause, one failure": a crash after null, an error
// without its id, a batch refused on the legacy transport were each
// reported under two rules as two independent failures. The spec says
// which rule the consequence belongs to (consequence-of); the runs of the
// fault tables show the rule about the input failed and the general rule
// naming it.
var _ = Describe("a fault that breaks a rule whose consequence another rule sees", func() {
	DescribeTable("fails the rule about the input, and the consequence names it as its cause, not counted twice",
		func(protocol, fault, cause, consequence string) {
			b, err := protocols.Load(protocol)
			Expect(err).NotTo(HaveOccurred())
			f := b.Protocol.Fault(fault)
			Expect(f).NotTo(BeNil())
			out := runs.get(faultRuns(b, f)[0])
			Expect(out.err).NotTo(HaveOccurred())
			rep := out.rep
			var caused []report.Finding
			for _, fd := range rep.Findings {
				if fd.Rule == consequence && fd.Verdict == verdict.Fail {
					Expect(fd.Cause).To(Equal(cause), "%s failed in %s without naming its cause: %s", consequence, fd.Scenario, fd.Message)
					caused = append(caused, fd)
				}
			}
			Expect(caused).NotTo(BeEmpty())
			for _, c := range caused {
				failedThere := false
				for _, fd := range rep.Findings {
					if fd.Rule == cause && fd.Scenario == c.Scenario && fd.Verdict == verdict.Fail {
						failedThere = true
						Expect(fd.Cause).To(BeEmpty(), "the cause is an independent failure")
					}
				}
				Expect(failedThere).To(BeTrue(), "%s failed in %s", cause, c.Scenario)
			}
			Expect(rep.Summary.Caused).To(Equal(len(caused)))
			var console bytes.Buffer
			Expect(report.WriteConsole(&console, rep, report.ConsoleOptions{})).To(Succeed())
			Expect(console.String()).To(ContainSubstring("(caused by " + cause + ")"))
			Expect(console.String()).To(MatchRegexp(`rules: \d+ pass, \d+ fail \(\+1 caused by another rule\)`))
		},
		Entry("sonde-serve: a crash on null", "sonde-serve", "exit-non-object", "SONDE-GEN-NON-OBJECT", "SONDE-GEN-SURVIVE"),
		Entry("agent-bridge: an error without its id", "agent-bridge", "invalid-no-id", "BRIDGE-INVALID-3", "BRIDGE-RESPONSE-1"),
		Entry("mcp: a batch refused on the legacy transport", "mcp", "sse-batch-refused", "MCP-JSONRPC-10", "MCP-SSE-6"),
	)
})
