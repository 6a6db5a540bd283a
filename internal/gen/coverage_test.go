package gen

import (
	"fmt"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"
)

// observe draws values for a hand-written schema and returns the set of
// features that describe reports for them, so specs can check that the
// generator explores a schema instead of satisfying it trivially.
func observe(file string, describe func(v any) []string) map[string]bool {
	raw, err := os.ReadFile("testdata/" + file)
	Expect(err).NotTo(HaveOccurred())
	s, err := Compile(raw)
	Expect(err).NotTo(HaveOccurred())
	gen := Valid(s)
	seen := map[string]bool{}
	rapid.Check(GinkgoT(), func(t *rapid.T) {
		for _, f := range describe(gen.Draw(t, "v")) {
			seen[f] = true
		}
	})
	return seen
}

func kindName(v any) []string { return []string{kindOf(v).String()} }

var _ = Describe("Valid explores", func() {
	It("every type of a multi-type schema", func() {
		Expect(observe("types_multi.json", kindName)).To(SatisfyAll(
			HaveKey("null"), HaveKey("boolean"), HaveKey("integer"), HaveKey("string")))
	})

	It("every anyOf branch", func() {
		Expect(observe("anyof_objects.json", func(v any) []string {
			if m, ok := v.(map[string]any); ok {
				return []string{fmt.Sprint(m["kind"])}
			}
			return kindName(v)
		})).To(SatisfyAll(HaveKey("text"), HaveKey("image"), HaveKey("array")))
	})

	It("every oneOf branch, and each side of if/then/else", func() {
		Expect(observe("oneof_exclusive.json", kindName)).To(SatisfyAll(HaveKey("integer"), HaveKey("string")))
		Expect(observe("if_then_else.json", func(v any) []string {
			return []string{v.(map[string]any)["country"].(string)}
		})).To(SatisfyAll(HaveKey("US"), HaveKey("CA")))
	})

	It("optional properties both present and absent", func() {
		Expect(observe("object_closed.json", func(v any) []string {
			_, ok := v.(map[string]any)["email"]
			return []string{fmt.Sprint("email:", ok)}
		})).To(SatisfyAll(HaveKey("email:true"), HaveKey("email:false")))
	})

	It("patternProperties and additionalProperties names", func() {
		names := func(v any) []string {
			var out []string
			for k := range v.(map[string]any) {
				switch {
				case strings.HasPrefix(k, "S_"):
					out = append(out, "S_")
				case strings.HasPrefix(k, "I_"):
					out = append(out, "I_")
				case strings.HasPrefix(k, "x-"):
					out = append(out, "x-")
				case k == "id":
					out = append(out, "id")
				default:
					out = append(out, "other")
				}
			}
			return out
		}
		Expect(observe("pattern_properties_closed.json", names)).To(Equal(map[string]bool{"S_": true, "I_": true}))
		Expect(observe("object_open.json", names)).To(SatisfyAll(HaveKey("x-"), HaveKey("id"), HaveKey("other")))
	})

	It("recursive structure beyond the first level", func() {
		Expect(observe("recursive_tree.json", func(v any) []string {
			return []string{fmt.Sprint("depth ", valueDepth(v))}
		})).To(HaveKey("depth 4"))
	})
})
