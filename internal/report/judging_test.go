package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("how a run is judged and reported (--level, --report)", func() {
	It("reads the level in any case, and the outputs", func() {
		level, outs, err := report.ParseJudging("Should", []string{"json=-", "junit=out.xml"})
		Expect(err).NotTo(HaveOccurred())
		Expect(level).To(Equal(verdict.Should))
		Expect(outs).To(Equal([]report.Output{{Format: "json", Path: "-"}, {Format: "junit", Path: "out.xml"}}))
	})

	It("refuses a level that is none of must, should and may, and a bad output, naming the flag", func() {
		_, _, err := report.ParseJudging("sometimes", nil)
		Expect(err).To(MatchError(`--level "sometimes": want must, should or may`))
		_, _, err = report.ParseJudging("must", []string{"pdf=x.pdf"})
		Expect(err).To(MatchError(ContainSubstring(`--report "pdf=x.pdf"`)))
	})
})
