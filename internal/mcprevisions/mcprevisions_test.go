package mcprevisions_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/revtable"
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
		f    revtable.Feature
		want bool
	}{
		{"2024-11-05", revtable.Handshake, true},
		{"2024-11-05", revtable.StreamableHTTP, false},
		{"2025-03-26", revtable.Batches, true},
		{"2025-06-18", revtable.Batches, false},
		{"2025-06-18", revtable.StructuredContent, true},
		{"2025-03-26", revtable.StructuredContent, false},
		{"2025-11-25", revtable.PrimingEvents, true},
		{"2026-07-28", revtable.PrimingEvents, false},
		{"2026-07-28", revtable.Handshake, false},
		{"2026-07-28", revtable.Discover, true},
		{"2026-07-28", revtable.StructuredContent, true},
		{"2026-07-28", revtable.ResumableStreams, false},
		{"2025-11-25", revtable.ResumableStreams, true},
		// Unknown revisions: as the newest known one before them.
		{"2099-01-01", revtable.Discover, true},
		{"2026", revtable.Discover, false},
		{"2024-01-01", revtable.Handshake, false},
		{"", revtable.Handshake, false},
	}
	for _, c := range cases {
		Expect(mcprevisions.Has(c.rev, c.f)).To(Equal(c.want), "%s has %s", c.rev, c.f)
	}
	Expect(mcprevisions.With(revtable.Handshake)).To(Equal([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}))
	Expect(mcprevisions.IDs()).To(HaveLen(5))
})
