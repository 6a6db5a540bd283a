package fuzz_test

import (
	"encoding/json"
	"regexp"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/fuzz"
)

// goSyntax is what a label must never show: a Go type or a fmt verb gone
// wrong ("after request map[string]interface {}").
var goSyntax = regexp.MustCompile(`map\[|interface \{|\[\]|%!|json\.Number|float64|\bint\b|<nil>`)

// jsonValue draws any decoded JSON value, as a generator of requests or a
// mutation of one may produce.
func jsonValue() *rapid.Generator[any] {
	return rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Just[any](nil),
			rapid.Map(rapid.Bool(), func(b bool) any { return b }),
			rapid.Map(rapid.IntRange(-1000, 1000), func(n int) any { return json.Number(strconv.Itoa(n)) }),
			rapid.Map(rapid.Float64(), func(f float64) any { return f }),
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Map(rapid.SliceOfN(jsonValue(), 0, 3), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(rapid.SampledFrom([]string{"id", "method", "params", "x"}), jsonValue(), 0, 4),
				func(m map[string]any) any { return m }),
		)
	})
}

var _ = Describe("failure labels", func() {
	It("name a request in protocol terms, whatever was generated", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			v := jsonValue().Draw(t, "request")
			for _, l := range []string{fuzz.RequestLabel(v), fuzz.InvalidLabel(v, "wrong type")} {
				if goSyntax.MatchString(l) {
					t.Fatalf("label %q shows Go syntax", l)
				}
			}
		})
	})

	DescribeTable("say what the request was",
		func(v any, want string) { Expect(fuzz.RequestLabel(v)).To(Equal(want)) },
		Entry("a method", map[string]any{"id": "f1", "method": "tools/list"}, "request tools/list"),
		Entry("a method with a quote and a newline", map[string]any{"id": "f1", "method": "'\nx"}, `request "'\nx"`),
		Entry("a method with a space", map[string]any{"method": "a b"}, `request "a b"`),
		Entry("no method", map[string]any{"id": "f1"}, "request without a method"),
		Entry("a number for a method", map[string]any{"method": json.Number("3")}, "request whose method is a number"),
		Entry("an object for a method", map[string]any{"method": map[string]any{}}, "request whose method is an object"),
		Entry("not an object", []any{1.0}, "an array sent as a request"),
		Entry("null", nil, "null sent as a request"),
	)

	It("name malformed bytes by what is wrong with them", func() {
		for _, l := range fuzz.MalformationLabels() {
			Expect(l).NotTo(BeEmpty())
			Expect(l).NotTo(MatchRegexp(`^[a-z0-9]+(-[a-z0-9]+)+$`), "a label, not an identifier")
		}
	})
})
