package gen

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// unchecked is Valid without the top-level safety validation, so that a
// generator bug shows up as an invalid value rather than a silent retry.
func unchecked(s *jsonschema.Schema, o Options) *rapid.Generator[any] {
	g := newGenerator(s, o)
	g.check = false
	return g.valid()
}

func validProp(e corpusEntry) func(*rapid.T) {
	gen := unchecked(e.schema, Options{})
	return func(t *rapid.T) {
		v := gen.Draw(t, "value")
		if err := e.schema.Validate(v); err != nil {
			t.Fatalf("%s: generated invalid value %s\n%v", e.name, render(v), err)
		}
	}
}

var _ = Describe("Valid", func() {
	hand, err := handCorpus()
	if err != nil {
		panic(fmt.Sprintf("hand corpus: %v", err))
	}

	It("generates only values that validate, for every hand-written schema", func() {
		Expect(checkAll(names(hand), hand, validProp)).To(BeEmpty())
	})

	It("generates only values that validate, for every MCP schema definition", func() {
		mcp, err := mcpCorpus()
		Expect(err).NotTo(HaveOccurred())
		if len(mcp) == 0 {
			Skip("MCP reference schemas not found at " + mcpDir)
		}
		Expect(checkAll(names(mcp), mcp, validProp)).To(BeEmpty())
	})
})
