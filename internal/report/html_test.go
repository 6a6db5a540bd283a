package report_test

import (
	"bytes"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

const (
	xssScript = `<script>alert(1)</script>`
	xssImg    = `"><img src=x onerror=alert(1)>`
)

func htmlOf(r *report.Report) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteHTML(&buf, r)).To(Succeed())
	return buf.String()
}

// ownSVG opens the writer's own sequence diagrams, the only SVG a page has.
const ownSVG = `<svg class="seq" xmlns="http://www.w3.org/2000/svg" `

// expectNoMarkupFrom fails if the page holds markup the writer does not
// write itself: no script, image, frame or event handler of any kind, and
// no SVG but the diagrams.
func expectNoMarkupFrom(g Gomega, page string) {
	lower := strings.ToLower(strings.ReplaceAll(page, ownSVG, ""))
	for _, bad := range []string{"<script", "<img", "<iframe", "<svg", "<object", "<embed", "<link"} {
		g.Expect(lower).NotTo(ContainSubstring(bad))
	}
	// "onerror=" as escaped text is harmless; inside a real tag it is not.
	g.Expect(page).NotTo(MatchRegexp(`(?i)<[a-z][^>]*\son[a-z]+\s*=`))
	g.Expect(page).To(MatchRegexp(`(?s)^<!DOCTYPE html>.*</html>\n$`))
}

var _ = Describe("WriteHTML", func() {
	It("escapes markup from messages, transcripts and the target", func() {
		r := tallied()
		r.Target = "server " + xssScript + xssImg
		r.Findings[4].Message = xssScript + xssImg
		r.Findings[4].Expected = xssImg
		r.Findings[4].Transcript = append(r.Findings[4].Transcript,
			transcript.Entry{Dir: transcript.Received, OffsetMS: 200, Text: xssScript + xssImg})
		r.Rules[1].Title = xssScript
		r.Notes = append(r.Notes, xssImg)
		page := htmlOf(r)
		expectNoMarkupFrom(Default, page)
		Expect(page).To(ContainSubstring("&lt;script&gt;alert(1)&lt;/script&gt;"))
		Expect(page).To(ContainSubstring("&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"))
	})

	It("escapes markup in every field, whatever its position", func() {
		r := tallied()
		r.Tool, r.Version, r.Protocol = xssScript, xssImg, xssScript
		for i := range r.Findings {
			f := &r.Findings[i]
			f.Scenario, f.Reproduce, f.Actual = xssImg, xssScript, xssImg
		}
		for i := range r.Rules {
			r.Rules[i].ID, r.Rules[i].Source = xssImg+r.Rules[i].ID, xssScript
		}
		expectNoMarkupFrom(Default, htmlOf(r))
	})

	It("is self-contained: inline CSS, no script, nothing fetched", func() {
		page := htmlOf(tallied())
		Expect(page).To(ContainSubstring(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`))
		Expect(page).To(ContainSubstring("<style>"))
		Expect(page).NotTo(MatchRegexp(`(?i)\b(src|href)="(https?:)?//`))
		for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			Expect(href[1]).To(HavePrefix("#"), "links stay inside the page")
		}
	})

	It("shows the verdict, counts, table and evidence", func() {
		page := htmlOf(tallied())
		Expect(page).To(ContainSubstring(`<span class="badge overall FAIL">FAIL</span> at level MUST`))
		Expect(page).To(ContainSubstring(`<span class="badge fail">2 fail</span>`))
		Expect(page).To(ContainSubstring(`<a class="rule-id" href="#rule-2">SONDE-ID-1</a>`))
		Expect(page).To(ContainSubstring(`<section id="rule-2" class="l-must">`))
		Expect(page).To(ContainSubstring(`000_239269c7ecb57487.txt §3.2`))
		Expect(page).To(ContainSubstring(`1 fail of 4`))
		Expect(page).To(ContainSubstring(`Transcript (19 lines)`))
		Expect(page).To(ContainSubstring(`\x1b[2J`), "control characters are shown as escapes")
		Expect(page).NotTo(ContainSubstring("\x1b"))
	})

	It("says PASS for a clean run", func() {
		r := &report.Report{Protocol: "p", Level: verdict.Should, Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "s"},
		}}
		page := htmlOf(r)
		Expect(page).To(ContainSubstring(`<span class="badge overall PASS">PASS</span> at level SHOULD`))
		Expect(page).NotTo(ContainSubstring("<h2>Evidence</h2>"))
	})
})

var regexpCSP = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>\n`)
