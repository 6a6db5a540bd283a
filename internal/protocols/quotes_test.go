package protocols_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

// quotesChecked are the protocols whose quotes were checked word for word
// against the stored texts; a protocol joins once its quotes pass. Rules
// quoting a URL document (an RFC) are not checked here: no copy of its
// text is kept.
var quotesChecked = []string{"mcp-authorization"}

var _ = Describe("the quotes of a stored document", func() {
	It("are its words, under the heading the section names", func() {
		dir := os.Getenv("WIRECHECK_SHARED")
		if dir == "" {
			dir = "/work/shared"
		}
		if _, err := os.Stat(filepath.Join(dir, "reference")); err != nil {
			Skip("no reference documents at " + dir + " (set WIRECHECK_SHARED): quotes are checked where they are")
		}
		checked := 0
		var wrong []string
		for _, id := range quotesChecked {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			p := b.Protocol
			for _, r := range p.Rules {
				d := p.Document(p.DocOf(r))
				if d == nil || d.File == "" || r.Quote == "" {
					continue
				}
				page, heading, _ := strings.Cut(r.Section, ",")
				page, heading = strings.TrimSpace(page), strings.TrimSpace(heading)
				text, heads := pageText(filepath.Join(dir, "..", d.File), page)
				if text == "" {
					wrong = append(wrong, fmt.Sprintf("%s %s: no page %q in %s", id, r.ID, page, d.File))
					continue
				}
				for _, piece := range strings.Split(r.Quote, "…") {
					piece = normalize(piece)
					checked++
					at := strings.Index(text, piece)
					switch {
					case at < 0:
						wrong = append(wrong, fmt.Sprintf("%s %s: %q is not in %s %s", id, r.ID, piece, d.Name, page))
					case !slices.Contains(enclosing(heads, at), heading):
						wrong = append(wrong, fmt.Sprintf("%s %s: %q is not under the heading %q but %q", id, r.ID, piece, heading, enclosing(heads, at)))
					}
				}
			}
		}
		Expect(wrong).To(BeEmpty())
		Expect(checked).To(BeNumerically(">", 0))
	})
})

type head struct {
	at, level int
	title     string
}

var (
	mdLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdSpace = regexp.MustCompile(`\s+`)
	mdHead  = regexp.MustCompile(`^(#+)\s+(.*)$`)
)

// normalize drops what a quote may leave out of the page: line breaks and
// indentation, emphasis, code ticks and link targets.
func normalize(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "`", "").Replace(s)
	return strings.TrimSpace(mdSpace.ReplaceAllString(s, " "))
}

// pageText is the normalized text of a page of a revision folder (the
// page's .mdx, or every .mdx of its folder when a revision split it), with
// where each heading starts in it.
func pageText(root, page string) (string, []head) {
	files, _ := filepath.Glob(filepath.Join(root, "spec", page+".mdx"))
	more, _ := filepath.Glob(filepath.Join(root, "spec", page, "*.mdx"))
	var b strings.Builder
	var heads []head
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		for _, line := range strings.Split(string(data), "\n") {
			if m := mdHead.FindStringSubmatch(line); m != nil {
				heads = append(heads, head{b.Len(), len(m[1]), normalize(m[2])})
			}
			if l := normalize(line); l != "" {
				b.WriteString(l + " ")
			}
		}
	}
	return b.String(), heads
}

// enclosing are the titles of the headings a text offset lies under: the
// nearest, and each of a higher level before it.
func enclosing(heads []head, at int) []string {
	var titles []string
	level := 1 << 30
	for i := len(heads) - 1; i >= 0; i-- {
		if h := heads[i]; h.at <= at && h.level < level {
			titles = append(titles, h.title)
			level = h.level
		}
	}
	return titles
}
