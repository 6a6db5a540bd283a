package transport

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a size as --max-frame takes it", func() {
	DescribeTable("is read in bytes, binary or decimal units",
		func(in string, want int) {
			n, err := ParseSize(in)
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(Equal(want))
		},
		Entry("bytes", "1048576", 1<<20),
		Entry("B", "512B", 512),
		Entry("MiB", "64MiB", 64<<20),
		Entry("mib, any case", "64mib", 64<<20),
		Entry("MB is decimal", "16MB", 16_000_000),
		Entry("M is binary", "16M", 16<<20),
		Entry("KiB", "4 KiB", 4<<10),
		Entry("GiB", "1GiB", 1<<30),
	)

	DescribeTable("is refused when it is no positive size",
		func(in string) {
			_, err := ParseSize(in)
			Expect(err).To(MatchError(ContainSubstring("not a size")))
		},
		Entry("zero", "0"), Entry("negative", "-1MiB"), Entry("a word", "big"),
		Entry("a unit alone", "MiB"), Entry("a fraction", "1.5MiB"), Entry("empty", ""),
	)

	It("is written back the way a user types it", func() {
		Expect(SizeString(64 << 20)).To(Equal("64MiB"))
		Expect(SizeString(1 << 30)).To(Equal("1GiB"))
		Expect(SizeString(1000)).To(Equal("1000B"))
		for _, n := range []int{1, 1000, 4 << 10, 3 << 20, 16_000_000} {
			back, err := ParseSize(SizeString(n))
			Expect(err).NotTo(HaveOccurred())
			Expect(back).To(Equal(n))
		}
	})
})
