// Package specs embeds the specs/ folder so the wirecheck binary is self-contained.
package specs

import "embed"

// FS holds every file of specs/.
//
//go:embed *.yaml
var FS embed.FS
