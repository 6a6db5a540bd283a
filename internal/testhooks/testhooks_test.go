package testhooks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/testhooks"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a hooks recorder", func() {
	It("keeps each check's verdicts in order, its first failure and the notes", func() {
		r := &testhooks.Recorder{}
		h := r.Hooks()
		h.Check("a", verdict.Pass, "fine", "", "")
		h.Check("b", verdict.Fail, "first", "x", "y")
		h.Check("a", verdict.Pass, "fine again", "", "")
		h.Check("b", verdict.Fail, "second", "x", "z")
		Expect(h.Note("one")).To(Equal(1))
		Expect(h.Note("two")).To(Equal(2))

		Expect(r.Verdicts("a")).To(Equal([]verdict.Verdict{verdict.Pass, verdict.Pass}))
		Expect(r.PassedOnly("a")).To(BeTrue())
		Expect(r.Failed("a")).To(BeFalse())
		Expect(r.Failed("b")).To(BeTrue())
		Expect(r.PassedOnly("b")).To(BeFalse())
		Expect(r.PassedOnly("never")).To(BeFalse(), "a check never judged did not pass")
		Expect(r.Failure("b")).To(Equal("first | expected: x | actual: y"))
		Expect(r.Failure("a")).To(BeEmpty())
		Expect(r.Notes()).To(Equal([]string{"one", "two"}))
		Expect(r.Outcomes()).To(HaveLen(4))
	})
})
