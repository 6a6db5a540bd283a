package redact_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/redact"
)

func TestRedact(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Redact Suite")
}

var _ = Describe("Text", func() {
	DescribeTable("hides Authorization values",
		func(in, want string) { Expect(redact.Text(in)).To(Equal(want)) },
		Entry("HTTP header", "Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED]"),
		Entry("lower case, basic", "authorization: Basic dXNlcjpw", "authorization: Basic [REDACTED]"),
		Entry("upper case", "AUTHORIZATION=s3cret", "AUTHORIZATION=[REDACTED]"),
		Entry("JSON field", `{"Authorization":"Bearer s3cret","x":1}`, `{"Authorization":"Bearer [REDACTED]","x":1}`),
		Entry("bare token", `{"authorization":"s3cret"}`, `{"authorization":"[REDACTED]"}`),
		Entry("nothing to hide", `{"id":1,"ok":true}`, `{"id":1,"ok":true}`),
	)
})

var _ = Describe("EnvValue", func() {
	DescribeTable("hides values of secret-looking keys only",
		func(in, want string) { Expect(redact.EnvValue(in)).To(Equal(want)) },
		Entry("token", "GITHUB_TOKEN=ghp_x", "GITHUB_TOKEN=[REDACTED]"),
		Entry("api key", "OPENAI_API_KEY=sk-1", "OPENAI_API_KEY=[REDACTED]"),
		Entry("password", "DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED]"),
		Entry("plain", "LOG_LEVEL=debug", "LOG_LEVEL=debug"),
		Entry("a placeholder wirecheck fills", "MCP_CLIENT_SECRET={client_secret}", "MCP_CLIENT_SECRET={client_secret}"),
		Entry("a placeholder inside a secret", "MCP_CLIENT_SECRET=x{client_secret}", "MCP_CLIENT_SECRET=[REDACTED]"),
	)
})

var _ = Describe("Text's scan for the word", func() {
	It("skips only texts the regexp would leave alone", func() {
		// Pieces near the word in any case, and runes that fold to
		// ASCII letters (the Kelvin sign, the long s, dotted and dotless i).
		piece := rapid.SampledFrom([]string{
			"authorization", "AUTHORIZATION", "AuThOrIzAtIoN", "authorizatio", "uthorization",
			"a", "A", "\u212a", "\u017f", "\u0130", "\u0131", "é", ":", " ", "\"", "=", "bearer ", "x", "\xff", "z", "Z", "authori", "ation",
		})
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			s := ""
			for _, p := range rapid.SliceOfN(piece, 0, 12).Draw(t, "pieces") {
				s += p
			}
			if got, want := redact.Text(s), redact.Unfiltered(s); got != want {
				t.Fatalf("Text(%q) = %q, the regexp alone gives %q", s, got, want)
			}
		})
	})
})
