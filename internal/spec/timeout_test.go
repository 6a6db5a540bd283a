package spec_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a fault's or a variant's timeout:", func() {
	It("is the duration it names, and none where it names none", func() {
		src := strings.Replace(mixed, "transport: http}", "transport: http, timeout: 5s}", 1)
		src = strings.Replace(src, "transport: sse}", "transport: sse, timeout: 1500ms}", 1)
		p, err := parse(src)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Fault("web-fault").RunTimeout()).To(Equal(5 * time.Second))
		Expect(p.Variant("web-choice").RunTimeout()).To(Equal(1500 * time.Millisecond))
		p, err = parse(mixed)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Fault("web-fault").RunTimeout()).To(BeZero())
		Expect(p.Variant("web-choice").RunTimeout()).To(BeZero())
	})

	DescribeTable("is refused with the file and line unless it is a positive duration",
		func(from, to, want string) {
			Expect(mixed).To(ContainSubstring(from))
			_, err := parse(strings.Replace(mixed, from, to, 1))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a fault's, without a unit", "transport: http}", "transport: http, timeout: 5}",
			`specs/mixed.yaml:15: fault "web-fault": timeout "5": want a positive duration with a unit, such as 5s`),
		Entry("a fault's, zero", "transport: http}", "transport: http, timeout: 0s}",
			`specs/mixed.yaml:15: fault "web-fault": timeout "0s": want a positive duration`),
		Entry("a variant's, negative", "transport: sse}", "transport: sse, timeout: -1s}",
			`specs/mixed.yaml:17: variant "web-choice": timeout "-1s": want a positive duration`),
		Entry("a variant's, not a duration", "transport: sse}", "transport: sse, timeout: soon}",
			`specs/mixed.yaml:17: variant "web-choice": timeout "soon": want a positive duration`),
	)
})
