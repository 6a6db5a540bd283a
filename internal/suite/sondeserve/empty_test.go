package sondeserve_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// emptyLines runs the scenarios of SONDE-EMPTY-1 against the reference
// server with faults.
func emptyLines(faults ...string) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: "sonde-serve", Faults: faults}, runner.Config{
		Timeout: 5 * time.Second, Rules: []string{"SONDE-EMPTY-1"},
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

func emptyFailures(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Rule == "SONDE-EMPTY-1" && f.Verdict == verdict.Fail {
			out = append(out, f.Message)
		}
	}
	return out
}

// SONDE-EMPTY-1 is judged by order, not by how long wirecheck listens:
// an answer to the empty lines that comes after any silence window, but
// before the answer to the next request, is theirs.
var _ = Describe("empty lines (SONDE-EMPTY-1)", func() {
	It("passes a server that ignores them", func() {
		rep := emptyLines()
		Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("SONDE-EMPTY-1", verdict.Pass))
		Expect(emptyFailures(rep)).To(BeEmpty())
	})

	DescribeTable("fails a server that answers them, however late",
		func(fault string) {
			rep := emptyLines(fault)
			Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("SONDE-EMPTY-1", verdict.Fail))
			Expect(emptyFailures(rep)).To(ContainElement(ContainSubstring("an answer to an empty line")))
		},
		Entry("at once", "answer-empty"),
		Entry("1.5 s later, before the next request's answer", "answer-empty-late"),
	)
})
