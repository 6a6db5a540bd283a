package report_test

import (
	"bytes"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

func markdown(r *report.Report) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteMarkdown(&buf, r)).To(Succeed())
	return buf.String()
}

// unescapedPipes counts the '|' that GFM would read as cell separators:
// those not preceded by an odd number of backslashes.
func unescapedPipes(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		if row[i] != '|' {
			continue
		}
		bs := 0
		for j := i - 1; j >= 0 && row[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			n++
		}
	}
	return n
}

// outsideFences drops fenced code blocks, which renderers do not
// interpret, and checks that no content line could close its fence early:
// CommonMark closes a fence at a line of at least as many backticks.
func outsideFences(g Gomega, doc string) string {
	var out []string
	fence := ""
	for _, l := range strings.Split(doc, "\n") {
		run := len(l) - len(strings.TrimLeft(l, "`"))
		switch {
		case fence == "" && run >= 3:
			fence = l[:run]
		case fence != "" && run >= len(fence):
			g.Expect(l).To(Equal(fence), "a line inside a fence would close it")
			fence = ""
		case fence == "":
			out = append(out, l)
		}
	}
	g.Expect(fence).To(BeEmpty(), "unclosed fence")
	return strings.Join(out, "\n")
}

var tableRow = regexp.MustCompile(`(?m)^\|.*\|$`)

var _ = Describe("WriteMarkdown", func() {
	It("keeps every table row at its column count, whatever the cells hold", func() {
		r := tallied()
		r.Rules[1].Title = "a | b `c` <d>\nnext line"
		r.Rules[1].Source = `ends with a backslash \`
		doc := markdown(r)
		rows := tableRow.FindAllString(outsideFences(Default, doc), -1)
		Expect(rows).NotTo(BeEmpty())
		for _, row := range rows {
			n := unescapedPipes(row)
			Expect(n == 6 || n == 7).To(BeTrue(), "row %q has %d separators", row, n)
		}
		Expect(doc).To(ContainSubstring(`a \| b \` + "`c\\`" + ` &lt;d&gt;\\nnext line`))
	})

	It("escapes markup outside fences and fences transcripts safely", func() {
		r := tallied()
		r.Findings[4].Scenario = "<script>alert(1)</script>"
		prose := outsideFences(Default, markdown(r))
		Expect(prose).NotTo(ContainSubstring("<script"))
		Expect(prose).NotTo(ContainSubstring("<img"))
		Expect(prose).To(ContainSubstring("&lt;script&gt;"))
	})

	It("uses a fence longer than the longest backtick run in the transcript", func() {
		doc := markdown(tallied())
		Expect(doc).To(ContainSubstring("Transcript (19 lines):\n\n``````text\n"))
		Expect(doc).To(ContainSubstring("``````text\n{\"id\":3,"))
		outsideFences(Default, doc)
	})

	It("summarises and states the verdict at the level", func() {
		doc := markdown(tallied())
		Expect(doc).To(HavePrefix("# sonde-serve conformance report\n\n**FAIL** at level MUST (2 rules failed or errored at or above it; 1 rule failed below it)\n"))
		Expect(doc).To(ContainSubstring("| rules | 2 | 2 | 1 | 1 |"))
		Expect(doc).To(ContainSubstring("| findings | 6 | 2 | 2 | 1 |"))
		Expect(doc).To(ContainSubstring("| **FAIL** | SONDE-ID-1 | MUST | 1 fail of 4 |"))
		Expect(doc).To(ContainSubstring("### ERROR SONDE-SHUTDOWN-1 (MUST): shutdown is answered before the process exits"))
	})
})
