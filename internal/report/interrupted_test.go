package report_test

import (
	"bytes"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("a report of an interrupted run", func() {
	interrupted := func() *report.Report {
		r := tallied()
		r.Interrupt("SIGTERM", 1500*time.Millisecond)
		return r
	}

	It("says so in JSON, within the report schema, and reads back", func() {
		doc := toJSON(interrupted())
		Expect(validate(doc)).To(Succeed())
		var m map[string]any
		Expect(json.Unmarshal(doc, &m)).To(Succeed())
		Expect(m).To(HaveKeyWithValue("interrupted", true))
		Expect(m).To(HaveKeyWithValue("signal", "SIGTERM"))
		back, err := report.ReadJSON(bytes.NewReader(doc))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Interrupted).To(BeTrue())
		Expect(back.Signal).To(Equal("SIGTERM"))
		Expect(back.Notes).To(ContainElement(ContainSubstring("interrupted by SIGTERM 1.5s into the run")))
	})

	It("leaves both fields out of a run that finished", func() {
		Expect(string(toJSON(tallied()))).NotTo(Or(ContainSubstring(`"interrupted"`), ContainSubstring(`"signal"`)))
	})

	It("says INTERRUPTED, not PASS or FAIL, in the console, Markdown and HTML, and marks the JUnit file", func() {
		r := interrupted()
		var console, md, html, junit bytes.Buffer
		Expect(report.WriteConsole(&console, r, report.ConsoleOptions{})).To(Succeed())
		Expect(report.WriteMarkdown(&md, r)).To(Succeed())
		Expect(report.WriteHTML(&html, r)).To(Succeed())
		Expect(report.WriteJUnit(&junit, r)).To(Succeed())
		Expect(console.String()).To(MatchRegexp(`(?m)^INTERRUPTED by SIGTERM before the run finished`))
		Expect(md.String()).To(ContainSubstring("**INTERRUPTED** by SIGTERM"))
		Expect(html.String()).To(ContainSubstring(`<span class="badge overall INTERRUPTED">INTERRUPTED</span>`))
		Expect(junit.String()).To(And(ContainSubstring(`<property name="interrupted" value="SIGTERM">`),
			ContainSubstring(`name="run interrupted"`)))
		Expect(validateJUnit(junit.Bytes())).To(BeEmpty())
	})
})
