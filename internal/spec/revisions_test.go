package spec_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

// revised is a protocol of three revisions whose features are declared
// whole, then changed.
func revisedSpec(features ...string) string {
	src := `id: revised
source: revised.txt
transports: [stdio, http]
versions:
  param: rev
  default: "2001-01-01"
  list:
`
	for i, id := range []string{"2000-01-01", "2001-01-01", "2002-01-01"} {
		src += "    - id: \"" + id + "\"\n"
		if i < len(features) && features[i] != "" {
			src += "      features: " + features[i] + "\n"
		}
	}
	return src + "rules:\n  - {id: REV-1, level: MUST, title: t, section: S, checks: [frame.known]}\n"
}

var _ = Describe("the revision table", func() {
	It("inherits a revision's features from the previous one, with additions and removals", func() {
		p, err := parse(revisedSpec("[handshake, batches]", "[+structured-content, -batches]", "[-handshake, +discover]"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Has("2000-01-01", revtable.Batches)).To(BeTrue())
		Expect(p.Has("2001-01-01", revtable.Batches)).To(BeFalse())
		Expect(p.Has("2001-01-01", revtable.Handshake)).To(BeTrue())
		Expect(p.Has("2002-01-01", revtable.StructuredContent)).To(BeTrue())
		Expect(p.Has("2002-01-01", revtable.Handshake)).To(BeFalse())
		Expect(p.Versions.With(revtable.Handshake)).To(Equal([]string{"2000-01-01", "2001-01-01"}))
		// A revision the spec does not list: as the newest one before it.
		Expect(p.Has("2001-06-01", revtable.StructuredContent)).To(BeTrue())
		Expect(p.Has("2001-06-01", revtable.Discover)).To(BeFalse())
		Expect(p.Has("1999-01-01", revtable.Handshake)).To(BeFalse())
	})

	It("keeps every feature of the previous revision when one lists none, and restates a whole set", func() {
		p, err := parse(revisedSpec("[handshake, batches]", "", "[discover]"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Has("2001-01-01", revtable.Batches)).To(BeTrue())
		Expect(p.Has("2002-01-01", revtable.Batches)).To(BeFalse())
		Expect(p.Has("2002-01-01", revtable.Discover)).To(BeTrue())
	})

	DescribeTable("refuses, at load, with the file and the line",
		func(want string, features ...string) {
			_, err := parse(revisedSpec(features...))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("an unknown feature", "specs/mixed.yaml:11: version 2001-01-01: unknown feature \"batching\"", "[handshake]", "[+batching]"),
		Entry("a + of a feature already there", "specs/mixed.yaml:11: version 2001-01-01: adds feature \"handshake\", which the previous revision already has", "[handshake]", "[+handshake]"),
		Entry("a - of a feature missing", "specs/mixed.yaml:11: version 2001-01-01: removes feature \"batches\"", "[handshake]", "[-batches]"),
		Entry("signed and plain names mixed", "specs/mixed.yaml:11: version 2001-01-01: features: either every name", "[handshake]", "[+batches, discover]"),
		Entry("changes in the first revision", "specs/mixed.yaml:9: version 2000-01-01: features: the first revision lists its whole set", "[+handshake]"),
	)

	It("refuses transports: that disagree with streamable-http", func() {
		src := strings.Replace(revisedSpec("[handshake]"), "    - id: \"2000-01-01\"\n", "    - id: \"2000-01-01\"\n      transports: [stdio, http]\n", 1)
		_, err := parse(src)
		Expect(err).To(MatchError(ContainSubstring("version 2000-01-01: transports: [stdio http] and feature streamable-http disagree")))
	})

	It("reads MCP's table from the embedded spec as the whole spec declares it", func() {
		whole, err := protocolOf("mcp.yaml")
		Expect(err).NotTo(HaveOccurred())
		data, err := specs.FS.ReadFile("mcp.yaml")
		Expect(err).NotTo(HaveOccurred())
		alone, probs, err := revtable.Read(data)
		Expect(err).NotTo(HaveOccurred())
		Expect(probs).To(BeEmpty())
		Expect(alone.IDs()).To(Equal(whole.Versions.IDs()))
		for _, f := range spec.Features {
			Expect(alone.With(f)).To(Equal(whole.Versions.With(f)), string(f))
			// Every known feature is some revision's: no name is dead.
			Expect(alone.With(f)).NotTo(BeEmpty(), string(f))
		}
		Expect(alone.With(revtable.Batches)).To(Equal([]string{"2025-03-26"}))
		Expect(alone.With(revtable.Discover)).To(Equal([]string{"2026-07-28"}))
		Expect(alone.With(revtable.PrimingEvents)).To(Equal([]string{"2025-11-25"}))
	})
})

// protocolOf loads a spec of specs/ whole, as the registry does.
func protocolOf(file string) (*spec.Protocol, error) {
	return spec.Load(specs.FS, file, schemas.FS, verdict.Checks, nil)
}
