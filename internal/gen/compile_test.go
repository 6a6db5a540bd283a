package gen

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Compile", func() {
	It("reads documents without $schema as draft 2020-12", func() {
		// prefixItems only exists in 2020-12; under draft-07 it would be
		// ignored and ["x"] would pass.
		s, err := Compile([]byte(`{"prefixItems":[{"type":"integer"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.DraftVersion).To(Equal(2020))
		Expect(s.Validate([]any{"x"})).NotTo(Succeed())
	})

	It("honours an explicit draft-07 $schema", func() {
		s, err := Compile([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.DraftVersion).To(Equal(7))
	})

	It("asserts formats, so generators can see them", func() {
		s, err := Compile([]byte(`{"type":"string","format":"date"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Format).NotTo(BeNil())
		Expect(s.Validate("yesterday")).NotTo(Succeed())
	})

	It("rejects text that is not JSON", func() {
		_, err := Compile([]byte(`{"type":`))
		Expect(err).To(MatchError(ContainSubstring("schema is not valid JSON")))
	})

	It("rejects documents that are not schemas", func() {
		_, err := Compile([]byte(`{"type":"strnig"}`))
		Expect(err).To(MatchError(ContainSubstring("invalid schema")))
	})

	It("refuses references to other documents instead of touching disk or network", func() {
		for _, ref := range []string{"other.json", "file:///etc/passwd", "https://example.com/s.json"} {
			_, err := Compile([]byte(`{"$ref":"` + ref + `"}`))
			Expect(errors.Is(err, ErrExternalRef)).To(BeTrue(), "%s: %v", ref, err)
		}
	})

	It("resolves references inside the document", func() {
		s, err := Compile([]byte(`{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Validate(map[string]any{"a": "x"})).NotTo(Succeed())
	})
})
