// Package memlimit sets the soft limit of the Go runtime's memory for a
// wirecheck process, and its collector's pace. The caps of the
// transports, the peers and the transcript bound what a run keeps (see
// the README's "A hostile server never beats the harness"); this bounds
// the garbage on top.
//
// A run keeps little live: some 12 MiB at the busiest moment of `run
// --revision all` against server-everything (135 sessions, five
// revisions' schemas), 3 MiB in a fuzz campaign. The default pace (GOGC
// 100) lets the heap grow to twice what is live before collecting, and
// the runtime returns freed pages to the system slowly: that garbage was
// a quarter of the peak resident set of that run (docs/official-suite.md).
// So the limit is low, Floor, and follows the live heap up to twice it
// (Follow), so a run that does keep more is paced much as by GOGC 100
// rather than collected without end at Floor, up to Ceiling, the
// backstop the limit always was. Under the limit the pace is GOGC 200: while little is live
// (the start, the report) the collector runs half as often, and the limit,
// not the pace, sets the peak (past Floor the pace is GOGC 100 again:
// follow). Measured against server-everything: 20%
// fewer collections and some 3 MiB less peak RSS than GOGC 100 under a
// 64 MiB limit.
package memlimit

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// Floor is the soft limit Set sets at first and never goes below;
// Ceiling the most it follows the live heap up to. Past Ceiling the limit
// is the backstop it always was: under a flood, or while a frame near
// --max-frame is read, the collector runs more often rather than let the
// heap grow with what the caps let in (the README's table of caps, and
// cmd/wirecheck's hostile servers, which bound the peak RSS).
const (
	Floor   = 32 << 20
	Ceiling = 64 << 20
)

// Percent is the collector's pace Set sets (GOGC).
const Percent = 200

// Follow is the limit for a live heap of live bytes: Floor, or twice the
// live heap when that is more, up to Ceiling. The limit counts the
// runtime's own memory too (stacks, the collector's metadata, freed
// spans not yet returned: some 8 MiB in a run against
// server-everything), so twice the live heap leaves the collector less
// room than GOGC 100 would; but the live heap a collection reports
// counts what was allocated while it marked, which on a loaded machine
// is megabytes of garbage, and a limit that followed it closer rose past
// the peak it is there to cap.
func Follow(live uint64) int64 {
	return min(int64(Ceiling), max(int64(Floor), 2*int64(live)))
}

// Set sets the limit and the pace unless the user set GOMEMLIMIT or GOGC
// (theirs win, each on its own) or the process is a test binary (which is
// not wirecheck), and says whether it set the limit. While it is set, a
// goroutine raises it as the live heap grows (Follow).
func Set() bool {
	return set(os.Getenv("GOMEMLIMIT"), os.Getenv("GOGC"), testing.Testing())
}

func set(userLimit, userGC string, test bool) bool {
	if test {
		return false
	}
	if userGC == "" {
		debug.SetGCPercent(Percent)
	}
	if userLimit != "" {
		return false
	}
	debug.SetMemoryLimit(Floor)
	go follow(userGC == "")
	return true
}

// follow raises the limit to Follow of the live heap the last collection
// found, every tenth of a second: the live heap changes only as a
// collection ends, and a limit a little late is one collection more.
// Once the limit leaves Floor the pace, when Set chose it (pace), goes
// back to GOGC 100: a live heap that large is a flood or a huge frame
// more often than a run, and the caps were measured at that pace.
func follow(pace bool) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	limit := int64(Floor)
	for range time.Tick(100 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if l := Follow(sample[0].Value.Uint64()); l > limit {
			if pace && limit == Floor {
				debug.SetGCPercent(100)
			}
			limit = l
			debug.SetMemoryLimit(limit)
		}
	}
}
