package gen

import (
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/schemas"
)

// embeddedCorpus compiles every schema wirecheck ships (schemas/<protocol>/),
// the way the harness does, so the generator is proven on the schemas the
// fuzzer actually draws from.
func embeddedCorpus() ([]corpusEntry, error) {
	dirs, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		return nil, err
	}
	var out []corpusEntry
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		reg, err := schema.Compile(schemas.FS, d.Name())
		if err != nil {
			return nil, err
		}
		for _, f := range reg.Files() {
			out = append(out, corpusEntry{name: "schemas/" + d.Name() + "/" + f, schema: reg.Get(f)})
		}
	}
	return out, nil
}

var _ = Describe("Valid on the embedded schemas", func() {
	It("generates only values that validate, for every schema in schemas/", func() {
		corpus, err := embeddedCorpus()
		Expect(err).NotTo(HaveOccurred())
		Expect(len(corpus)).To(BeNumerically(">", 10))
		Expect(checkAll(names(corpus), corpus, validProp)).To(BeEmpty())
	})
})
