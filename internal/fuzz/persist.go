package fuzz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Persistent fuzzing, as AFL's persistent mode and libFuzzer do it: a
// process serves sequence after sequence while it stays healthy, since
// starting one costs far more than the messages of a sequence. It is
// replaced after a failure, a hang or closed stdin, every FreshEvery
// sequences, and for every rerun while a failure is shrunk. A failure on
// a process that served sequences before is confirmed on fresh ones
// (confirm) before it is reported.

// lane is one of the campaign's sessions side by side (up to Jobs): it
// runs the sequences it is handed, one at a time, on the process it keeps
// while that is healthy. The shrinking lane takes a fresh process for
// every sequence (rapid's reruns must not depend on what ran before them).
type lane struct {
	kept   *proc
	shrink bool
	// cand is the failure its last sequence found, to be decided in
	// index order once every lower sequence has ended (see batch).
	cand *candidate
	// ran is set once its last sequence was let run (counted).
	ran bool
}

// candidate is a failure a sequence found while generating: not yet
// confirmed nor shrunk, for a lower sequence still running may fail too,
// and the campaign reports the lowest whatever the lanes' interleaving.
type candidate struct {
	index int
	obs   verdict.Observation
	run   *failure
	// units ran on the process, the sequence's from from on, its setup
	// the first setup.
	units       []unit
	setup, from int
}

// acquire returns the process the lane's next sequence runs on: the kept
// one while it is healthy and has served fewer than FreshEvery sequences,
// a fresh one otherwise, and always a fresh one on the shrinking lane.
// It returns nil when no process could be started, and errStop with a
// process whose setup did not go through.
func (c *Campaign) acquire(ln *lane) (*proc, error) {
	pr := ln.kept
	ln.kept = nil
	if pr != nil {
		if !ln.shrink && pr.sequences < c.cfg.FreshEvery && !pr.s.Ended() {
			return pr, nil
		}
		c.retire(pr)
	}
	return c.fresh()
}

// spares is how many processes start ahead of need. One is not enough
// against the reference server while one sequence in closeOdds closes
// stdin: a process ended so serves some 12 sequences, 60 to 100 ms of fuzzing, about what a
// start takes on a loaded machine; with two, each has two lifetimes to
// start in. BenchmarkFuzz/reference, 500 sequences, three runs each: a
// sequence waited 2.1 to 2.3 ms for its process on average with one
// spare, 1.0 to 1.6 ms with two. Once one in rareCloseOdds closes, a
// process serves some 60 sequences or more and one spare has that long
// to start: rareSpares keeps one, for every spare still waiting when
// the campaign ends was started for nothing (a start is 50 to 100 ms of
// the server's CPU, which a loaded machine takes from the fuzzing).
//
// While a failure is shrunk every rerun takes a fresh process, one after
// another, each a few milliseconds of messages: there the start is all
// the wait, and shrinkSpares start side by side, one per core (at least
// spares, at most maxShrinkSpares: each is a server's memory, and on a
// large machine more would only hold processes nobody needs when the
// shrink ends). exit-non-ascii at seed 42, 50 sequences, --shrink-time
// 8s, 2 cores: 76 s with one spare, 59 s with two (then CPU-bound on
// starts).
const (
	spares          = 2
	rareSpares      = 1
	maxShrinkSpares = 4
)

var shrinkSpares = min(max(spares, runtime.NumCPU()), maxShrinkSpares)

// fresh returns a fresh process (the oldest spare, waited for if it is
// still starting) and starts spares up to their number again.
func (c *Campaign) fresh() (*proc, error) {
	pr, err := c.spares.Take()
	if pr == nil {
		return nil, err
	}
	c.starts.Add(1)
	c.track(pr)
	c.topUp()
	return pr, err
}

// track notes a process in use, which an interrupt or the end of the
// budget closes (ended: closed at once, it came too late).
func (c *Campaign) track(pr *proc) {
	c.mu.Lock()
	ended := c.ended
	c.inUse[pr] = struct{}{}
	c.mu.Unlock()
	if ended {
		pr.p.Transport().Close()
	}
}

// endAll closes every process in use, once the campaign's ctx is done:
// that ends any wait in the sequences under way.
//
// The transports are closed after c.mu is released: a close waits for
// the process's reader, which may itself be waiting for c.mu to tally a
// frame (Campaign.tally), and holding it here deadlocked --duration.
func (c *Campaign) endAll() {
	c.mu.Lock()
	c.ended = true
	prs := make([]*proc, 0, len(c.inUse))
	for pr := range c.inUse {
		prs = append(prs, pr)
	}
	c.mu.Unlock()
	for _, pr := range prs {
		pr.p.Transport().Close()
	}
}

// topUp starts spares until there are as many as the batch wants.
func (c *Campaign) topUp() {
	c.mu.Lock()
	want := spares
	switch {
	case c.last != nil:
		want = shrinkSpares
	case c.odds == rareCloseOdds:
		want = rareSpares
	}
	c.mu.Unlock()
	c.spares.TopUp(want)
}

// release keeps a healthy process for the lane's next sequence and
// closes any other.
func (c *Campaign) release(ln *lane, pr *proc, healthy bool) {
	if healthy && !ln.shrink && c.ctx.Err() == nil {
		ln.kept = pr
		return
	}
	c.retire(pr)
}

// retire closes a process no sequence will use again without making the
// next sequence wait for it: a healthy one is sent SIGTERM and waited
// for (tens of milliseconds on a loaded machine, each FreshEvery
// sequences), one that ignores it is killed after the transport's grace.
// Run waits for every retired process before it returns, so none
// outlives the campaign.
func (c *Campaign) retire(pr *proc) {
	c.closing.Add(1)
	go func() {
		defer c.closing.Done()
		c.close(pr)
	}()
}

// retireLanes retires the processes the lanes keep.
func (c *Campaign) retireLanes() {
	for _, ln := range c.lanes {
		if ln.kept != nil {
			c.retire(ln.kept)
			ln.kept = nil
		}
	}
}

func (c *Campaign) close(pr *proc) {
	pr.s.Close()
	c.mu.Lock()
	delete(c.inUse, pr)
	c.mu.Unlock()
	c.messages.Add(int64(pr.sent))
	pr.sent = 0
	if c.cfg.Recorded != nil {
		c.cfg.Recorded(pr.rec.Slice(0, -1))
	}
}

// confirm runs a failure found on a kept process again on fresh ones:
// the sequence that showed it alone, then the process's whole history.
// It returns the run that showed the failure again (nil when none did:
// not reported) and whether that needed the history; such a bug is
// recorded here, its history shrunk to the actions it needs.
func (c *Campaign) confirm(cd *candidate) (*failure, bool) {
	f := &cd.obs
	if run := c.rerun(cd.units[cd.from:], f.Rule); run != nil {
		return run, false
	}
	run := c.rerun(cd.units[cd.setup:], f.Rule)
	if run == nil {
		return nil, false
	}
	began, found := c.now(), len(run.steps)
	until, byDuration := began.Add(c.cfg.ShrinkTime), false
	if !c.end.IsZero() && c.end.Before(until) {
		until, byDuration = c.end, true
	}
	cut := false
	shrinkUnits(cd.units[cd.setup:], func(us []unit) bool {
		if r := c.rerun(us, f.Rule); r != nil {
			run = r
			return true
		}
		return false
	}, func() bool {
		cut = cut || c.ctx.Err() != nil || !c.now().Before(until)
		return cut
	})
	took := c.now().Sub(began)
	why, stop := "", "budget spent"
	switch {
	case cut && c.ctx.Err() != nil && !errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		why, stop = "shrinking the history stopped by the interrupt: it may not be minimal", "interrupted"
	case cut && byDuration:
		why = fmt.Sprintf("shrinking the history stopped after %s, when the --duration budget (%s) ran out: it may not be minimal",
			took.Round(time.Millisecond), c.cfg.Duration)
	case cut:
		why = fmt.Sprintf("shrinking the history stopped at --shrink-time %s: it may not be minimal", c.cfg.ShrinkTime)
	default:
		stop = ""
	}
	run.history = true
	c.mu.Lock()
	c.shrinking += took
	c.mu.Unlock()
	c.addBug(run, took, found, stop, why)
	return run, true
}

// rerun runs units on a fresh process after its setup, as they ran
// before, and returns the run when it broke rule again. A unit that
// refers to the answer of a send neither the setup nor an earlier unit
// has (the sequence of a kept process, rerun alone, about a task an
// earlier one made) is left out (resolvable); the answers the units
// refer to are held.
func (c *Campaign) rerun(us []unit, rule string) *failure {
	if c.ctx.Err() != nil {
		return nil
	}
	pr, err := c.fresh()
	if pr == nil {
		return nil
	}
	defer c.close(pr)
	us = resolvable(us, sendNames(pr.units[:pr.setup]))
	for _, u := range us {
		for _, n := range referred(u) {
			pr.hold(n)
		}
	}
	for i := 0; err == nil && i < len(us) && pr.failed() == nil; i++ {
		pr.setShape(us[i].shape)
		err = pr.do(us[i].steps...)
	}
	pr.settle(err)
	if f := pr.failed(); f != nil && f.Rule == rule {
		return pr.record()
	}
	return nil
}

// shrinkUnits drops what a failure does not need from a history (ddmin's
// complement step: chunks of halving size, each dropped when the rest
// still fails) until no single unit can go or spent says to stop.
func shrinkUnits(us []unit, fails func([]unit) bool, spent func() bool) []unit {
	n := 2
	for len(us) > 0 {
		n = min(n, len(us))
		chunk := (len(us) + n - 1) / n
		dropped := false
		for from := 0; from < len(us); from += chunk {
			if spent() {
				return us
			}
			// A unit whose producer is dropped goes with it.
			rest := resolvable(append(append([]unit{}, us[:from]...), us[min(from+chunk, len(us)):]...), nil)
			if fails(rest) {
				us, dropped = rest, true
				n = max(n-1, 2)
				break
			}
		}
		if !dropped {
			if n == len(us) {
				break
			}
			n = min(2*n, len(us))
		}
	}
	return us
}
