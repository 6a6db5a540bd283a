package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// acceptsEverything lists hand-written schemas with no invalid values.
var acceptsEverything = map[string]bool{
	"boolean_true.json": true,
	"empty.json":        true,
	"json_value.json":   true,
}

// mcpAcceptsEverything lists MCP definitions with no invalid JSON values:
// JSONValue is any JSON value by definition.
var mcpAcceptsEverything = map[string]bool{
	"2026-07-28/JSONValue": true,
}

// mcpGroup is how many MCP definitions share one rapid.Check in the
// Invalid property.
const mcpGroup = 5

func invalidProp(e corpusEntry) func(*rapid.T) {
	gen := Invalid(e.schema)
	return func(t *rapid.T) {
		m := gen.Draw(t, "mutation")
		if e.schema.Validate(m.Value) == nil {
			t.Fatalf("%s: mutation %q produced a valid value %s", e.name, m.What, render(m.Value))
		}
		if m.What == "" {
			t.Fatalf("%s: mutation without description", e.name)
		}
	}
}

// sites lists every location of v, depth first in key order.
func (g *generator) sites(out *[]site, conj []*jsonschema.Schema, v any, path []string) {
	f := g.applicable(conj, v)
	if len(f.nodes) == 0 {
		return
	}
	*out = append(*out, site{slices.Clone(path), f, v})
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			g.sites(out, f.propConj(k), x[k], append(path, k))
		}
	case []any:
		for i, item := range x {
			g.sites(out, f.itemConj(i), item, append(path, strconv.Itoa(i)))
		}
	}
}

// allDescriptions returns the description of every invalidating mutation
// of the values Example gives for the first n seeds.
func allDescriptions(s *jsonschema.Schema, n int) []string {
	g := newGenerator(s, Options{})
	var out []string
	for seed := range n {
		v, err := exampleWith(g, uint64(seed))
		Expect(err).NotTo(HaveOccurred())
		var sites []site
		g.sites(&sites, []*jsonschema.Schema{s}, v, nil)
		for _, st := range sites {
			for _, c := range st.candidates() {
				val, what := c()
				if s.Validate(setAt(v, st.path, val)) != nil {
					out = append(out, what)
				}
			}
		}
	}
	return out
}

func excluding[T any](es []T, name func(T) string, drop map[string]bool) []T {
	var out []T
	for _, e := range es {
		if !drop[name(e)] {
			out = append(out, e)
		}
	}
	return out
}

var _ = Describe("Invalid", func() {
	hand, err := handCorpus()
	if err != nil {
		panic(fmt.Sprintf("hand corpus: %v", err))
	}
	entryName := func(e corpusEntry) string { return e.name }

	It("produces only values that fail validation, for every hand-written schema", func() {
		es := excluding(hand, entryName, acceptsEverything)
		Expect(checkAll(names(es), es, invalidProp)).To(BeEmpty())
	})

	It("produces only values that fail validation, for every MCP schema definition", func() {
		mcp, err := mcpCorpus()
		Expect(err).NotTo(HaveOccurred())
		if len(mcp) == 0 {
			Skip("MCP reference schemas not found at " + mcpDir)
		}
		es := excluding(mcp, entryName, mcpAcceptsEverything)
		// Definitions are checked in groups of mcpGroup, each rapid test
		// case drawing one definition of its group: about 20 mutations
		// per definition instead of 100 keeps the spec fast under -race,
		// and 550 definitions times 20 still covers every keyword there.
		var groups [][]corpusEntry
		var groupNames []string
		for i := 0; i < len(es); i += mcpGroup {
			g := es[i:min(i+mcpGroup, len(es))]
			groups = append(groups, g)
			groupNames = append(groupNames, strings.Join(names(g), ", "))
		}
		Expect(checkAll(groupNames, groups, func(g []corpusEntry) func(*rapid.T) {
			props := make([]func(*rapid.T), len(g))
			for i, e := range g {
				props[i] = invalidProp(e)
			}
			return func(t *rapid.T) {
				props[index(t, len(props), "definition")](t)
			}
		})).To(BeEmpty())
	})

	// Descriptions are checked against every mutation of a few valid
	// values rather than against rapid draws, so the spec cannot miss an
	// expected sentence by bad luck.
	DescribeTable("describes the mutation",
		func(schema string, want string) {
			s, err := Compile([]byte(schema))
			Expect(err).NotTo(HaveOccurred())
			Expect(allDescriptions(s, 10)).To(ContainElement(ContainSubstring(want)))
		},
		Entry("dropped required property", `{"type":"object","properties":{"params":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},"required":["params"]}`,
			`dropped required property "name" at /params`),
		Entry("wrong type, nested", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}},"required":["a"]}`,
			`wrong type at /a/b: boolean where string is required`),
		Entry("wrong type at the root", `{"type":"integer"}`,
			`wrong type at the root: fractional number where integer is required`),
		Entry("outside enum", `{"enum":["a","b"]}`, `set the root to "wirecheck-not-allowed", which is not in its enum`),
		Entry("not the const", `{"const":"2.0"}`, `set the root to "wirecheck-not-allowed" instead of its const "2.0"`),
		Entry("below minimum", `{"type":"integer","minimum":3}`, `set the root to 2, below minimum 3`),
		Entry("above exclusiveMaximum", `{"type":"number","exclusiveMaximum":1.5}`, `set the root to 1.5, not below exclusiveMaximum 1.5`),
		Entry("not a multiple", `{"type":"number","multipleOf":0.5}`, `not a multiple of 0.5`),
		Entry("too short", `{"type":"string","minLength":3}`, `shortened the root to 2 characters, below minLength 3`),
		Entry("too long", `{"type":"string","maxLength":2}`, `lengthened the root to 3 characters, above maxLength 2`),
		Entry("pattern", `{"type":"string","pattern":"^[a-z]+$"}`, `which does not match pattern "^[a-z]+$"`),
		Entry("format", `{"type":"string","format":"date"}`, `set the root to "not a date", which is not a valid date`),
		Entry("extra property", `{"type":"object","properties":{"a":{"type":"null"}},"additionalProperties":false}`,
			`added property "wirecheck_extra" at the root, which admits no undeclared properties`),
		Entry("too few items", `{"type":"array","minItems":2}`, `truncated the root to 1 items, below minItems 2`),
		Entry("too many items", `{"type":"array","maxItems":1}`, `extended the root to 2 items, above maxItems 1`),
		Entry("duplicate items", `{"type":"array","uniqueItems":true,"minItems":1}`, `duplicated item 0 of the root, whose items must be unique`),
		Entry("closed tuple", `{"type":"array","prefixItems":[{"type":"null"}],"items":false}`, `but it admits at most 1`),
		Entry("dependentRequired", `{"type":"object","properties":{"a":{"type":"null"},"b":{"type":"null"}},"required":["a"],"dependentRequired":{"a":["b"]}}`,
			`dropped property "b" at the root, which "a" requires`),
		Entry("propertyNames", `{"type":"object","propertyNames":{"minLength":1}}`, `added property "" at the root, which propertyNames rejects`),
		Entry("too few properties", `{"type":"object","minProperties":1}`, `below minProperties 1`),
		Entry("too many properties", `{"type":"object","maxProperties":1}`, `above maxProperties 1`),
		Entry("contains", `{"type":"array","contains":{"type":"string"}}`, `removed the items of the root that satisfy contains`),
	)

	It("gives up on schemas that accept everything instead of returning valid values", func() {
		s, err := Compile([]byte(`{}`))
		Expect(err).NotTo(HaveOccurred())
		rec := &recorder{name: "accepts everything"}
		done := make(chan struct{})
		go func() {
			defer close(done)
			rapid.Check(rec, func(t *rapid.T) { Invalid(s).Draw(t, "m") })
		}()
		<-done
		Expect(rec.Failed()).To(BeTrue())
		Expect(strings.Join(rec.out, "\n")).To(ContainSubstring("valid tests"))
	})
})
