package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Example", func() {
	hand, err := handCorpus()
	if err != nil {
		panic(fmt.Sprintf("hand corpus: %v", err))
	}

	It("is deterministic for a fixed seed, across recompilation", func() {
		for _, e := range hand {
			raw, err := os.ReadFile("testdata/" + e.name)
			Expect(err).NotTo(HaveOccurred())
			again, err := Compile(raw)
			Expect(err).NotTo(HaveOccurred())
			for _, seed := range []uint64{0, 1, 42, 1 << 63, ^uint64(0)} {
				a, b := Example(e.schema, seed), Example(e.schema, seed)
				Expect(reflect.DeepEqual(a, b)).To(BeTrue(), "%s seed %d: %s vs %s", e.name, seed, render(a), render(b))
				// Nothing may depend on map order or pointer identity.
				c := Example(again, seed)
				Expect(reflect.DeepEqual(a, c)).To(BeTrue(), "%s seed %d after recompiling: %s vs %s", e.name, seed, render(a), render(c))
			}
		}
	})

	It("returns valid values that vary with the seed", func() {
		for _, e := range hand {
			distinct := map[string]bool{}
			for seed := range uint64(20) {
				v := Example(e.schema, seed)
				Expect(e.schema.Validate(v)).To(Succeed(), "%s seed %d: %s", e.name, seed, render(v))
				distinct[render(v)] = true
			}
			Expect(len(distinct)).To(BeNumerically(">", 1), e.name)
		}
	})

	It("round-trips through encoding/json unchanged", func() {
		for _, e := range hand {
			v := Example(e.schema, 7)
			b, err := json.Marshal(v)
			Expect(err).NotTo(HaveOccurred())
			var decoded any
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			Expect(dec.Decode(&decoded)).To(Succeed())
			Expect(reflect.DeepEqual(v, decoded)).To(BeTrue(), "%s: %s", e.name, b)
		}
	})

	It("reports unsatisfiable schemas as errors instead of hanging", func() {
		for _, schema := range []string{
			`false`,
			`{"type":"string","minLength":5,"maxLength":2}`,
			`{"allOf":[{"type":"string"},{"type":"integer"}]}`,
			`{"$defs":{"a":{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"required":["x"]}},"$ref":"#/$defs/a"}`,
			`{"type":"array","items":{"enum":[1,2]},"minItems":3,"uniqueItems":true}`,
		} {
			s, err := Compile([]byte(schema))
			Expect(err).NotTo(HaveOccurred())
			_, err = TryExample(s, 1)
			Expect(err).To(MatchError(ContainSubstring("no valid value")), schema)
		}
		Expect(func() { Example(mustCompile(`false`), 1) }).To(Panic())
	})

	It("builds tool arguments from an MCP inputSchema", func() {
		s, err := Compile([]byte(`{
			"type": "object",
			"properties": {
				"city": {"type": "string", "minLength": 1},
				"days": {"type": "integer", "minimum": 1, "maximum": 7},
				"units": {"enum": ["metric", "imperial"]}
			},
			"required": ["city"]
		}`))
		Expect(err).NotTo(HaveOccurred())
		v := Example(s, 2024)
		Expect(v).To(HaveKey("city"))
		Expect(s.Validate(v)).To(Succeed())
	})
})
