package mcprevisions_test

import (
	"testing"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// The table as specs/mcp.yaml declares it, asked the questions the
// reference server and the transport ask.
func TestTable(t *testing.T) {
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
		if got := mcprevisions.Has(c.rev, c.f); got != c.want {
			t.Errorf("Has(%q, %s) = %v, want %v", c.rev, c.f, got, c.want)
		}
	}
	if got := mcprevisions.With(spec.FeatureHandshake); len(got) != 4 {
		t.Errorf("With(handshake) = %v", got)
	}
}
