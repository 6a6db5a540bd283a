// Package memlimit sets the soft limit of the Go runtime's memory for a
// wirecheck process. The caps of the transports, the peers and the
// transcript bound what a run keeps (see the README's "A hostile server
// never beats the harness"); this bounds the garbage on top: under a
// flood the default GOGC lets the heap grow to twice what is live before
// collecting. It is a backstop, not the bound.
package memlimit

import (
	"os"
	"runtime/debug"
	"testing"
)

// Limit is the soft limit Set sets.
const Limit = 64 << 20

// Set sets Limit unless the user set GOMEMLIMIT (theirs wins) or the
// process is a test binary (which is not wirecheck), and says whether it
// did.
func Set() bool {
	return set(os.Getenv("GOMEMLIMIT"), testing.Testing())
}

func set(userLimit string, test bool) bool {
	if userLimit != "" || test {
		return false
	}
	debug.SetMemoryLimit(Limit)
	return true
}
