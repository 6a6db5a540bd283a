// Package specs embeds the specs/ folder so the wirecheck binary is self-contained.
package specs

import "embed"

// FS holds every file of specs/: each spec and its frozen form (which
// internal/spec reads in place of the YAML it was made from; make frozen).
//
//go:embed *.yaml *.frozen
var FS embed.FS
