package runner

import "github.com/wirecheck/wirecheck/internal/peer"

// SetLaunched installs the launched hook for one test; the returned func
// removes it.
func SetLaunched(f func(*peer.Peer)) (restore func()) {
	launched = f
	return func() { launched = nil }
}
