package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// memoryLimit is the soft limit of the Go runtime's memory. The caps of
// the transports, the peers and the transcript bound what a run keeps (see
// the README's "A hostile server never beats the harness"); this bounds the
// garbage on top: under a flood the default GOGC lets the heap grow to
// twice what is live before collecting. It is a backstop, not the bound.
const memoryLimit = 64 << 20

func init() {
	// GOMEMLIMIT set by the user wins; a test binary is not wirecheck.
	if os.Getenv("GOMEMLIMIT") == "" && !testing.Testing() {
		debug.SetMemoryLimit(memoryLimit)
	}
}
