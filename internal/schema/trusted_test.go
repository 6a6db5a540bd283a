package schema_test

import (
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/schema"
)

// Open is for the embedded schemas, which the tests compile checked
// (Compile): checking them against their metaschema again at every run
// was half of what compiling MCP's revisions cost.
var _ = Describe("Open", func() {
	// minLength -1 breaks the metaschema (a non-negative integer) but
	// compiles to a working schema, so only the metaschema tells.
	fsys := fstest.MapFS{"p/s.json": {Data: []byte(`{"type": "string", "minLength": -1}`)}}

	It("checks no file against its metaschema; Compile does", func() {
		reg, err := schema.Open(fsys, "p")
		Expect(err).NotTo(HaveOccurred())
		s := reg.Get("s.json")
		Expect(s).NotTo(BeNil())
		Expect(s.Validate("x")).To(Succeed())
		Expect(s.Validate(1.0)).NotTo(Succeed())

		_, err = schema.Compile(fsys, "p")
		Expect(err).To(MatchError(ContainSubstring("schemas/p/s.json")))
		Expect(err.Error()).NotTo(ContainSubstring("json-schema.org/wirecheck"))
	})
})
