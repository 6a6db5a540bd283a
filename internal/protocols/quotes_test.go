package protocols_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// Every protocol's quotes are checked against the texts kept under
// /work/shared: the seeds (plain text or markdown) and MCP's revision
// folders (a page's .mdx, headings named by their anchors). A quote of a
// document kept only as a URL (an RFC, JSON-RPC, an MCP extension's
// repository) has no local text to check against; the test logs how many
// it leaves out and why.
var _ = Describe("the quotes of a stored document", func() {
	It("are its words, under the heading the section names", func() {
		dir := os.Getenv("WIRECHECK_SHARED")
		if dir == "" {
			dir = "/work/shared"
		}
		for _, sub := range []string{"reference", "seeds"} {
			if _, err := os.Stat(filepath.Join(dir, sub)); err != nil {
				Skip("no " + sub + " documents at " + dir + " (set WIRECHECK_SHARED): quotes are checked where they are")
			}
		}
		texts := map[string]*docText{}
		seen := map[string]bool{}
		unstored := map[string]int{}
		checked := 0
		var wrong []string
		for _, id := range protocols.AllIDs() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			p := b.Protocol
			for _, r := range p.Rules {
				name := r.Doc
				if name == "" {
					name = p.Source
				}
				// A profile's bundle carries its base's rules: each
				// quote once.
				key := name + "\x00" + r.Section + "\x00" + r.Quote
				if r.Quote == "" || seen[key] {
					continue
				}
				seen[key] = true
				d := p.Document(name)
				if d == nil || d.File == "" {
					unstored[name]++
					continue
				}
				checked++
				if msg := checkQuote(texts, dir, d, r); msg != "" {
					wrong = append(wrong, fmt.Sprintf("%s %s: %s", id, r.ID, msg))
				}
				wrong = append(wrong, checkSections(texts, dir, p, r)...)
			}
		}
		var left []string
		for name, n := range unstored {
			left = append(left, fmt.Sprintf("%s (%d)", name, n))
		}
		sort.Strings(left)
		AddReportEntry(fmt.Sprintf("%d quotes checked; not checked, no local text of", checked), strings.Join(left, ", "))
		if len(wrong) > 0 {
			// Fail, not Expect: Gomega would cut a long list short.
			Fail(fmt.Sprintf("%d quotes are not their documents' words:\n%s", len(wrong), strings.Join(wrong, "\n")))
		}
		Expect(checked).To(BeNumerically(">", 100))
	})

	// The matcher on small texts of both layouts: what it forgives, and
	// that it still tells a quote that is not the words.
	DescribeTable("a quote against a text",
		func(file, section, quote string, ok bool) {
			root := GinkgoT().TempDir()
			Expect(os.MkdirAll(filepath.Join(root, "shared", "seeds"), 0o755)).To(Succeed())
			Expect(os.MkdirAll(filepath.Join(root, "shared", "reference", "r", "spec", "basic"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(root, "shared", "seeds", "plain.txt"), []byte(plainSeed), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(root, "shared", "seeds", "md.txt"), []byte(mdSeed), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(root, "shared", "reference", "r", "spec", "basic", "page.mdx"), []byte(mdxSample), 0o644)).To(Succeed())
			msg := checkQuote(map[string]*docText{}, filepath.Join(root, "shared"), &spec.Document{Name: file, File: file}, &spec.Rule{Section: section, Quote: quote})
			if ok {
				Expect(msg).To(BeEmpty())
			} else {
				Expect(msg).NotTo(BeEmpty())
			}
		},
		Entry("plain text under its heading", "shared/seeds/plain.txt", "Edge cases", "Empty lines are ignored.", true),
		Entry("plain text: a label's line is no heading", "shared/seeds/plain.txt", "Startup contract", `First stdout line: {"ok": true,`, true),
		Entry("plain text: another heading", "shared/seeds/plain.txt", "Startup contract", "Empty lines are ignored.", false),
		Entry("plain text: a path of headings", "shared/seeds/plain.txt", "Startup contract › Request", "id: request id (string).", true),
		Entry("plain text: a word changed", "shared/seeds/plain.txt", "Edge cases", "Empty lines are rejected.", false),
		Entry("a list's items joined", "shared/seeds/plain.txt", "Edge cases", "Empty lines are ignored. Missing params.name fails.", true),
		Entry("a list's items joined by commas", "shared/seeds/plain.txt", "Ignored notifications", "Unknown request IDs, Already completed requests", true),
		Entry("a note closing a part", "shared/seeds/plain.txt", "Edge cases", "Empty lines are ignored. (silent on blank ones)", true),
		Entry("a parenthesis that is no note", "shared/seeds/plain.txt", "Edge cases", "Empty lines are ignored. (always)", false),
		Entry("parts joined by an ellipsis", "shared/seeds/plain.txt", "Startup contract; Edge cases", "First stdout line: … Runtime errors are returned", true),
		Entry("markdown: a code block's comments left out", "shared/seeds/md.txt", "session.created", `{ "type": "session.created", "id": "uuid" }`, true),
		Entry("markdown: a code block's comments kept", "shared/seeds/md.txt", "session.created", `"id": "uuid"  // Correlation ID`, true),
		Entry("markdown: a '#' line in a fence is no heading", "shared/seeds/md.txt", "session.created", "After the block.", true),
		Entry("markdown: a callout", "shared/seeds/md.txt", "Tools › Tag filtering", "Tags use AND logic.", true),
		Entry("a page by anchor, through emphasis, links, escapes and curly quotes", "shared/reference/r/", "basic/page#error-handling", "Servers **MUST** return a _JSON-RPC error_ for an “unknown” tool named read_file (_) … See the Lifecycle page", true),
		Entry("a page by heading title", "shared/reference/r/", "basic/page, Error Handling", "Servers MUST return a JSON-RPC error", true),
		Entry("a page: under another anchor", "shared/reference/r/", "basic/page#overview", "Servers MUST return a JSON-RPC error", false),
		Entry("a note citing what the page does not say", "shared/reference/r/", "basic/page#overview", `MCP is a protocol. (#error-handling: "for a known tool")`, false),
		Entry("a note citing the page's words", "shared/reference/r/", "basic/page#overview", `MCP is a protocol. (#error-handling: "See the Lifecycle page")`, true),
		Entry("no such page", "shared/reference/r/", "basic/none#overview", "MCP is a protocol.", false),
	)
})

// checkQuote is why r's quote is not the words of d under the section r
// names, "" when it is. Each part of a quote between ellipses must be on
// the page, at least once under one of the headings the section names.
func checkQuote(texts map[string]*docText, dir string, d *spec.Document, r *spec.Rule) string {
	path := filepath.Join(dir, "..", d.File)
	var (
		t     *docText
		where []quoteSite
	)
	if strings.HasSuffix(d.File, "/") {
		page, head, anchor := mcpSection(r.Section)
		key := path + page
		if t = texts[key]; t == nil {
			t = mdxPage(path, page)
			texts[key] = t
		}
		if t.text == "" {
			return fmt.Sprintf("no page %q in %s", page, d.Name)
		}
		if msg := checkNotes(texts, path, page, t, r); msg != "" {
			return msg
		}
		switch {
		case anchor != "":
			where = []quoteSite{{anchor: anchor}}
		case head != "":
			where = []quoteSite{{title: head}}
		}
	} else {
		if t = texts[path]; t == nil {
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			t = seedText(string(data))
			texts[path] = t
		}
		for _, alt := range seedSections(t, r.Section) {
			where = append(where, quoteSite{path: alt})
		}
	}
	msg := quoteIn(t, where, d.Name, r)
	if msg != "" && t.bareText() != nil && quoteIn(t.bareText(), where, d.Name, r) == "" {
		return ""
	}
	return msg
}

// quoteIn is why r's quote is not in t under one of where, "" when it is.
func quoteIn(t *docText, where []quoteSite, doc string, r *spec.Rule) string {
	parts, _ := quoteParts(t, r.Quote)
	for _, piece := range parts {
		ats := t.find(piece)
		if len(ats) == 0 {
			return fmt.Sprintf("%q is not in %s %s", piece, doc, r.Section)
		}
		if len(where) == 0 {
			continue
		}
		ok := false
		for _, at := range ats {
			for _, w := range where {
				ok = ok || t.under(at, w)
			}
		}
		if !ok {
			return fmt.Sprintf("%q is not under %q but %q", piece, r.Section, t.enclosing(ats[0]))
		}
	}
	return ""
}

// quoteParts are the parts of a quote a page must hold: its parts
// between "…" (and between a part's "..." when the page has not the
// part's own "..."), each without the note wirecheck may close it with
// (docs/silence.md: "(silent on …)", "(no keyword, hence SHOULD)", or a
// citation of what else the rule rests on), returned apart.
func quoteParts(t *docText, quote string) (parts, notes []string) {
	for _, p := range strings.Split(quote, "…") {
		p = normalize(p)
		if p != "" && len(t.find(p)) == 0 {
			for i := range len(p) {
				if p[i] == '(' && note.MatchString(p[i:]) {
					notes = append(notes, p[i:])
					p = strings.TrimSpace(p[:i])
					break
				}
			}
		}
		if p != "" && len(t.find(p)) == 0 && strings.Contains(p, "...") {
			for _, q := range strings.Split(p, "...") {
				if q = strings.TrimSpace(q); q != "" {
					parts = append(parts, q)
				}
			}
			continue
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts, notes
}

// checkSections are the sections r names in other revisions' pages
// (sections:, what a report cites for a run of that revision) that are
// no page and heading of that revision's text.
func checkSections(texts map[string]*docText, dir string, p *spec.Protocol, r *spec.Rule) []string {
	var wrong []string
	for rev, section := range r.Sections {
		var d *spec.Document
		if p.Versions != nil {
			for _, v := range p.Versions.List {
				if v.ID == rev {
					d = p.Document(v.Doc)
				}
			}
		}
		if d == nil || !strings.HasSuffix(d.File, "/") {
			continue
		}
		root := filepath.Join(dir, "..", d.File)
		page, title, anchor := mcpSection(section)
		t := texts[root+page]
		if t == nil {
			t = mdxPage(root, page)
			texts[root+page] = t
		}
		switch {
		case t.text == "":
			wrong = append(wrong, fmt.Sprintf("%s: no page %q in %s", r.ID, page, d.Name))
		case anchor != "" && !slices.ContainsFunc(t.heads, func(h head) bool { return h.anchor == anchor }),
			title != "" && !slices.ContainsFunc(t.heads, func(h head) bool { return h.title == title }):
			wrong = append(wrong, fmt.Sprintf("%s: no heading %q on %s of %s", r.ID, anchor+title, page, d.Name))
		}
	}
	return wrong
}

// checkNotes is why a quote's note that cites a page of the same
// revision ("(basic/index#schema: the schema \"is the source of truth …\")",
// "(#anchor: \"…\")" on the quote's own page) does not hold that page's
// words under that heading, "" when it does: a note is evidence too.
func checkNotes(texts map[string]*docText, root, page string, t *docText, r *spec.Rule) string {
	_, notes := quoteParts(t, r.Quote)
	for _, n := range notes {
		for _, m := range noteCite.FindAllStringSubmatch(n, -1) {
			npage, anchor, _ := strings.Cut(m[1], "#")
			if npage == "" {
				npage = page
			}
			nt := texts[root+npage]
			if nt == nil {
				nt = mdxPage(root, npage)
				texts[root+npage] = nt
			}
			for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
				ats := nt.find(q[1])
				if len(ats) == 0 {
					return fmt.Sprintf("its note's %q is not on %s", q[1], m[1])
				}
				if anchor != "" && !slices.ContainsFunc(ats, func(at int) bool { return nt.under(at, quoteSite{anchor: anchor}) }) {
					return fmt.Sprintf("its note's %q is not under %s but %q", q[1], m[1], nt.enclosing(ats[0]))
				}
			}
		}
	}
	return ""
}

// quoteSite is where a quote is said to be: a heading of the page named by
// its anchor or its title, or a path of titles (a seed's "A › B").
type quoteSite struct {
	anchor, title string
	path          []string
}

type head struct {
	at, level     int
	title, anchor string
}

// docText is a document's normalized text and where each of its
// headings starts in it.
type docText struct {
	text  string
	heads []head
	// src is a markdown text's source, for its bare text, made when a
	// quote is not in the text.
	src  string
	bare *docText
}

func (t *docText) bareText() *docText {
	if t.bare == nil && t.src != "" {
		t.bare = markdownText(t.src, true)
	}
	return t.bare
}

// find is where s starts in the text. A quote may join a list's items
// with "," or ";" or leave their markers out (the slower look, taken only
// when the words are not there as they stand).
func (t *docText) find(s string) []int {
	var ats []int
	for from := 0; s != ""; {
		i := strings.Index(t.text[from:], s)
		if i < 0 {
			break
		}
		ats = append(ats, from+i)
		from += i + 1
	}
	if len(ats) > 0 {
		return ats
	}
	words := strings.Split(s, " ")
	var re strings.Builder
	for i, w := range words {
		if i > 0 {
			re.WriteString(` (?:(?:-|\d+\.) )?`)
		}
		if i < len(words)-1 && strings.ContainsAny(w[len(w)-1:], ",;") {
			re.WriteString(regexp.QuoteMeta(w[:len(w)-1]) + `[,;]?`)
			continue
		}
		re.WriteString(regexp.QuoteMeta(w))
	}
	for _, m := range regexp.MustCompile(re.String()).FindAllStringIndex(t.text, -1) {
		ats = append(ats, m[0])
	}
	return ats
}

// chain are the headings a text offset lies under: the nearest, and each
// of a higher level before it.
func (t *docText) chain(at int) []head {
	var hs []head
	level := 1 << 30
	for i := len(t.heads) - 1; i >= 0; i-- {
		if h := t.heads[i]; h.at <= at && h.level < level {
			hs = append(hs, h)
			level = h.level
		}
	}
	return hs
}

func (t *docText) enclosing(at int) []string {
	var titles []string
	for _, h := range t.chain(at) {
		titles = append(titles, h.title)
	}
	return titles
}

// under is whether offset at lies under w. A path's last title must
// enclose it, and each title before it head a part of the text before
// that one: a plain-text seed gives its headings no levels, so "Tools ›
// tools/list" cannot be read from nesting.
func (t *docText) under(at int, w quoteSite) bool {
	chain := t.chain(at)
	switch {
	case w.anchor != "":
		return slices.ContainsFunc(chain, func(h head) bool { return h.anchor == w.anchor })
	case w.title != "":
		return slices.ContainsFunc(chain, func(h head) bool { return h.title == w.title })
	}
	last := w.path[len(w.path)-1]
	i := slices.IndexFunc(chain, func(h head) bool { return h.title == last })
	if i < 0 {
		return false
	}
	before := chain[i].at
	for j := len(w.path) - 2; j >= 0; j-- {
		k := slices.IndexFunc(t.heads, func(h head) bool { return h.title == w.path[j] && h.at < before })
		if k < 0 {
			return false
		}
		before = t.heads[k].at
	}
	return true
}

var (
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	wrappedLink = regexp.MustCompile(`\[([^\]\n]*)\n[ \t]*([^\]\n]*)\]\(`)
	mdEmph      = regexp.MustCompile(`(^|[^\w*])\*([^*\s][^*]*?)\*`)
	callout     = regexp.MustCompile(`^:::\w+\[(.*)\]\s*$`)
	noteCite    = regexp.MustCompile(`(?:^\(|; )(#[\w-]+|[a-z][\w-]*(?:/[\w-]+)+(?:#[\w-]+)?): ([^;]*)`)
	quoted      = regexp.MustCompile(`"([^"]+)"`)
	mdHead      = regexp.MustCompile(`^(#+)\s+(.*?)\s*#*$`)
	mdRefLink   = regexp.MustCompile(`\[([^\]]*)\]\[[^\]]*\]`)
	mdEscape    = regexp.MustCompile(`\\([_*\[\]#])`)
	underOpen   = regexp.MustCompile(`(^|[\s(])_(\w)`)
	underShut   = regexp.MustCompile(`(\w)_([\s.,;:)]|$)`)
	mdBracket   = regexp.MustCompile(`\[([^\[\]]+)\]`)
	braceIn     = regexp.MustCompile(`([{\[]) `)
	braceOut    = regexp.MustCompile(` ([}\]])`)
	codeComment = regexp.MustCompile(`\s*//.*$`)
	boxLine     = regexp.MustCompile(`─+`)
	listMark    = regexp.MustCompile(`^\s*([-*•])\s+`)
	note        = regexp.MustCompile(`^\((silent on|no keyword|schema\b|JSON-RPC|RFC \d|([\w/.-]+|[\w/.-]*#[\w-]+):)[\s\S]*\)$`)
	slugDrop    = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	typoQuote   = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'", "•", "-", "│", "", "**", "", "__", "", "`", "")
)

// normalize drops what a quote may leave out of the page: line breaks and
// indentation, emphasis (an "_" opening or closing a word, which a line
// break may part from its pair), escapes, code ticks, link targets (and the brackets of a
// link whose target the quote left out), the shape of its quotation marks
// and of its bullets, and the spaces inside braces and brackets (a quote
// writes {"a": 1} of a block's { "a": 1 }).
func normalize(s string) string {
	// Each rewrite runs only where its mark is: a page is thousands of
	// lines, and this keeps the test fast under -race.
	if strings.Contains(s, "[") {
		s = mdLink.ReplaceAllString(s, "$1")
		s = mdRefLink.ReplaceAllString(s, "$1")
	}
	s = typoQuote.Replace(s)
	if strings.Contains(s, "─") {
		s = boxLine.ReplaceAllString(s, "─")
	}
	if strings.Contains(s, "*") {
		s = mdEmph.ReplaceAllString(s, "$1$2")
	}
	if strings.Contains(s, "_") {
		s = underShut.ReplaceAllString(underOpen.ReplaceAllString(s, "$1$2"), "$1$2")
	}
	if strings.Contains(s, "\\") {
		s = mdEscape.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "[") {
		s = mdBracket.ReplaceAllString(s, "$1")
	}
	s = strings.Join(strings.Fields(s), " ")
	if strings.ContainsAny(s, "{[]}") {
		s = braceIn.ReplaceAllString(s, "$1")
		s = braceOut.ReplaceAllString(s, "$1")
	}
	return s
}

// slug is the anchor a page gives a heading: lower case, punctuation
// dropped, spaces as hyphens.
func slug(title string) string {
	s := slugDrop.ReplaceAllString(strings.ToLower(title), "")
	return strings.ReplaceAll(s, " ", "-")
}

// mcpSection reads an MCP section: "page#anchor" or "page, Heading" or
// "page".
func mcpSection(s string) (page, title, anchor string) {
	page, anchor, _ = strings.Cut(s, "#")
	page, title, _ = strings.Cut(page, ",")
	return strings.TrimSpace(page), strings.TrimSpace(title), strings.TrimSpace(anchor)
}

// mdxPage is the text of a page of an MCP revision folder (the page's
// .mdx, or every .mdx of its folder when a revision split it).
func mdxPage(root, page string) *docText {
	files, _ := filepath.Glob(filepath.Join(root, "spec", page+".mdx"))
	more, _ := filepath.Glob(filepath.Join(root, "spec", page, "*.mdx"))
	var all strings.Builder
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		all.Write(data)
		all.WriteString("\n")
	}
	t := markdownText(all.String(), false)
	t.src = all.String()
	return t
}

// markdownText reads "#" headings outside code fences (a "#" line in a
// fence is a comment). A bare text leaves out the fences' "//" comments,
// as a quote of a code block may.
func markdownText(s string, bare bool) *docText {
	// A link's text may wrap ("[negotiated during\ninitialization](…)"):
	// lines are read one by one, so it is joined first.
	if strings.Contains(s, "](") {
		s = wrappedLink.ReplaceAllString(s, "[$1 $2](")
	}
	t := &docText{}
	var b strings.Builder
	fence := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		// A callout (":::tip[Title]" … ":::") is a heading of its own
		// below every "#" one; its end returns to the heading around it.
		if m := callout.FindStringSubmatch(line); m != nil && !fence {
			title := normalize(m[1])
			t.heads = append(t.heads, head{b.Len(), 7, title, slug(title)})
			continue
		}
		if strings.TrimSpace(line) == ":::" && !fence {
			t.heads = append(t.heads, head{b.Len(), 7, "", ""})
			continue
		}
		if m := mdHead.FindStringSubmatch(line); m != nil && !fence {
			title := normalize(m[2])
			t.heads = append(t.heads, head{b.Len(), len(m[1]), title, slug(title)})
			line = m[2]
		}
		if fence && bare {
			line = codeComment.ReplaceAllString(line, "")
		}
		join(&b, normalize(listMark.ReplaceAllString(line, "- ")))
	}
	t.text = b.String()
	return t
}

// join appends a normalized line to a text: apart by a space, except
// inside braces and brackets, as normalize writes them.
func join(b *strings.Builder, l string) {
	if l == "" {
		return
	}
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "{") && !strings.HasSuffix(s, "[") && !strings.HasPrefix(l, "}") && !strings.HasPrefix(l, "]") {
		b.WriteString(" ")
	}
	b.WriteString(l)
}

// seedText reads a seed: markdown when it has "#" headings, else the
// plain text a web page was saved as, where a heading is a short line of
// its own between blank lines that does not end as a sentence or a
// label does, nor follows a label (what "Command:" introduces).
func seedText(s string) *docText {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## ") {
			t := markdownText(s, false)
			t.src = s
			return t
		}
	}
	t := &docText{}
	var b strings.Builder
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	label := false // the last line ended as a label ("Command:") does
	for i, line := range lines {
		l := normalize(listMark.ReplaceAllString(line, "- "))
		if l == "" {
			continue
		}
		after := label
		label = strings.HasSuffix(l, ":") && len(l) <= 30
		if !after && blank(i-1) && blank(i+1) && line == strings.TrimSpace(line) && len(l) <= 60 &&
			!strings.ContainsAny(l[:1], `{}[]"`) && !strings.ContainsAny(l[len(l)-1:], ".:,;") {
			t.heads = append(t.heads, head{b.Len(), 1, l, slug(l)})
		}
		join(&b, l)
	}
	t.text = b.String()
	return t
}

// seedSections are the headings a seed's section names: one, or several
// apart by ";" or "," (when the whole is no heading), each a path of
// titles apart by "›".
func seedSections(t *docText, s string) [][]string {
	isHead := func(title string) bool {
		return slices.ContainsFunc(t.heads, func(h head) bool { return h.title == title })
	}
	var out [][]string
	for _, alt := range strings.Split(s, ";") {
		alt = strings.TrimSpace(alt)
		alts := []string{alt}
		if !isHead(alt) && strings.Contains(alt, ",") && !strings.Contains(alt, "›") {
			alts = strings.Split(alt, ",")
		}
		for _, a := range alts {
			var path []string
			for _, p := range strings.Split(a, "›") {
				path = append(path, normalize(p))
			}
			out = append(out, path)
		}
	}
	return out
}

const plainSeed = `Docs

Startup contract

Command:

serve --json

First stdout line:

{
  "ok": true,
  "status": "ready"
}

Request

  • id: request id (string).

Edge cases

  • Empty lines are ignored.
  • Missing params.name fails.
  • Runtime errors are returned as ok: false.

Ignored notifications

  • Unknown request IDs
  • Already completed requests
`

const mdSeed = `# Protocol

## Messages

### ` + "`session.created`" + `

` + "```typescript" + `
{
  "type": "session.created",
  "id": "uuid"  // Correlation ID
}
` + "```" + `

` + "```bash" + `
# not a heading
` + "```" + `

After the block.

## Tools

Some tools.

:::tip[Tag filtering]
Tags use AND logic.
:::
`

const mdxSample = `---
title: Page
---

## Overview

MCP is a protocol.

## Error Handling

Servers **MUST** return a _JSON-RPC
error_ for an "unknown" tool named ` + "`read_file`" + ` (\_).
See the [Lifecycle][lifecycle] page.

[lifecycle]: /specification/basic/lifecycle
`
