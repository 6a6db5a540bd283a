package fuzz

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// maxTranscript caps the lines a bug's finding carries.
const maxTranscript = 60

// Report turns a campaign into the same report `wirecheck run` writes: a
// failing finding per bug (scenario = the saved reproducer, or the shape),
// and a passing finding per rule that held, with its count.
func (c *Campaign) Report(bugs []*Bug, replay func(file string) string) *report.Report {
	p := c.cfg.Protocol
	rep := &report.Report{
		Tool: "wirecheck", Protocol: p.ID, Target: c.cfg.Target,
		Started: c.started.UTC(), DurationMS: c.now().Sub(c.started).Milliseconds(),
		Rules: p.ReportRules(), Level: c.cfg.Level, Findings: []report.Finding{},
	}
	failed := map[string]bool{}
	for _, b := range bugs {
		scen := "fuzz: after " + b.Shape
		f := report.Finding{
			Rule: b.Rule, Level: b.Level, Verdict: verdict.Fail, Scenario: scen,
			Message:  fmt.Sprintf("%s (%d hit(s); seed %d)", b.First.Message, b.Hits, b.Seed),
			Expected: b.First.Expected, Actual: b.First.Actual, Count: b.Hits,
			Transcript: tail(b.Transcript),
		}
		if b.Unshrunk != "" {
			f.Message += "; " + b.Unshrunk
		}
		if b.File != "" && replay != nil {
			f.Reproduce = replay(b.File)
		}
		failed[b.Rule] = true
		rep.Findings = append(rep.Findings, f)
	}
	passes := c.Passes()
	for _, r := range p.Rules {
		if n := passes[r.ID]; n > 0 && !failed[r.ID] {
			rep.Findings = append(rep.Findings, report.Finding{
				Rule: r.ID, Level: r.Level, Verdict: verdict.Pass, Scenario: "fuzz",
				Count: n, Transcript: []transcript.Entry{},
			})
		}
	}
	st := c.Stats()
	revision := ""
	if p.Versions != nil {
		revision = ", revision " + p.Version
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%d sequences, %d messages in %s (%.0f messages/s), seed %d%s",
		st.Sequences, st.Messages, st.Elapsed.Round(time.Millisecond), float64(st.Messages)/st.Elapsed.Seconds(), c.cfg.Seed, revision),
		st.Parts())
	rep.Tally()
	return rep
}

func tail(es []transcript.Entry) []transcript.Entry {
	if len(es) > maxTranscript {
		es = es[len(es)-maxTranscript:]
	}
	if es == nil {
		es = []transcript.Entry{}
	}
	return es
}
