// Package procs sets how many OS threads run a wirecheck process's Go code
// at once (GOMAXPROCS) for the commands that judge a server or client:
// `run` and `replay`.
//
// Those commands wait on the peer nearly all the time: against
// server-everything a run spends some 0.4 s of CPU in 4 s, against the Go
// SDK's example 0.2 s in 0.3 s, and what bounds its wall time is the
// peer's own CPU. With a thread per core the lanes' goroutines woke each
// other across threads (futex wake-ups and the scheduler's spinning some
// 10-15% of a profile) and the collector's idle mark workers filled every
// idle core during each cycle; on one thread both go away, and the core
// the peer needs is left to it. Measured on a 2-core machine, the two
// settings alternating against fresh servers (docs/official-suite.md,
// session 16): CPU -27% against server-everything, -20% against the Go
// SDK example with its wall time 0.21 -> 0.17 s; over stdio against the
// reference server (launched processes, every revision) no change in
// wall time. `fuzz` keeps every core: drawing and shrinking are its own
// CPU work.
package procs

import (
	"os"
	"runtime"
	"testing"
)

// ForJudging sets one thread unless the user set GOMAXPROCS (theirs wins)
// or the process is a test binary (tests call the CLI in-process, beside
// others), and says whether it set it.
func ForJudging() bool {
	return forJudging(os.Getenv("GOMAXPROCS"), testing.Testing())
}

func forJudging(user string, test bool) bool {
	if user != "" || test {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
