package fuzz

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/tally"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Report turns a campaign into the same report `wirecheck run` writes,
// through the same tally: a failing finding per bug (scenario "fuzz: after"
// its shape, its transcript the minimal run's), and a passing finding per
// rule that held, with its count.
func (c *Campaign) Report(bugs []*Bug, replay func(file string) string) *report.Report {
	p := c.cfg.Protocol
	t := tally.New(p, nil)
	files := map[string]string{}
	failed := map[string]bool{}
	for _, b := range bugs {
		o := b.First
		o.Verdict, o.Scenario = verdict.Fail, "fuzz: after "+b.Shape
		o.Message = fmt.Sprintf("%s (%d hit(s); seed %d)", b.First.Message, b.Hits, b.Seed)
		if b.Stop != "" {
			o.Message += "; reproducer " + b.Shrinking() + ": " + b.Unshrunk
		}
		t.Add(o, b.Hits, tally.Entries(b.Transcript))
		files[o.Scenario] = b.File
		failed[b.Rule] = true
	}
	passes := c.Passes()
	for _, r := range p.Rules {
		if n := passes[r.ID]; n > 0 && !failed[r.ID] {
			t.Add(verdict.Observation{Rule: r.ID, Verdict: verdict.Pass, Scenario: "fuzz", Seq: -1}, n, nil)
		}
	}
	// A skip with its reason, as run shows a scenario's (a cancellation
	// of a request never received over HTTP, decided at a sequence's
	// end), under the shape it came after.
	for _, sk := range c.Skips() {
		if !failed[sk.Rule] {
			t.Add(verdict.Observation{Rule: sk.Rule, Verdict: verdict.Skip, Scenario: "fuzz: " + sk.Shape, Seq: -1, Message: sk.Why}, sk.Count, nil)
		}
	}
	st := c.Stats()
	revision := ""
	if p.Versions != nil {
		revision = ", revision " + p.Version
	}
	t.Note("%d sequences, %d messages in %s (%.0f messages/s) on %d server process(es), seed %d%s",
		st.Sequences, st.Messages, st.Elapsed.Round(time.Millisecond), float64(st.Messages)/st.Elapsed.Seconds(), st.Starts, c.cfg.Seed, revision)
	t.Note("%s", st.Parts())
	if st.Stopped {
		t.Note("stopped at --max-failures %d: the rest of the budget was not run", c.cfg.MaxFailures)
	}
	if st.Capped {
		t.Note("%s", st.CapNote())
	}
	rep := t.Report(tally.Options{
		Target: c.cfg.Target.String(), Started: c.started, Unobserved: tally.ListUnobserved,
		Reproduce: func(scenario, _ string) string {
			if f := files[scenario]; f != "" && replay != nil {
				return replay(f)
			}
			return ""
		},
	})
	rep.Level = c.cfg.Level
	return rep
}
