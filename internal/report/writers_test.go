package report_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("format dispatch", func() {
	It("lists the formats", func() {
		Expect(report.Formats()).To(Equal([]string{"console", "json", "junit", "html", "markdown", "github"}))
	})

	It("writes every listed format, and md as markdown", func() {
		for _, f := range report.Formats() {
			var buf bytes.Buffer
			Expect(report.Write(f, &buf, tallied())).To(Succeed(), f)
			Expect(buf.Len()).To(BeNumerically(">", 0), f)
		}
		var md, markdown bytes.Buffer
		Expect(report.Write("md", &md, tallied())).To(Succeed())
		Expect(report.Write("Markdown", &markdown, tallied())).To(Succeed())
		Expect(md.String()).To(Equal(markdown.String()))
	})

	It("writes console output without colour", func() {
		var buf bytes.Buffer
		Expect(report.Write("console", &buf, tallied())).To(Succeed())
		Expect(buf.String()).NotTo(ContainSubstring("\x1b"))
	})

	It("rejects an unknown format, naming the valid ones", func() {
		err := report.Write("xml", &bytes.Buffer{}, tallied())
		Expect(err).To(MatchError(`unknown report format "xml" (valid: console, json, junit, html, markdown, github; md is short for markdown)`))
	})

	DescribeTable("ParseSpec accepts FORMAT=PATH",
		func(spec, format, path string) {
			f, p, err := report.ParseSpec(spec)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{f, p}).To(Equal([]string{format, path}))
		},
		Entry(nil, "junit=reports/junit.xml", "junit", "reports/junit.xml"),
		Entry(nil, "md=out.md", "markdown", "out.md"),
		Entry(nil, "HTML=r.html", "html", "r.html"),
		Entry(nil, "json=-", "json", "-"),
		Entry(nil, "json=a=b.json", "json", "a=b.json"),
	)

	DescribeTable("ParseSpec explains what is wrong",
		func(spec, want string) {
			_, _, err := report.ParseSpec(spec)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("no '='", "junit", `--report "junit": want FORMAT=PATH, e.g. junit=reports/junit.xml`),
		Entry("no format", "=out.xml", "the format before '=' is empty"),
		Entry("no path", "junit=", "the path after '=' is empty"),
		Entry("unknown format", "xml=out.xml", `unknown report format "xml" (valid: console, json, junit, html, markdown`),
	)
})
