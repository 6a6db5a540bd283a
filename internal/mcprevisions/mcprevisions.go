// Package mcprevisions is MCP's revision table as specs/mcp.yaml declares
// it, for code that serves or carries MCP without loading the whole spec
// (the reference server, the Streamable HTTP transport): one table, the
// spec's, never a second hand-written copy.
package mcprevisions

import (
	"sync"

	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/specs"
)

var table = sync.OnceValue(func() *spec.Versions {
	v, err := spec.LoadVersions(specs.FS, "mcp.yaml")
	if err != nil {
		// The embedded spec is the binary's own; its tests load it.
		panic(err)
	}
	return v
})

// Has reports whether MCP revision id has feature f (an unknown id: as the
// newest known revision before it).
func Has(id string, f spec.Feature) bool { return table().Has(id, f) }

// With lists the revisions that have feature f, oldest first.
func With(f spec.Feature) []string { return table().With(f) }

// IDs lists every revision, oldest first.
func IDs() []string { return table().IDs() }
