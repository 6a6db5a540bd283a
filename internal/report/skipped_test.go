package report_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// What the reports say of rules no scenario judged (issue 27 items 8 and
// 10): the console without -v counts them and gives the MUST ones'
// reasons a line each; HTML and Markdown give every one its reason,
// collapsed.
var _ = Describe("skipped rules", func() {
	overHTTP := "HTTP only; this run is over stdio"
	skips := func() *report.Report {
		r := &report.Report{Protocol: "p", Level: verdict.Must,
			Findings: []report.Finding{{Rule: "P-OK-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "s"}}}
		for i := range 5 {
			r.Findings = append(r.Findings, report.Finding{Rule: fmt.Sprintf("P-HTTP-%d", i+1), Level: verdict.Must, Verdict: verdict.Skip, Scenario: "http", Message: overHTTP})
		}
		r.Findings = append(r.Findings,
			report.Finding{Rule: "P-REV-1", Level: verdict.Must, Verdict: verdict.Skip, Scenario: "rev", Message: "belongs to revision B"},
			report.Finding{Rule: "P-SOFT-1", Level: verdict.Should, Verdict: verdict.Skip, Scenario: "soft", Message: "the server has no prompts"},
			report.Finding{Rule: "P-MAYBE-1", Level: verdict.May, Verdict: verdict.Skip, Scenario: "soft", Message: "the server has no prompts"})
		r.Tally()
		return r
	}

	It("are one count line in the console, with a line per reason the MUST ones give, the commonest first", func() {
		out := console(skips(), report.ConsoleOptions{})
		Expect(out).NotTo(MatchRegexp(`(?m)^skip +P-`), "no row per skipped rule without -v")
		Expect(out).To(ContainSubstring("\nskipped: 8 rules (6 MUST, 1 SHOULD, 1 MAY) not judged by this run; -v lists each with its reason. The MUST ones:\n" +
			"    5  " + overHTTP + "\n" +
			"    1  belongs to revision B\n"))
		Expect(out).NotTo(ContainSubstring("the server has no prompts"), "SHOULD and MAY skips are only counted")
		Expect(out).To(MatchRegexp(`(?m)^pass +P-OK-1 +MUST`))
	})

	It("are a row each with -v, every finding with its reason", func() {
		out := console(skips(), report.ConsoleOptions{Verbose: true})
		Expect(out).To(MatchRegexp(`(?m)^skip +P-HTTP-3 +MUST +1/1 skip`))
		Expect(out).To(MatchRegexp(`(?m)^ +skip +http  ` + overHTTP + `$`))
		Expect(out).To(MatchRegexp(`(?m)^skip +P-MAYBE-1 +MAY`))
		Expect(out).NotTo(ContainSubstring("skipped: "))
	})

	It("bounds the reasons listed and says how many more -v shows", func() {
		r := &report.Report{Protocol: "p", Level: verdict.Must}
		for i := range 12 {
			r.Findings = append(r.Findings, report.Finding{Rule: fmt.Sprintf("P-R-%d", i+1), Level: verdict.Must, Verdict: verdict.Skip, Scenario: "s", Message: fmt.Sprintf("reason %d", i+1)})
		}
		out := console(r, report.ConsoleOptions{})
		Expect(strings.Count(out, "    1  reason ")).To(Equal(8))
		Expect(out).To(ContainSubstring("  … and 4 more reasons (-v)\n"))
	})

	It("give their reasons in the HTML, collapsed under the title, one line each", func() {
		page := htmlOf(skips())
		Expect(page).To(ContainSubstring(`<details class="why"><summary>why skipped</summary><div>` + overHTTP + ` (http)</div></details>`))
		Expect(strings.Count(page, `<details class="why">`)).To(Equal(8))
	})

	It("give their reasons in Markdown, one line each, collapsed", func() {
		doc := markdown(skips())
		Expect(doc).To(ContainSubstring("\n<details><summary>8 rules skipped: why</summary>\n\n- P-HTTP-1 (MUST): " + overHTTP + " (http)\n"))
		Expect(doc).To(ContainSubstring("- P-MAYBE-1 (MAY): the server has no prompts (soft)\n\n</details>\n"))
	})
})
