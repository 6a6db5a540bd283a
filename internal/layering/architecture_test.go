package layering_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/layering"
)

// docs/architecture.md, held to the code so it cannot rot silently.
var _ = Describe("the architecture page", func() {
	root := filepath.Join("..", "..")
	page := func() string {
		data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
		Expect(err).NotTo(HaveOccurred())
		return string(data)
	}

	It("names only what exists, every package under internal/, in import order, the engine as the layering test guards it", func() {
		bad, err := layering.Architecture(root, page())
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(BeEmpty(), "docs/architecture.md:\n%s", strings.Join(bad, "\n"))
	})

	It("is linked from README.md and docs/design.md, and links back to the design, with links that resolve", func() {
		links := map[string]string{"README.md": "docs/architecture.md", "docs/design.md": "architecture.md", "docs/architecture.md": "design.md"}
		for file, want := range links {
			data, err := os.ReadFile(filepath.Join(root, file))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("]("+want+")"), file)
			for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
				if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
					continue
				}
				_, err := os.Stat(filepath.Join(root, filepath.Dir(file), filepath.FromSlash(m[1])))
				Expect(err).NotTo(HaveOccurred(), "%s links to %s", file, m[1])
			}
		}
	})

	It("fails on a stale name, a left-out package, a row out of order and a wrong engine", func() {
		doc := page()
		// A package moved away, a file that never was, a bare file name.
		doc += "\nSee `internal/mcp/rev` and internal/suite/mcp/nosuch.go, and judge.go.\n"
		// internal/shard leaves the table; internal/peer's row moves above
		// internal/transport's, which it imports; internal/fuzz is called
		// engine.
		doc = strings.Replace(doc, ", `internal/shard`", "", 1)
		peerRow := rowOf(doc, "`internal/peer`")
		doc = strings.Replace(doc, peerRow+"\n", "", 1)
		doc = strings.Replace(doc, rowOf(doc, "`internal/transport`"), peerRow+"\n"+rowOf(doc, "`internal/transport`"), 1)
		doc = strings.Replace(doc, "| `internal/gen`, `internal/fuzz` | fuzz |", "| `internal/gen`, `internal/fuzz` | engine |", 1)

		bad, err := layering.Architecture(root, doc)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(ContainElements(
			"names internal/mcp/rev, which does not exist",
			"names internal/suite/mcp/nosuch.go, which does not exist",
			"names judge.go without its folder",
			"package table leaves out internal/shard",
			"internal/peer imports internal/transport, a package of a later row: the table is not the import order",
			ContainSubstring("marks as engine [fuzz gen peer"),
		))
		Expect(bad).To(ContainElement(ContainSubstring("internal/runner imports internal/shard, which the package table leaves out")))
	})
})

// mdLink is a Markdown link's target, without its #fragment.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)[^)]*\)`)

// rowOf is the table row of doc that begins with cell.
func rowOf(doc, cell string) string {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| "+cell+" |") {
			return line
		}
	}
	Fail("no row " + cell)
	return ""
}
