package mcprevisions_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/spec"
)

func TestMCPRevisions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mcprevisions")
}

// The table as specs/mcp.yaml declares it, asked the questions the
// reference server and the transport ask.
var _ = It("answers from specs/mcp.yaml what each MCP revision has", func() {
	cases := []struct {
		rev  string
		f    spec.Feature
		want bool
	}{
		{"2024-11-05", spec.FeatureHandshake, true},
		{"2024-11-05", spec.FeatureStreamableHTTP, false},
		{"2025-03-26", spec.FeatureBatches, true},
		{"2025-06-18", spec.FeatureBatches, false},
		{"2025-06-18", spec.FeatureStructuredContent, true},
		{"2025-03-26", spec.FeatureStructuredContent, false},
		{"2025-11-25", spec.FeaturePrimingEvents, true},
		{"2026-07-28", spec.FeaturePrimingEvents, false},
		{"2026-07-28", spec.FeatureHandshake, false},
		{"2026-07-28", spec.FeatureDiscover, true},
		{"2026-07-28", spec.FeatureStructuredContent, true},
		{"2026-07-28", spec.FeatureResumableStreams, false},
		{"2025-11-25", spec.FeatureResumableStreams, true},
		// Unknown revisions: as the newest known one before them.
		{"2099-01-01", spec.FeatureDiscover, true},
		{"2026", spec.FeatureDiscover, false},
		{"2024-01-01", spec.FeatureHandshake, false},
		{"", spec.FeatureHandshake, false},
	}
	for _, c := range cases {
		Expect(mcprevisions.Has(c.rev, c.f)).To(Equal(c.want), "%s has %s", c.rev, c.f)
	}
	Expect(mcprevisions.With(spec.FeatureHandshake)).To(Equal([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}))
	Expect(mcprevisions.IDs()).To(HaveLen(5))
})
