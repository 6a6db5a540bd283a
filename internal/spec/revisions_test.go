package spec_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/spec"
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
		Expect(p.Has("2000-01-01", spec.FeatureBatches)).To(BeTrue())
		Expect(p.Has("2001-01-01", spec.FeatureBatches)).To(BeFalse())
		Expect(p.Has("2001-01-01", spec.FeatureHandshake)).To(BeTrue())
		Expect(p.Has("2002-01-01", spec.FeatureStructuredContent)).To(BeTrue())
		Expect(p.Has("2002-01-01", spec.FeatureHandshake)).To(BeFalse())
		Expect(p.Versions.With(spec.FeatureHandshake)).To(Equal([]string{"2000-01-01", "2001-01-01"}))
		// A revision the spec does not list: as the newest one before it.
		Expect(p.Has("2001-06-01", spec.FeatureStructuredContent)).To(BeTrue())
		Expect(p.Has("2001-06-01", spec.FeatureDiscover)).To(BeFalse())
		Expect(p.Has("1999-01-01", spec.FeatureHandshake)).To(BeFalse())
	})

	It("keeps every feature of the previous revision when one lists none, and restates a whole set", func() {
		p, err := parse(revisedSpec("[handshake, batches]", "", "[discover]"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Has("2001-01-01", spec.FeatureBatches)).To(BeTrue())
		Expect(p.Has("2002-01-01", spec.FeatureBatches)).To(BeFalse())
		Expect(p.Has("2002-01-01", spec.FeatureDiscover)).To(BeTrue())
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

	It("reads MCP's table from the embedded spec alone, as the whole spec declares it", func() {
		v, err := spec.LoadVersions(specs.FS, "mcp.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.With(spec.FeatureBatches)).To(Equal([]string{"2025-03-26"}))
		Expect(v.With(spec.FeatureDiscover)).To(Equal([]string{"2026-07-28"}))
		Expect(v.With(spec.FeaturePrimingEvents)).To(Equal([]string{"2025-11-25"}))
		Expect(v.With(spec.FeatureStreamableHTTP)).To(Equal([]string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}))
		// Every known feature is some revision's: no name is dead.
		for _, f := range spec.Features {
			Expect(v.With(f)).NotTo(BeEmpty(), string(f))
		}
	})
})
