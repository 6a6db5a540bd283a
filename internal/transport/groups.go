//go:build unix

package transport

import (
	"sync"
	"syscall"
)

// groups are the process groups of the servers launched and not yet shut
// down, for KillAll.
var groups sync.Map // pgid → struct{}

// KillAll sends SIGKILL to the process group of every server launched and
// not yet shut down. It is for a process about to exit without closing
// its transports (a second Ctrl-C): no server outlives wirecheck.
func KillAll() {
	groups.Range(func(k, _ any) bool {
		_ = syscall.Kill(-k.(int), syscall.SIGKILL)
		return true
	})
}
