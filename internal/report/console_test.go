package report_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ourSGR matches the only escape sequences the console writer may emit.
var ourSGR = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// expectTerminalSafe fails if out holds anything a terminal would act on
// besides our own colour codes.
func expectTerminalSafe(g Gomega, out string) {
	rest := ourSGR.ReplaceAllString(out, "")
	g.Expect(rest).NotTo(ContainSubstring("\x1b"), "raw ESC in console output")
	for _, bad := range []string{"\x07", "\x00", "\r", "\x7f", "\u009b", "\u202e", "\u2066"} {
		g.Expect(rest).NotTo(ContainSubstring(bad), "control %q in console output", bad)
	}
	g.Expect(utf8.ValidString(out)).To(BeTrue(), "console output is not valid UTF-8")
}

func console(r *report.Report, opt report.ConsoleOptions) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteConsole(&buf, r, opt)).To(Succeed())
	return buf.String()
}

var _ = Describe("WriteConsole", func() {
	It("prints no escape sequence at all without colour, even from a hostile server", func() {
		out := console(tallied(), report.ConsoleOptions{})
		Expect(out).NotTo(ContainSubstring("\x1b"))
		expectTerminalSafe(Default, out)
		Expect(out).To(ContainSubstring(`\x1b[2J\x1b]0;pwned\x07`), "the escape is shown as evidence")
	})

	It("emits only its own colour codes with colour on", func() {
		out := console(tallied(), report.ConsoleOptions{Color: true, Verbose: true})
		Expect(out).To(ContainSubstring("\x1b[1;31mFAIL"))
		expectTerminalSafe(Default, out)
	})

	It("shows the last ten transcript lines of a failing finding, with arrows and times", func() {
		out := console(tallied(), report.ConsoleOptions{})
		Expect(out).To(ContainSubstring("Transcript (last 10 of 19 lines):"))
		Expect(out).To(ContainSubstring("    160.1ms → {\"id\":\"a\",\"method\":\"ping\"}"))
		Expect(out).To(ContainSubstring("    160.3ms ! warn: coercing id\n"))
		Expect(out).To(ContainSubstring("    170.0ms # scenario ended"))
		Expect(out).NotTo(ContainSubstring("151.2ms"), "older lines are left out")
		Expect(out).To(ContainSubstring("Reproduce: wirecheck replay"))
	})

	It("ends with the tallies and the verdict at the run's level", func() {
		out := console(tallied(), report.ConsoleOptions{})
		Expect(out).To(HaveSuffix("6 rules: 2 pass, 2 fail, 1 skip, 1 error · findings: 6 pass, 2 fail, 2 skip, 1 error · 1.23s\n" +
			"FAIL at level MUST (2 rules failed or errored at or above it; 1 rule failed below it)\n"))
	})

	It("passes at MUST when only a SHOULD rule fails", func() {
		r := &report.Report{Tool: "wirecheck", Protocol: "p", Level: verdict.Must, DurationMS: 450, Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "s"},
			{Rule: "B-1", Level: verdict.Should, Verdict: verdict.Fail, Scenario: "s"},
		}}
		out := console(r, report.ConsoleOptions{})
		Expect(out).To(ContainSubstring("· 450ms\n"))
		Expect(out).To(HaveSuffix("PASS at level MUST (1 rule failed below it)\n"))
	})

	It("judges a report without a level strictly", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "C-1", Level: verdict.May, Verdict: verdict.Fail, Scenario: "s"},
		}}
		Expect(console(r, report.ConsoleOptions{})).To(ContainSubstring("FAIL at any level"))
	})

	It("counts scenarios per rule", func() {
		out := console(tallied(), report.ConsoleOptions{})
		Expect(out).To(MatchRegexp(`(?m)^pass +SONDE-STARTUP-1 +MUST +3/3 pass +The first`))
		Expect(out).To(MatchRegexp(`(?m)^FAIL +SONDE-ID-1 +MUST +1 fail of 4 `))
		Expect(out).To(MatchRegexp(`(?m)^ERROR +SONDE-SHUTDOWN-1 +MUST +1 error of 1 `))
		Expect(out).NotTo(ContainSubstring("SONDE-UNUSED-9"), "rules without findings are not in the table")
		verbose := console(tallied(), report.ConsoleOptions{Verbose: true})
		Expect(verbose).To(MatchRegexp(`(?m)^skip +SONDE-CANCEL-1 +MAY +1/1 skip `))
	})

	It("truncates long server text with a marker", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{{
			Rule: "A-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s",
			Actual:     strings.Repeat("A", 100_000),
			Transcript: []transcript.Entry{{Dir: transcript.Received, Text: strings.Repeat("B", 16<<10)}},
		}}}
		out := console(r, report.ConsoleOptions{})
		Expect(len(out)).To(BeNumerically("<", 10_000))
		Expect(out).To(MatchRegexp(`A+… \[\d+ more bytes\]`))
		Expect(out).To(MatchRegexp(`B+… \[\d+ more bytes\]`))
	})

	It("indents every line of multi-line evidence", func() {
		out := console(tallied(), report.ConsoleOptions{})
		Expect(out).To(ContainSubstring("  Expected:\n    {\n      \"id\": \"a\"\n    }\n"))
	})

	It("writes a report with no findings", func() {
		r := &report.Report{Protocol: "p", Level: verdict.Must, Started: time.Time{}}
		out := console(r, report.ConsoleOptions{Color: true})
		Expect(out).To(ContainSubstring("0 rules: 0 pass, 0 fail, 0 skip, 0 error"))
		Expect(out).To(ContainSubstring("PASS"))
	})
})

var _ = Describe("terminal detection", func() {
	It("says a regular file is not a terminal", func() {
		f, err := os.CreateTemp(GinkgoT().TempDir(), "out")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		Expect(report.IsTerminal(f)).To(BeFalse())
		Expect(report.ColorFor(f)).To(BeFalse())
		Expect(report.IsTerminal(nil)).To(BeFalse())
	})

	It("honours NO_COLOR even on a character device", func() {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		Expect(report.IsTerminal(f)).To(BeTrue(), "/dev/null is a character device")
		GinkgoT().Setenv("TERM", "xterm")
		GinkgoT().Setenv("NO_COLOR", "")
		Expect(report.ColorFor(f)).To(BeTrue())
		GinkgoT().Setenv("NO_COLOR", "1")
		Expect(report.ColorFor(f)).To(BeFalse())
		GinkgoT().Setenv("NO_COLOR", "")
		GinkgoT().Setenv("TERM", "dumb")
		Expect(report.ColorFor(f)).To(BeFalse())
	})
})
