package gen

import (
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

func mustCompile(schema string) *jsonschema.Schema {
	s, err := Compile([]byte(schema))
	Expect(err).NotTo(HaveOccurred())
	return s
}

// sizes walks v and reports its longest string, longest array, largest
// object and nesting depth.
func sizes(v any) (str, arr, obj int) {
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v), 0, 0
	case []any:
		arr = len(v)
		for _, x := range v {
			s, a, o := sizes(x)
			str, arr, obj = max(str, s), max(arr, a), max(obj, o)
		}
	case map[string]any:
		obj = len(v)
		for k, x := range v {
			s, a, o := sizes(x)
			str, arr, obj = max(str, s, utf8.RuneCountInString(k)), max(arr, a), max(obj, o)
		}
	}
	return str, arr, obj
}

var _ = Describe("Options", func() {
	anything := `{"$defs":{"v":{"anyOf":[{"type":["null","boolean","number","string"]},{"type":"array","items":{"$ref":"#/$defs/v"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/v"}}]}},"$ref":"#/$defs/v"}`

	It("keeps free-form values within the documented defaults", func() {
		s := mustCompile(anything)
		gen := Valid(s)
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			v := gen.Draw(t, "v")
			str, arr, obj := sizes(v)
			if str > 16 || arr > 4 || obj > 2 || valueDepth(v) > 5 {
				t.Fatalf("too big: string %d, array %d, object %d, depth %d: %s", str, arr, obj, valueDepth(v), render(v))
			}
		})
	})

	It("lets callers change the bounds", func() {
		s := mustCompile(anything)
		gen := ValidWith(s, Options{MaxStringLen: 3, MaxItems: 1, MaxDepth: 2, MaxExtraProperties: -1})
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			v := gen.Draw(t, "v")
			str, arr, obj := sizes(v)
			if str > 3 || arr > 1 || obj > 0 || valueDepth(v) > 2 {
				t.Fatalf("too big: string %d, array %d, object %d, depth %d: %s", str, arr, obj, valueDepth(v), render(v))
			}
		})
	})

	It("lets the schema's own minimums win over the caps", func() {
		s := mustCompile(`{"type":"object","properties":{"s":{"type":"string","minLength":20},"a":{"type":"array","minItems":6}},"required":["s","a"],"minProperties":5}`)
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			v := Valid(s).Draw(t, "v").(map[string]any)
			if utf8.RuneCountInString(v["s"].(string)) < 20 || len(v["a"].([]any)) < 6 || len(v) < 5 {
				t.Fatalf("minimums not met: %s", render(v))
			}
		})
	})

	It("still generates required structure past MaxDepth", func() {
		s := mustCompile(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"integer"}},"required":["c"]}},"required":["b"]}},"required":["a"]}`)
		v := TryExampleWith(s, 3, Options{MaxDepth: 1})
		Expect(valueDepth(v)).To(Equal(3))
	})

	It("fills in defaults for zero fields and clamps negative ones", func() {
		o := Options{MaxItems: -3}.withDefaults()
		Expect(o).To(Equal(Options{MaxStringLen: 16, MaxItems: 0, MaxDepth: 5, MaxExtraProperties: 2, MaxAttempts: 10000}))
	})
})

// TryExampleWith is exampleWith for tests that need non-default Options.
func TryExampleWith(s *jsonschema.Schema, seed uint64, o Options) any {
	v, err := exampleWith(newGenerator(s, o), seed)
	Expect(err).NotTo(HaveOccurred())
	return v
}
