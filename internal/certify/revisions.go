package certify

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// revisions runs the suite once in each revision, side by side in one
// pool of lanes, and joins the runs into one report with a column per
// revision. A revision the server answered with another revision of the
// run is a column without findings: the server need not speak every
// revision (basic/lifecycle#version-negotiation: "Otherwise, the server
// MUST respond with another protocol version it supports"), and what the
// process was judged by instead has its own column.
func revisions(ctx context.Context, cfg runner.Config, ids []string, param string) (*report.Report, error) {
	jobs := cfg.Jobs
	if cfg.Target.FixedPort() {
		// One port: one server process at a time, whatever the revision.
		jobs = 1
	}
	starts := cfg.Starts
	if len(cfg.Target.Argv) == 0 {
		// A running server: a start is a connection, not a process.
		starts = jobs
	}
	pool := runner.NewPool(jobs, starts)
	live := newLanes(cfg.Progress)
	reps := make([]*report.Report, len(ids))
	errs := make([]error, len(ids))
	agreed := make([]*agreements, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		c := cfg
		c.Pool = pool
		c.Params = maps.Clone(cfg.Params)
		if c.Params == nil {
			c.Params = map[string]string{}
		}
		c.Params[param] = id
		if cfg.Rerun != nil {
			rr := *cfg.Rerun
			rr.Revision = id
			c.Rerun = &rr
		}
		agreed[i] = &agreements{n: map[string]int{}}
		c.Agreed = agreed[i].add
		c.Halt = func() string { return agreed[i].halt(id, ids) }
		if cfg.Progress != nil {
			c.Progress = live.of(i)
		}
		wg.Go(func() { reps[i], errs[i] = runner.Run(ctx, c) })
	}
	wg.Wait()
	// The runs' sessions, transcripts and tallies are garbage now, their
	// reports made. Collected here, their pages take the merge and the
	// writing of the report; left to the pacer, which lets the heap grow
	// to twice what was live at the last collection, those grew the
	// process's peak resident set by some 3 MiB in a run against
	// server-everything (docs/official-suite.md). One collection of what
	// is still live costs a few milliseconds.
	runtime.GC()
	// Whether a rule is part of a revision depends on the transport too
	// (no Streamable HTTP in MCP 2024-11-05); a transport the protocol
	// lacks has failed every run already.
	proto := cfg.Protocol
	if p, err := proto.ForTransport(cfg.Target.Transport); err == nil {
		proto = p
	}
	cols := make([]report.Revision, len(ids))
	for i, id := range ids {
		cols[i] = report.Revision{ID: id, Negotiated: agreed[i].most(id), Judged: true}
		if n := cols[i].Negotiated; n != "" && n != id && slices.Contains(ids, n) {
			cols[i].Judged = false
		}
		// A rule of other revisions only (or of a transport the revision
		// lacks) is no column's finding: its cell says it is not part of
		// the revision.
		reps[i].Findings = slices.DeleteFunc(reps[i].Findings, func(f report.Finding) bool {
			ru := proto.Rule(f.Rule)
			return f.Verdict == verdict.Skip && ru != nil && !proto.InRevision(ru, id)
		})
		for j := range reps[i].Findings {
			reps[i].Findings[j].Revision = id
		}
		// Notes say which revision they are about.
		for j, n := range reps[i].Notes {
			reps[i].Notes[j] = id + ": " + n
		}
	}
	reps[0].Revisions = cols
	rep, err := report.Merge(reps...)
	if err != nil {
		return reps[0], err
	}
	citeEarliest(rep, proto, ids)
	rep.DurationMS = 0
	for _, r := range reps {
		rep.DurationMS = max(rep.DurationMS, r.DurationMS)
	}
	var unspoken []string
	for _, c := range cols {
		if !c.Judged {
			unspoken = append(unspoken, c.Note())
		}
	}
	if len(unspoken) > 0 {
		rep.Notes = append(rep.Notes, "revisions the server does not speak: "+strings.Join(unspoken, "; "))
	}
	return rep, firstErr(ids, errs)
}

// citeEarliest gives each rule of a report of several revisions the
// citation of the earliest revision of the run it is part of: a row spans
// the columns, and the page of the earliest is no later than any column's
// revision (a rule quoted from 2025-11-25 cites 2025-03-26's page in a row
// whose first verdict is 2025-03-26's).
func citeEarliest(rep *report.Report, proto *spec.Protocol, ids []string) {
	byID := map[string]*spec.Protocol{}
	for _, id := range ids {
		if p, err := proto.ForVersion(id); err == nil {
			byID[id] = p
		}
	}
	for i, ru := range rep.Rules {
		for _, id := range ids {
			p := byID[id]
			if r := proto.Rule(ru.ID); p != nil && r != nil && proto.InRevision(r, id) {
				rep.Rules[i].Source = p.Citation(p.Rule(ru.ID))
				break
			}
		}
	}
}

// firstErr is the first revision's error, naming it; a target that
// never started fails every revision alike.
func firstErr(ids []string, errs []error) error {
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("revision %s: %w", ids[i], err)
		}
	}
	return nil
}

// agreements counts the revisions the server agreed to in one column's run.
type agreements struct {
	mu sync.Mutex
	n  map[string]int
}

func (t *agreements) add(rev string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n[rev]++
}

// haltAfter is how many sessions of a revision must all have been
// answered with other revisions of the run before the revision's lanes
// not yet started are left: a server answers the revision it is asked
// the same way each time, and the column of a revision it never agreed
// to is not judged (its findings dropped), so what those lanes would find
// is spent for nothing (against the Go SDK's example, whose every session
// asking 2026-07-28 fell back to 2025-11-25, about a third of a run's
// wall time; against server-everything a second task of several seconds).
// Three, not one: a server that agrees only now and then still gets a
// judged column (its lanes not run then say why).
const haltAfter = 3

// halt is why the lanes of asked not yet started need not run: the
// server answered haltAfter sessions or more asking it, each with another
// revision of the run (ids), and never agreed to it; "" otherwise.
func (t *agreements) halt(asked string, ids []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[asked] > 0 {
		return ""
	}
	total := 0
	var other []string
	for _, k := range slices.Sorted(maps.Keys(t.n)) {
		if !slices.Contains(ids, k) {
			return ""
		}
		total += t.n[k]
		other = append(other, k)
	}
	if total < haltAfter {
		return ""
	}
	return fmt.Sprintf("the server answered each of the first %d sessions asking %s with %s, a revision of this run whose column judges it; this column is not judged", total, asked, strings.Join(other, " or "))
}

// most is asked when the server agreed to it at least once (a server that
// speaks it, if not to every process), else the revision it agreed to
// most often, else "".
func (t *agreements) most(asked string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[asked] > 0 {
		return asked
	}
	best := ""
	for _, k := range slices.Sorted(maps.Keys(t.n)) {
		if t.n[k] > t.n[best] {
			best = k
		}
	}
	return best
}

// lanes is one progress line for the runs of several revisions: lane
// numbers made distinct, the lanes planned summed.
type lanes struct {
	mu sync.Mutex
	p  runner.Progress
}

func newLanes(p runner.Progress) *lanes { return &lanes{p: p} }

// of is the Progress of the i-th revision's run.
func (l *lanes) of(i int) runner.Progress { return &laneOffset{l: l, base: i << 16} }

type laneOffset struct {
	l    *lanes
	base int
}

func (o *laneOffset) Planned(n int) { o.l.do(func(p runner.Progress) { p.Planned(n) }) }
func (o *laneOffset) Scenario(lane int, name string) {
	o.l.do(func(p runner.Progress) { p.Scenario(o.base+lane, name) })
}
func (o *laneOffset) Observed(ob verdict.Observation) {
	o.l.do(func(p runner.Progress) { p.Observed(ob) })
}
func (o *laneOffset) LaneDone(lane int) {
	o.l.do(func(p runner.Progress) { p.LaneDone(o.base + lane) })
}

func (l *lanes) do(f func(runner.Progress)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(l.p)
}
