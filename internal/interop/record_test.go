package interop_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
)

var _ = Describe("a recorded finding", func() {
	found := interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: "tools", Verdict: "fail", Revision: "2025-06-18"}

	It("covers the same rule, verdict, scenario and revision only", func() {
		Expect(found.Covers(found)).To(BeTrue())
		for _, other := range []interop.Finding{
			{Rule: "MCP-PROGRESS-1", Scenario: "tools", Verdict: "fail", Revision: "2025-06-18"},
			{Rule: "MCP-PROGRESS-2", Scenario: "cancel", Verdict: "fail", Revision: "2025-06-18"},
			{Rule: "MCP-PROGRESS-2", Scenario: "tools", Verdict: "error", Revision: "2025-06-18"},
			{Rule: "MCP-PROGRESS-2", Scenario: "tools", Verdict: "fail", Revision: "2025-11-25"},
			{Rule: "MCP-PROGRESS-2", Scenario: "tools", Verdict: "fail"},
		} {
			Expect(found.Covers(other)).To(BeFalse(), other.String())
		}
	})

	It("covers any scenario or revision where it names "+interop.Any, func() {
		anyRev := interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: "tools", Verdict: "fail", Revision: interop.Any, Intermittent: true}
		Expect(anyRev.Covers(found)).To(BeTrue())
		Expect(anyRev.Covers(interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: "cancel", Verdict: "fail", Revision: "2025-06-18"})).To(BeFalse())
		anywhere := interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: interop.Any, Verdict: "fail", Revision: interop.Any, Intermittent: true}
		Expect(anywhere.Covers(interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: "cancel", Verdict: "fail", Revision: "2024-11-05"})).To(BeTrue())
		Expect(anywhere.Covers(interop.Finding{Rule: "MCP-PROGRESS-2", Scenario: "cancel", Verdict: "error", Revision: "2024-11-05"})).To(BeFalse(), "another verdict")
	})

	It("is rerecorded as the run found it, an intermittent one kept whether or not the run showed it", func() {
		racy := interop.Finding{Rule: "MCP-LOGGING-1", Scenario: interop.Any, Verdict: "fail", Revision: interop.Any, Intermittent: true}
		gone := interop.Finding{Rule: "MCP-TOOLS-7", Scenario: "tools", Verdict: "fail", Revision: "2025-06-18"}
		shown := interop.Finding{Rule: "MCP-LOGGING-1", Scenario: "initialize", Verdict: "fail", Revision: "2025-06-18"}
		Expect(interop.Rerecord([]interop.Finding{racy, gone}, []interop.Finding{found, shown})).To(Equal([]interop.Finding{racy, found}))
	})
})

var _ = Describe("the pins in test/interop", func() {
	It("agree with the versions the make-test interop tests name", func() {
		v, err := interop.NPMVersion("@modelcontextprotocol/server-everything")
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(interop.ServerEverythingVersion))
		g, err := interop.GoServerOf(interop.GoSDKModule + "/examples/server/everything")
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Version).To(Equal(interop.GoSDKVersion))
		Expect(g.Bin()).To(Equal(filepath.Join(interop.Dir(), "bin", "everything")))
	})
})
