package fuzz

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// Sequences run side by side on up to Jobs lanes, and a seed still finds
// one failure, shrunk and saved the same way, whatever Jobs is and however
// the lanes interleave:
//
//   - sequence i of a batch is drawn from seedOf(batch seed, i) alone (one
//     rapid check of its own), never from what ran before it;
//   - lanes take sequences in order; a failure is only a candidate, and
//     once one is found no sequence after it starts, the ones before it
//     still running are waited for, and the candidates are decided from
//     the lowest: confirmed on a fresh process (when it ran on a kept
//     one), then shrunk by rapid from the same seed, alone on the
//     shrinking lane;
//   - a confirmed failure ends the batch, as rapid's first failure did
//     when sequences ran one after the other; one a fresh process does
//     not show again is counted (Stats.Unconfirmed) and the batch goes on
//     from where the lanes stopped.
//
// What is not the seed's alone is a failure that needs the history of its
// process: which sequences a process served depends on the lanes.

// batch runs up to n sequences of the current batch on the lanes, and
// returns how many of them count against Runs: up to the failure that
// ended it, or as many as ran.
func (c *Campaign) batch(n int) int {
	next := 0
	for {
		var (
			mu    sync.Mutex
			stop  bool
			cands []*candidate
			// ran are the sequences that ran (were not refused).
			ran []int
			wg  sync.WaitGroup
		)
		for _, ln := range c.lanes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				free, ok := c.pool.Lane(c.ctx)
				if !ok {
					return
				}
				defer free()
				for {
					mu.Lock()
					if stop || next >= n || c.halted() {
						mu.Unlock()
						return
					}
					i := next
					next++
					mu.Unlock()
					cd := c.sequence(ln, i)
					mu.Lock()
					if ln.ran {
						ran = append(ran, i)
					}
					if cd != nil {
						cands, stop = append(cands, cd), true
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		slices.SortFunc(cands, func(a, b *candidate) int { return a.index - b.index })
		for _, cd := range cands {
			if c.decide(cd) {
				// The sequences after it that were under way when it
				// failed ran (Stats.Sequences counts them) but do not
				// count against Runs: with one lane they would not
				// have run.
				for _, i := range ran {
					if i > cd.index {
						c.generated.Add(-1)
					}
				}
				return cd.index + 1
			}
		}
		if len(cands) == 0 || next >= n || c.halted() {
			return next
		}
	}
}

// halted reports whether no sequence may start: an interrupt, the end of
// the budget, a server that cannot start, MaxFailures reached.
func (c *Campaign) halted() bool {
	return c.ctx.Err() != nil || c.startFailure() != nil || c.spent() || c.enough()
}

// sequence runs sequence i of the batch on a lane and returns its
// failure, if it found one that is not a known bug.
func (c *Campaign) sequence(ln *lane, i int) *candidate {
	ln.cand, ln.ran = nil, false
	check(seedOf(c.seed, i), func(t *rapid.T) { c.run(t, ln, i) })
	return ln.cand
}

// decide confirms a candidate on a fresh process when it ran on a kept
// one, and shrinks it; false when a fresh process did not show it again.
func (c *Campaign) decide(cd *candidate) bool {
	if c.ctx.Err() != nil {
		return false
	}
	run := cd.run
	if cd.from > 0 {
		var history bool
		if run, history = c.confirm(cd); run == nil {
			c.unconfirmed.Add(1)
			return false
		}
		if history {
			// confirm shrank the history and recorded the bug.
			return true
		}
	}
	// rapid shrinks from the sequence's own seed, its first run the same
	// sequence on a fresh process; should that one pass, the failure as
	// found is the one saved (Run records c.last).
	c.recordFailure(run)
	check(seedOf(c.seed, cd.index), func(t *rapid.T) { c.run(t, c.shrinker, cd.index) })
	return true
}

// seedOf is the seed sequence i of a batch is drawn from: rapid's own
// chain of seeds within one check (seed, seed+1, seed+1+2, …), so a batch
// draws the sequences it drew when rapid ran them one after the other.
func seedOf(batch uint64, i int) uint64 {
	return batch + uint64(i)*uint64(i+1)/2
}

// rapidFlags guards rapid's seed and checks flags from the moment they are
// set until the check that reads them has begun its first run: lanes run
// checks of different seeds side by side.
var rapidFlags sync.Mutex

// check runs prop once, from seed, as a rapid check, shrinking what it
// fails. In a goroutine of its own: the property ends it with Goexit when
// the sequence must not run (run).
func check(seed uint64, prop func(*rapid.T)) {
	rapidFlags.Lock()
	var once sync.Once
	unlock := func() { once.Do(rapidFlags.Unlock) }
	checks := "1"
	if testing.Short() {
		// rapid runs a fifth of its checks under go test -short: 1/5
		// would be none.
		checks = "5"
	}
	setFlag("rapid.checks", checks)
	setFlag("rapid.seed", strconv.FormatUint(seed, 10))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unlock()
		rapid.Check(&quietTB{}, func(t *rapid.T) {
			// rapid has read its flags by its first run.
			unlock()
			prop(t)
		})
	}()
	<-done
}
