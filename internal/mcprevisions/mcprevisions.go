// Package mcprevisions is MCP's revision table as specs/mcp.yaml declares
// it, for code that serves or carries MCP without loading the whole spec
// (the reference server, the Streamable HTTP transport): one table, the
// spec's, never a second hand-written copy.
package mcprevisions

import (
	"fmt"
	"sync"

	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/specs"
)

var table = sync.OnceValue(func() *revtable.Table {
	data, err := specs.FS.ReadFile("mcp.yaml")
	if err != nil {
		panic(err)
	}
	t, probs, err := revtable.Read(data)
	if err == nil && len(probs) > 0 {
		err = fmt.Errorf("specs/mcp.yaml:%d: %s", probs[0].Line, probs[0].Msg)
	}
	if err != nil {
		// The embedded spec is the binary's own; its tests load it.
		panic(err)
	}
	return t
})

// Has reports whether MCP revision id has feature f (an unknown id: as the
// newest known revision before it).
func Has(id string, f revtable.Feature) bool { return table().Has(id, f) }

// With lists the revisions that have feature f, oldest first.
func With(f revtable.Feature) []string { return table().With(f) }

// IDs lists every revision, oldest first.
func IDs() []string { return table().IDs() }
