package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/docgen"
)

// The README's tables and excerpts are the binary's own output (issue 27):
// regenerated here in memory, they must equal the file, so a new rule,
// fault or wording that changes them fails until `make readme` is run.
var _ = Describe("the readme", func() {
	It("has every generated section as the binary makes it now (make readme rewrites them)", func() {
		secs, err := docgen.Gen{Bin: bin(), Dir: GinkgoT().TempDir()}.Make()
		Expect(err).NotTo(HaveOccurred())
		doc, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
		Expect(err).NotTo(HaveOccurred())
		got, err := docgen.Apply(string(doc), secs)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(doc)).To(Equal(got), "README.md has drifted from the binary's output: run make readme")
	})
})
