package protocols_test

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

// mcpReference finds the MCP revision texts (shared/reference/mcp) above
// the package, "" when this checkout has none.
func mcpReference() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		ref := filepath.Join(dir, "shared", "reference", "mcp")
		if st, err := os.Stat(ref); err == nil && st.IsDir() {
			return ref
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

var heading = regexp.MustCompile(`^#+\s+(.*)`)

// anchors are the fragment ids of a page's headings, as the published
// pages make them and the texts link them ("## Version Negotiation" is
// #version-negotiation, "### `_meta`" #meta).
func anchors(page string) (map[string]bool, error) {
	f, err := os.Open(page)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := heading.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		t := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
				return r
			case r == ' ':
				return '-'
			}
			return -1
		}, strings.ToLower(strings.TrimSpace(m[1])))
		out[t] = true
	}
	return out, sc.Err()
}

var _ = Describe("the citations of mcp's rules", func() {
	for _, id := range []string{"mcp", "mcp-client"} {
		Context(id, func() { citations(id) })
	}
})

func citations(id string) {
	b, err := protocols.Load(id)

	It("name, in each revision a rule is part of, that revision's page or an earlier one's, never a later one's", func() {
		Expect(err).NotTo(HaveOccurred())
		ids := b.Protocol.Versions.IDs()
		for i, v := range ids {
			p, err := b.Protocol.ForVersion(v)
			Expect(err).NotTo(HaveOccurred())
			for _, r := range p.Rules {
				if !r.AppliesTo(v) {
					continue
				}
				c := p.Citation(r)
				for _, later := range ids[i+1:] {
					Expect(c).NotTo(HavePrefix("MCP "+later), "rule %s judged in %s cites %q", r.ID, v, c)
				}
			}
		}
	})

	It("name a page and heading that revision's text has (where this checkout has the texts)", func() {
		ref := mcpReference()
		if ref == "" {
			Skip("no shared/reference/mcp above this checkout")
		}
		Expect(err).NotTo(HaveOccurred())
		var bad []string
		for _, v := range b.Protocol.Versions.IDs() {
			p, err := b.Protocol.ForVersion(v)
			Expect(err).NotTo(HaveOccurred())
			for _, r := range p.Rules {
				c := p.Citation(r)
				doc, section, ok := strings.Cut(c, " § ")
				if !r.AppliesTo(v) || !ok || doc != "MCP "+v {
					continue
				}
				pg, anchor, _ := strings.Cut(section, "#")
				var page string
				for _, cand := range []string{pg + ".mdx", filepath.Join(pg, "index.mdx")} {
					if _, err := os.Stat(filepath.Join(ref, v, "spec", cand)); err == nil {
						page = filepath.Join(ref, v, "spec", cand)
					}
				}
				if page == "" {
					bad = append(bad, fmt.Sprintf("rule %s in %s cites %q: no such page", r.ID, v, c))
					continue
				}
				if anchor == "" {
					continue
				}
				as, err := anchors(page)
				Expect(err).NotTo(HaveOccurred())
				if !as[anchor] {
					bad = append(bad, fmt.Sprintf("rule %s in %s cites %q: the page has no heading #%s (%s)", r.ID, v, c, anchor, strings.Join(slices.Sorted(maps.Keys(as)), ", ")))
				}
			}
		}
		Expect(bad).To(BeEmpty())
	})
}
