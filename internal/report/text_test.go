package report_test

import (
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("cleaning server text", func() {
	DescribeTable("escapes what a display would interpret",
		func(in string, multiline bool, want string) {
			Expect(report.Clean(in, multiline)).To(Equal(want))
		},
		Entry("plain text untouched", `{"id":1}`, false, `{"id":1}`),
		Entry("ESC and BEL", "a\x1b[31mred\x07", false, `a\x1b[31mred\x07`),
		Entry("NUL and DEL", "\x00\x7f", false, `\x00\x7f`),
		Entry("CR always visible", "a\r\nb", true, "a\\r\nb"),
		Entry("newline on one line", "a\nb", false, `a\nb`),
		Entry("newline kept in a block", "a\nb", true, "a\nb"),
		Entry("tab becomes a space on one line", "a\tb", false, "a b"),
		Entry("invalid UTF-8 byte", "a\xffb", false, `a\xffb`),
		Entry("C1 CSI", "a\u009b31m", false, `a\u009b31m`),
		Entry("bidi override", "a\u202eb", false, `a\u202eb`),
		Entry("BOM", "\ufeffx", false, `\ufeffx`),
		Entry("real U+FFFD kept", "a\ufffdb", false, "a\ufffdb"),
		Entry("non-ASCII text kept", "§ é 日本 → ✓", false, "§ é 日本 → ✓"),
	)

	It("cuts on a rune boundary and says how much was dropped", func() {
		s := strings.Repeat("é", 10) // 20 bytes
		out := report.Cut(s, 5)
		Expect(utf8.ValidString(out)).To(BeTrue())
		Expect(out).To(HavePrefix("éé"))
		Expect(out).To(HaveSuffix("… [16 more bytes]"))
		Expect(report.Cut("short", 5)).To(Equal("short"))
	})

	It("makes a fence longer than any backtick run", func() {
		Expect(report.Fenced("no ticks")).To(Equal("```text\nno ticks\n```\n"))
		Expect(report.Fenced("a ```` b ` c")).To(HavePrefix("`````text\n"))
		Expect(report.Fenced("a ```` b ` c")).To(HaveSuffix("\n`````\n"))
	})
})
