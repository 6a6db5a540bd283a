package report_test

import (
	"os"
	"path/filepath"
	"strings"

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

var _ = Describe("a baseline", func() {
	// load writes text as a baseline file and reads it.
	load := func(text string) *report.Baseline {
		f := filepath.Join(GinkgoT().TempDir(), "known.txt")
		Expect(os.WriteFile(f, []byte(text), 0o644)).To(Succeed())
		b, err := report.LoadBaseline(f)
		Expect(err).NotTo(HaveOccurred())
		return b
	}
	run := func() *report.Report {
		return &report.Report{Findings: []report.Finding{
			{Rule: "X-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "a"},
			{Rule: "X-2", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "a"},
			{Rule: "X-3", Level: verdict.Must, Verdict: verdict.Skip, Scenario: "a"},
		}}
	}

	It("passes a run whose failures it knows, noting an entry fixed and one not judged", func() {
		rep := run()
		load("X-1\nX-2 a\nX-3\nX-9\n").Apply(rep)
		code, _ := rep.Exit(verdict.Must, nil)
		Expect(code).To(Equal(report.ExitOK))
		Expect(rep.Notes).To(ConsistOf(
			ContainSubstring("X-2 in a no longer fails"),
			ContainSubstring("X-3 was not judged in this run"),
			ContainSubstring("X-9 was not judged in this run")))
	})

	It("strict, fails the run on an entry judged that no longer fails, and only on that", func() {
		rep := run()
		b := load("X-1\nX-2 a\nX-3\n")
		b.Strict = true
		b.Apply(rep)
		code, err := rep.Exit(verdict.Must, nil)
		Expect(code).To(Equal(report.ExitViolations))
		Expect(err).To(MatchError(ContainSubstring("--baseline-strict: 1 baseline entries no longer fail")))

		rep = run()
		b = load("X-1\nX-3\n")
		b.Strict = true
		b.Apply(rep)
		code, _ = rep.Exit(verdict.Must, nil)
		Expect(code).To(Equal(report.ExitOK), "a skipped rule is not proven fixed")
	})

	It("is written from a report, one line per failing rule and scenario with the title, and read back as it was", func() {
		rep := &report.Report{Protocol: "p", Target: "./srv", Rules: []verdict.Rule{{ID: "X-1", Title: "answers\nevery # request"}, {ID: "X-4", Title: "t4"}},
			Findings: []report.Finding{
				{Rule: "X-4", Level: verdict.Should, Verdict: verdict.Error, Scenario: "b"},
				{Rule: "X-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "a"},
				{Rule: "X-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "a"},
				{Rule: "X-2", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "a"},
			}}
		var out strings.Builder
		Expect(report.WriteBaseline(&out, rep)).To(Succeed())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		Expect(lines[2:]).To(Equal([]string{"X-1 a  # answers every # request", "X-4 b  # t4"}))

		again := &report.Report{Findings: append([]report.Finding{}, rep.Findings...)}
		load(out.String()).Apply(again)
		code, _ := again.Exit(verdict.Should, nil)
		Expect(code).To(Equal(report.ExitOK))
		Expect(again.Notes).To(BeEmpty())
	})
})
