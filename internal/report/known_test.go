package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A run whose only MUST failure the baseline knows exits 0; no format may
// show it as a failure that fails the run (issue 27 item 2).
var _ = Describe("a failure the baseline knows", func() {
	baselined := func() *report.Report {
		GinkgoHelper()
		rep := tallied()
		f := filepath.Join(GinkgoT().TempDir(), "known.txt")
		// SONDE-ID-1 is the fixture's failing MUST rule; SONDE-SHUTDOWN-1
		// its erroring one. Both known, nothing at MUST fails the run.
		Expect(os.WriteFile(f, []byte("SONDE-ID-1 ids/string-id\nSONDE-SHUTDOWN-1\n"), 0o644)).To(Succeed())
		b, err := report.LoadBaseline(f)
		Expect(err).NotTo(HaveOccurred())
		b.Apply(rep)
		code, _ := rep.Exit(verdict.Must, nil)
		Expect(code).To(Equal(report.ExitOK))
		Expect(rep.Baseline).To(Equal(f))
		return rep
	}

	It("reads known in the console: its row, its evidence block, and the verdict line", func() {
		rep := baselined()
		out := console(rep, report.ConsoleOptions{})
		Expect(out).To(MatchRegexp(`(?m)^known +SONDE-ID-1 +MUST +1 fail of 4 `))
		Expect(out).To(MatchRegexp(`(?m)^known +SONDE-SHUTDOWN-1 +MUST `))
		Expect(out).NotTo(MatchRegexp(`(?m)^(FAIL|ERROR) +SONDE-ID-1`))
		Expect(out).To(ContainSubstring("──── known FAIL SONDE-ID-1 MUST"))
		Expect(out).To(ContainSubstring("  baseline: known failure (baseline " + rep.Baseline + "): does not fail the run\n"))
		Expect(out).To(HaveSuffix("PASS at level MUST (2 rules failed as the baseline " + rep.Baseline + " knows, which does not fail the run; 1 rule failed below it)\n"))
		Expect(out).NotTo(ContainSubstring("failed or errored at or above it"))
	})

	It("is not red in the HTML: a known badge in the table and on the evidence, and the page says why it passed", func() {
		rep := baselined()
		page := htmlOf(rep)
		Expect(page).To(ContainSubstring(`<span class="badge overall PASS">PASS</span> at level MUST (2 rules failed as the baseline`))
		Expect(page).To(MatchRegexp(`<tr class="rule v-fail l-must"><td><span class="badge known">known</span></td><td><a class="rule-id" href="#rule-2">SONDE-ID-1</a>`))
		Expect(page).NotTo(MatchRegexp(`<span class="badge fail">FAIL</span></td><td><a class="rule-id" href="#rule-2">`))
		Expect(page).To(ContainSubstring(`<span class="badge known">known FAIL</span> scenario <code>ids/string-id</code>`))
		Expect(page).To(ContainSubstring(`<span class="badge known">known</span> known failure (baseline `))
		Expect(page).To(MatchRegexp(`\.known\{background:[^}]+\}`), "the badge has a style of its own")
	})

	It("is not shouted in Markdown", func() {
		rep := baselined()
		doc := markdown(rep)
		Expect(doc).To(HavePrefix("# sonde-serve conformance report\n\n**PASS** at level MUST (2 rules failed as the baseline "))
		Expect(doc).To(ContainSubstring("| known | SONDE-ID-1 | MUST | 1 fail of 4 |"))
		Expect(doc).NotTo(ContainSubstring("| **FAIL** | SONDE-ID-1 |"))
		Expect(doc).To(ContainSubstring("### known SONDE-ID-1 (MUST):"))
		Expect(doc).To(ContainSubstring("#### known FAIL scenario ids/string-id"))
	})

	It("is a skipped JUnit case with the reason first and the evidence after, so a CI's test view is not red", func() {
		rep := baselined()
		doc := junit(rep)
		s := parseJUnit(Default, doc)
		// The SHOULD failure the baseline does not know stays a failure.
		Expect(s.Failures).To(Equal(1))
		Expect(s.Errors).To(Equal(0))
		Expect(s.Suites[0].Skipped).To(Equal(4), "two skipped findings and two known failures")
		var known *parsedCase
		for i, c := range s.Suites[0].Cases {
			if c.Classname != "SONDE-STDOUT-2" {
				Expect(c.Failure).To(BeNil())
			}
			Expect(c.Error).To(BeNil())
			if c.Classname == "SONDE-ID-1" && c.Name == "ids/string-id" {
				known = &s.Suites[0].Cases[i]
			}
		}
		Expect(known).NotTo(BeNil())
		Expect(known.Skipped).NotTo(BeNil())
		Expect(known.Skipped.Message).To(HavePrefix("known failure (baseline " + rep.Baseline + `): response id 7 (number) does not match request id "a" (string)` + "\n\n"))
		Expect(known.Skipped.Message).To(ContainSubstring("Expected:\n"))
		Expect(known.Skipped.Message).To(ContainSubstring("Reproduce: wirecheck replay"))
		Expect(validateJUnit(doc)).To(BeEmpty())
	})

	It("keeps the file it came from through JSON", func() {
		rep := baselined()
		var buf bytes.Buffer
		Expect(report.WriteJSON(&buf, rep)).To(Succeed())
		Expect(buf.String()).To(MatchRegexp(`"baseline": ?"` + regexp.QuoteMeta(rep.Baseline) + `"`))
		back, err := report.ReadJSON(&buf)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Baseline).To(Equal(rep.Baseline))
	})
})
