package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("no baseline", func() {
	It("is nil for no file, and knows no failure", func() {
		b, err := report.LoadBaseline("")
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeNil())
		rep := &report.Report{Findings: []report.Finding{{Rule: "X-1", Level: verdict.Must, Verdict: verdict.Fail}}}
		b.Apply(rep)
		Expect(rep.Findings[0].Known).To(BeFalse())
		Expect(rep.Failed(verdict.Must)).To(BeTrue())
	})
})
