package report_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// caused is a run in which a crash on null failed the rule about that
// input (a SHOULD) and, as its consequence, the survival rule (a MUST).
func caused() *report.Report {
	r := &report.Report{
		Tool: "wirecheck", Protocol: "sonde-serve", Target: "sonde serve --json", Level: verdict.Must,
		Rules: []verdict.Rule{
			{ID: "SONDE-GEN-NON-OBJECT", Level: verdict.Should, Title: "a value that is no object gets one answer"},
			{ID: "SONDE-GEN-SURVIVE", Level: verdict.Must, Title: "the server keeps running"},
			{ID: "SONDE-ID-1", Level: verdict.Must, Title: "ids are echoed"},
		},
		Findings: []report.Finding{
			{Rule: "SONDE-GEN-NON-OBJECT", Level: verdict.Should, Verdict: verdict.Fail, Scenario: "non-object", Message: "the line null got no answer"},
			{Rule: "SONDE-GEN-SURVIVE", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "non-object", Message: "the server died during this scenario", Cause: "SONDE-GEN-NON-OBJECT"},
			{Rule: "SONDE-ID-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "ids"},
		},
	}
	r.Tally()
	return r
}

var _ = Describe("a failure that names its cause", func() {
	It("is counted in summary.fail as before, and apart in summary.caused", func() {
		r := caused()
		Expect(r.Summary).To(Equal(report.Summary{Pass: 1, Fail: 2, Caused: 1}))
	})

	It("still gates the exit at its own level: a MUST consequence of a SHOULD cause fails a run at --level must", func() {
		r := caused()
		Expect(r.Failed(verdict.Must)).To(BeTrue())
		r.Findings[1].Level = verdict.Should
		Expect(r.Failed(verdict.Must)).To(BeFalse(), "both SHOULD: a MUST run passes, as before")
	})

	It("carries cause in JSON, valid against the report schema", func() {
		doc := toJSON(caused())
		Expect(validate(doc)).To(Succeed())
		Expect(string(doc)).To(ContainSubstring(`"cause": "SONDE-GEN-NON-OBJECT"`))
		Expect(string(doc)).To(ContainSubstring(`"caused": 1`))
	})

	DescribeTable("reads 'caused by RULE' in every text writer, and is not counted as a second independent failure",
		func(format string, counted string) {
			var b bytes.Buffer
			Expect(report.Write(format, &b, caused())).To(Succeed())
			Expect(b.String()).To(ContainSubstring("caused by SONDE-GEN-NON-OBJECT"))
			if counted != "" {
				Expect(b.String()).To(ContainSubstring(counted))
			}
		},
		Entry("console", "console", "1 fail (+1 caused by another rule)"),
		Entry("markdown", "markdown", "| 1 (+1 caused by another rule) |"),
		Entry("html", "html", "1 fail (&#43;1 caused by another rule)"), // html/template escapes +
		Entry("junit", "junit", ""),
		Entry("github", "github", ""),
	)
})
