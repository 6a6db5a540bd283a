package report_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("golden output", func() {
	DescribeTable("renders the fixture exactly as recorded",
		func(format, file string) {
			var buf bytes.Buffer
			Expect(report.Write(format, &buf, tallied())).To(Succeed())
			expectGolden(file, buf.Bytes())
		},
		Entry("console", "console", "report.txt"),
		Entry("json", "json", "report.json"),
		Entry("junit", "junit", "report.xml"),
		Entry("html", "html", "report.html"),
		Entry("markdown", "markdown", "report.md"),
	)

	It("renders the verbose, coloured console exactly as recorded", func() {
		var buf bytes.Buffer
		Expect(report.WriteConsole(&buf, tallied(), report.ConsoleOptions{Color: true, Verbose: true})).To(Succeed())
		expectGolden("report-verbose-color.txt", buf.Bytes())
	})
})
