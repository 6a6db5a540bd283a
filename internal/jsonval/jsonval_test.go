package jsonval_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/jsonval"
)

var _ = Describe("Clone", func() {
	It("copies every map and slice, so a change to the copy leaves the original as it was", func() {
		orig := map[string]any{"a": []any{map[string]any{"b": 1.0}}, "s": "x"}
		c := jsonval.Clone(orig).(map[string]any)
		c["a"].([]any)[0].(map[string]any)["b"] = 2.0
		c["a"] = append(c["a"].([]any), "more")
		c["s"] = "y"
		Expect(orig).To(Equal(map[string]any{"a": []any{map[string]any{"b": 1.0}}, "s": "x"}))
	})
})

var _ = Describe("Map", func() {
	It("keeps a nil map or slice nil, so the copy encodes as null too", func() {
		out := jsonval.Map(map[string]any{"m": map[string]any(nil), "a": []any(nil)}, nil)
		b, err := json.Marshal(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"a":null,"m":null}`))
	})

	It("replaces every scalar, at any depth, and leaves the input alone", func() {
		in := []any{json.Number("7"), map[string]any{"n": json.Number("1.5")}, "s"}
		out := jsonval.Map(in, func(v any) any {
			if n, ok := v.(json.Number); ok {
				return "#" + n.String()
			}
			return v
		})
		Expect(out).To(Equal([]any{"#7", map[string]any{"n": "#1.5"}, "s"}))
		Expect(in[0]).To(Equal(json.Number("7")))
	})
})
