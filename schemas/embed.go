// Package schemas embeds the schemas/ folder so the wirecheck binary is self-contained.
package schemas

import "embed"

// FS holds every file of schemas/.
//
//go:embed *
var FS embed.FS
