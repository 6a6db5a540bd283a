package report_test

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a failing rule's citation", func() {
	cited := func() *report.Report {
		r := &report.Report{Tool: "wirecheck", Protocol: "sonde-serve", Level: verdict.Must,
			Rules: []verdict.Rule{{ID: "SONDE-OUT-1", Level: verdict.Must, Title: "a tool's output is its result",
				Source:   "000_239269c7ecb57487.txt § Outputs",
				Document: "the sonde-serve protocol document",
				Quote:    "The result object\n  carries the tool's output."}},
			Findings: []report.Finding{{Rule: "SONDE-OUT-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Message: "no output"}},
		}
		r.Tally()
		return r
	}
	const cite = "the sonde-serve protocol document, § Outputs (000_239269c7ecb57487.txt)"
	const said = "“The result object carries the tool's output.”"

	It("names the document by its title, the file as reference, and quotes the sentence, in every format", func() {
		var b bytes.Buffer
		Expect(report.WriteConsole(&b, cited(), report.ConsoleOptions{})).To(Succeed())
		Expect(b.String()).To(ContainSubstring("source:   " + cite))
		Expect(b.String()).To(ContainSubstring("quote:    " + said))

		b.Reset()
		Expect(report.WriteMarkdown(&b, cited())).To(Succeed())
		Expect(b.String()).To(ContainSubstring("Citation: " + strings.ReplaceAll(cite, "_", `\_`)))
		Expect(b.String()).To(ContainSubstring("> " + said))

		b.Reset()
		Expect(report.WriteJUnit(&b, cited())).To(Succeed())
		Expect(html.UnescapeString(b.String())).To(ContainSubstring("Source: " + cite))
		Expect(html.UnescapeString(b.String())).To(ContainSubstring("Quote: " + said))

		Expect(githubOf(cited())).To(ContainSubstring(said))

		page := html.UnescapeString(htmlOf(cited()))
		Expect(page).To(ContainSubstring("Citation: " + cite))
		Expect(page).To(ContainSubstring(`<blockquote class="quote">` + said + `</blockquote>`))

		b.Reset()
		Expect(report.WriteJSON(&b, cited())).To(Succeed())
		var back struct {
			Rules []map[string]string `json:"rules"`
		}
		Expect(json.Unmarshal(b.Bytes(), &back)).To(Succeed())
		Expect(back.Rules[0]).To(HaveKeyWithValue("quote", "The result object\n  carries the tool's output."))
		Expect(back.Rules[0]).To(HaveKeyWithValue("document", "the sonde-serve protocol document"))
	})

	It("is the bare source in a report that names no document", func() {
		r := cited()
		r.Rules[0].Document, r.Rules[0].Quote = "", ""
		page := htmlOf(r)
		Expect(page).To(ContainSubstring("Citation: 000_239269c7ecb57487.txt § Outputs"))
		Expect(page).NotTo(ContainSubstring("<blockquote"))
	})
})
