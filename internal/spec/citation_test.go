package spec_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// revised is a protocol of three revisions whose rules are quoted from
// the pages of one or another.
const revised = `id: revised
source: revised.txt
versions:
  param: rev
  default: "3"
  list:
    - {id: "1", doc: R 1}
    - {id: "2", doc: R 2}
    - {id: "3", doc: R 3}
rules:
  - {id: REV-LATE-1, level: MUST, title: a, doc: R 3, section: "basic/index#messages", sections: {"1": basic/messages}}
  - {id: REV-MID-1, level: MUST, title: b, doc: R 2, section: "page#anchor"}
  - {id: REV-ONLY-1, level: MUST, title: c, doc: R 3, section: "new#x", versions: ["3"]}
  - {id: REV-RPC-1, level: MUST, title: d, doc: JSON-RPC 2.0, section: "5.1"}
`

var _ = Describe("a rule's citation", func() {
	cite := func(version, rule string) string {
		GinkgoHelper()
		p, err := parse(revised)
		Expect(err).NotTo(HaveOccurred())
		q, err := p.ForVersion(version)
		Expect(err).NotTo(HaveOccurred())
		return q.Citation(q.Rule(rule))
	}

	It("is the page of the revision judged, never a later one's", func() {
		Expect(cite("3", "REV-LATE-1")).To(Equal("R 3 § basic/index#messages"))
		Expect(cite("2", "REV-LATE-1")).To(Equal("R 2 § basic/index#messages"))
		// Where the earlier revision's page is another, the rule names it.
		Expect(cite("1", "REV-LATE-1")).To(Equal("R 1 § basic/messages"))
		Expect(cite("1", "REV-MID-1")).To(Equal("R 1 § page#anchor"))
	})

	It("keeps an earlier revision's page, another document, and a rule of later revisions only as they are", func() {
		Expect(cite("3", "REV-MID-1")).To(Equal("R 2 § page#anchor"))
		Expect(cite("1", "REV-RPC-1")).To(Equal("JSON-RPC 2.0 § 5.1"))
		Expect(cite("1", "REV-ONLY-1")).To(Equal("R 3 § new#x"))
	})

	It("refuses sections of a revision the spec does not list", func() {
		_, err := parse(strings.Replace(revised, `sections: {"1":`, `sections: {"0":`, 1))
		Expect(err).To(MatchError(ContainSubstring(`rule REV-LATE-1: sections: version "0" is not in the spec's versions list`)))
	})
})

var _ = Describe("a spec's documents", func() {
	const titled = revised + `documents:
  - {name: revised.txt, title: the revised protocol document, file: seeds/revised.txt, sha256: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef}
  - {name: R 1, title: "the R specification, revision 1"}
  - {name: R 2, title: "the R specification, revision 2"}
  - {name: R 3, title: "the R specification, revision 3"}
  - {name: JSON-RPC 2.0, title: the JSON-RPC 2.0 specification}
`
	It("give each rule's document a human title, the revision judged's where its page is cited", func() {
		p, err := parse(titled)
		Expect(err).NotTo(HaveOccurred())
		q, err := p.ForVersion("1")
		Expect(err).NotTo(HaveOccurred())
		Expect(q.DocTitle(q.Rule("REV-LATE-1"))).To(Equal("the R specification, revision 1"))
		Expect(q.DocTitle(q.Rule("REV-RPC-1"))).To(Equal("the JSON-RPC 2.0 specification"))
		rules := q.ReportRules()
		Expect(rules[0].Document).To(Equal("the R specification, revision 1"))
		Expect(rules[0].Source).To(Equal("R 1 § basic/messages"), "the file stays the reference")
		var names []string
		for _, d := range q.Cited() {
			names = append(names, d.Name)
		}
		Expect(names).To(Equal([]string{"R 1", "JSON-RPC 2.0"}), "of revision 1: R 2's and R 3's rules are cited from R 1's pages, REV-ONLY-1 is not the revision's")
	})

	It("are checked at load: each titled, once, every cited one declared", func() {
		for _, c := range []struct{ yaml, want string }{
			{strings.Replace(titled, "title: the JSON-RPC 2.0 specification", "title: ''", 1), `documents: "JSON-RPC 2.0" has no title`},
			{strings.Replace(titled, "  - {name: R 2, title: \"the R specification, revision 2\"}\n", "", 1), `rule REV-MID-1: doc "R 2" is not declared in documents`},
			{strings.Replace(titled, "  - {name: revised.txt,", "  - {name: R 1, title: again}\n  - {name: revised.txt,", 1), `documents: "R 1" is declared twice`},
			{strings.Replace(titled, "sha256: 0123", "sha256: XY23", 1), `sha256 "XY23`},
			{strings.Replace(titled, "{name: revised.txt,", "{name: other.txt,", 1), `source "revised.txt" is not declared in documents`},
		} {
			_, err := parse(c.yaml)
			Expect(err).To(MatchError(ContainSubstring(c.want)))
			Expect(err.Error()).To(MatchRegexp(`:\d+: `), "names the line")
		}
	})
})
