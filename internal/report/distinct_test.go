package report_test

import (
	"bytes"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// twoFailures is a rule failed in one scenario in two different ways, the
// second seen three times.
func twoFailures() *report.Report {
	r := &report.Report{Tool: "wirecheck", Protocol: "p", Level: verdict.Must,
		Rules: []verdict.Rule{{ID: "R-1", Level: verdict.Must, Title: "one answer per request"}}}
	for _, f := range []report.Finding{
		{Message: "a second response to request id 1", Count: 1},
		{Message: "no response to request id 2 within 1s", Count: 3},
	} {
		f.Rule, f.Level, f.Verdict, f.Scenario, f.Transcript = "R-1", verdict.Must, verdict.Fail, "pipeline", []transcript.Entry{}
		r.Findings = append(r.Findings, f)
	}
	r.Tally()
	return r
}

var _ = Describe("distinct failures of one rule in one scenario", func() {
	DescribeTable("each message is shown with its count",
		func(format string, seen *regexp.Regexp) {
			var buf bytes.Buffer
			if format == "console" {
				Expect(report.WriteConsole(&buf, twoFailures(), report.ConsoleOptions{})).To(Succeed())
			} else {
				Expect(report.Write(format, &buf, twoFailures())).To(Succeed())
			}
			out := buf.String()
			Expect(out).To(ContainSubstring("a second response to request id 1"))
			Expect(out).To(ContainSubstring("no response to request id 2 within 1s"))
			Expect(out).To(MatchRegexp(seen.String()))
		},
		Entry("console", "console", regexp.MustCompile(`scenario: pipeline \(seen 3 times\)\n  message:  no response`)),
		Entry("markdown", "markdown", regexp.MustCompile(`#### FAIL scenario pipeline \(seen 3 times\)\n\nno response`)),
		Entry("html", "html", regexp.MustCompile(`observed 3 times\)</p>\s*<pre>no response`)),
	)

	It("counts scenarios, not findings, in the verdict table", func() {
		var buf bytes.Buffer
		Expect(report.WriteConsole(&buf, twoFailures(), report.ConsoleOptions{})).To(Succeed())
		Expect(buf.String()).To(MatchRegexp(`FAIL\s+R-1\s+MUST\s+1 fail of 1\s`))
	})
})
