package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
		if string(doc) != got {
			Fail("README.md has drifted from the binary's output: run make readme\n" + firstDiff(string(doc), got))
		}
	})
})

// firstDiff shows the first line where the README and its regeneration
// differ, with its number, so a drift says where it is.
func firstDiff(was, now string) string {
	a, b := strings.Split(was, "\n"), strings.Split(now, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("README.md:%d\n  in the file: %q\n  regenerated: %q", i+1, x, y)
		}
	}
	return ""
}
