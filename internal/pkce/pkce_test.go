package pkce_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/pkce"
)

var _ = Describe("PKCE", func() {
	It("computes the S256 challenge of RFC 7636's Appendix B example", func() {
		Expect(pkce.S256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).To(Equal("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
	})

	It("makes random unpadded base64url strings, 43 characters of 32 bytes, never twice the same", func() {
		a, b := pkce.Random(32), pkce.Random(32)
		Expect(a).To(MatchRegexp(`^[A-Za-z0-9_-]{43}$`))
		Expect(a).NotTo(Equal(b))
		Expect(regexp.MustCompile(`^[A-Za-z0-9_-]{16}$`).MatchString(pkce.Random(12))).To(BeTrue())
	})
})
