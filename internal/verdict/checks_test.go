package verdict_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the catalogue of built-in checks", func() {
	It("holds the engine's own checks, and a module's only once registered", func() {
		Expect(verdict.Checks).To(HaveKey(verdict.CheckTimely))
		Expect(verdict.Checks).NotTo(HaveKey("demo.stream-ok"))
		verdict.Register("demo.stream-ok", "streams")
		verdict.Register("demo.status", "")
		Expect(verdict.Checks).To(HaveKey("demo.stream-ok"))
		Expect(verdict.Counted).To(HaveKeyWithValue("demo.stream-ok", "streams"))
		Expect(verdict.Checks).To(HaveKey("demo.status"))
		Expect(verdict.Counted).NotTo(HaveKey("demo.status"))
	})

	It("refuses a check registered twice", func() {
		Expect(func() { verdict.Register(verdict.CheckJSON, "") }).To(PanicWith(ContainSubstring("registered twice")))
	})
})
