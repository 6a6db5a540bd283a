package gen

import (
	"encoding/json"
	"math/big"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("numbers", func() {
	DescribeTable("ratNumber renders exact decimals",
		func(num, den int64, want string) {
			Expect(ratNumber(big.NewRat(num, den))).To(Equal(json.Number(want)))
		},
		Entry("integer", int64(42), int64(1), "42"),
		Entry("negative integer", int64(-7), int64(1), "-7"),
		Entry("half", int64(1), int64(2), "0.5"),
		Entry("cents", int64(123), int64(100), "1.23"),
		Entry("negative fraction", int64(-1), int64(8), "-0.125"),
		Entry("fifths", int64(3), int64(5), "0.6"),
	)

	DescribeTable("lcmRat is the least common multiple",
		func(a, b, want string) {
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			Expect(lcmRat(ra, rb).RatString()).To(Equal(want))
		},
		Entry("integers", "4", "6", "12"),
		Entry("decimal and one", "2.5", "1", "5"),
		Entry("decimals", "0.2", "0.3", "3/5"),
		Entry("nested", "0.01", "0.25", "1/4"),
	)

	It("compares numbers by value like the validator", func() {
		Expect(equal(json.Number("1"), json.Number("1.0"))).To(BeTrue())
		Expect(equal(json.Number("1"), 1.0)).To(BeTrue())
		Expect(equal(map[string]any{"a": []any{json.Number("2")}}, map[string]any{"a": []any{json.Number("2.00")}})).To(BeTrue())
		Expect(equal("1", json.Number("1"))).To(BeFalse())
	})
})

var _ = Describe("pointer", func() {
	It("escapes tokens and names the root", func() {
		Expect(pointer(nil)).To(Equal("the root"))
		Expect(pointer([]string{"a/b", "c~d", "0"})).To(Equal("/a~1b/c~0d/0"))
	})
})

var _ = Describe("kinds", func() {
	It("names kind sets the way schemas spell them", func() {
		Expect(kNumber.String()).To(Equal("number"))
		Expect(kInt.String()).To(Equal("integer"))
		Expect((kString | kNull).String()).To(Equal("null or string"))
	})
})
