package gen

import (
	"errors"
	"fmt"
	"strings"

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

	It("compiles a tool inputSchema under the 2020-12 dialect it declares: $defs and $ref, $anchor, composition and conditionals", func() {
		// As 2026-07-28 server/tools lets an inputSchema use them (the
		// official suite's SEP-2106 tool schema has the same shape).
		s, err := Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
			"$defs":{"address":{"$anchor":"addr","type":"object","properties":{"street":{"type":"string"}},"required":["street"]}},
			"properties":{"home":{"$ref":"#addr"},"work":{"$ref":"#/$defs/address"},"kind":{"enum":["person","company"]},"vat":{"type":"string"}},
			"allOf":[{"anyOf":[{"required":["home"]},{"required":["work"]}]}],
			"if":{"properties":{"kind":{"const":"company"}},"required":["kind"]},"then":{"required":["vat"]},"else":{"not":{"required":["vat"]}},
			"additionalProperties":false}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.DraftVersion).To(Equal(2020))
		Expect(s.Validate(map[string]any{"home": map[string]any{"street": "Main"}})).To(Succeed())
		Expect(s.Validate(map[string]any{"home": map[string]any{}})).NotTo(Succeed(), "$anchor reference")
		Expect(s.Validate(map[string]any{"work": map[string]any{"street": 1}})).NotTo(Succeed(), "$defs reference")
		Expect(s.Validate(map[string]any{"kind": "person"})).NotTo(Succeed(), "anyOf inside allOf")
		Expect(s.Validate(map[string]any{"kind": "company", "work": map[string]any{"street": "x"}})).NotTo(Succeed(), "if/then")
		Expect(s.Validate(map[string]any{"kind": "person", "vat": "x", "work": map[string]any{"street": "x"}})).NotTo(Succeed(), "else")
		Expect(s.Validate(map[string]any{"work": map[string]any{"street": "x"}, "other": 1})).NotTo(Succeed(), "additionalProperties")
	})

	It("validates by the dialect declared, not the default: dependentRequired is a keyword from 2019-09 on, not of draft-07", func() {
		s, err := Compile([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependentRequired":{"a":["b"]}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Validate(map[string]any{"a": 1})).To(Succeed(), "dependentRequired is no draft-07 keyword")
		s, err = Compile([]byte(`{"type":"object","dependentRequired":{"a":["b"]}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Validate(map[string]any{"a": 1})).NotTo(Succeed())
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

	It("compiles a document once: the same document again is the same schema, and so is its error", func() {
		doc := []byte(`{"type":"object","properties":{"once":{"type":"integer"}}}`)
		a, err := Compile(doc)
		Expect(err).NotTo(HaveOccurred())
		b, err := Compile(append([]byte(nil), doc...))
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeIdenticalTo(a))
		_, e1 := Compile([]byte(`{"type":"strnig-once"}`))
		_, e2 := Compile([]byte(`{"type":"strnig-once"}`))
		Expect(e1).To(HaveOccurred())
		Expect(e2).To(BeIdenticalTo(e1))
	})

	It("remembers no more than a bound of documents", func() {
		pad := strings.Repeat("x", 4<<10)
		for i := range 2 * maxCompiledBytes / len(pad) {
			_, err := Compile([]byte(fmt.Sprintf(`{"description":%q,"minimum":%d}`, pad, i)))
			Expect(err).NotTo(HaveOccurred())
			compiled.Lock()
			n := compiled.bytes
			compiled.Unlock()
			Expect(n).To(BeNumerically("<=", maxCompiledBytes))
		}
	})
})
