package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Merge combines the reports of several runs of one protocol (shards of a
// CI job, one run per transport) into one: findings concatenated in the
// order given, rules unioned by ID (first definition wins), notes kept,
// the summary re-tallied, durations summed and the earliest start kept.
//
// When the runs disagree on target, tool version or level, the merged
// report says so in a note rather than silently picking one. The merged
// level is the strictest one the runs were judged at (the lowest rank), so
// a merge never lets through what one of its runs would have failed.
//
// The result shares transcript slices with the inputs; treat both as
// read-only afterwards.
func Merge(reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("report: merge: no reports given")
	}
	for i, r := range reports {
		if r == nil {
			return nil, fmt.Errorf("report: merge: report %d is nil", i+1)
		}
	}
	first := reports[0]
	out := &Report{
		Tool:     first.Tool,
		Version:  first.Version,
		Protocol: first.Protocol,
		Target:   first.Target,
		Findings: []Finding{},
	}
	// One array for every finding, sized once: a finding is some 240
	// bytes, a run of every revision merges some 1,900 of them.
	n := 0
	for _, r := range reports {
		n += len(r.Findings)
	}
	out.Findings = make([]Finding, 0, n)
	seenRule := make(map[string]bool, len(first.Rules))
	var targets, versions, levels []string
	for i, r := range reports {
		if r.Protocol != first.Protocol {
			return nil, fmt.Errorf("report: merge: report %d is for protocol %q, report 1 for %q; only reports of one protocol can be merged",
				i+1, r.Protocol, first.Protocol)
		}
		if out.Tool == "" {
			out.Tool = r.Tool
		}
		if out.Version == "" {
			out.Version = r.Version
		}
		targets = appendNew(targets, r.Target)
		versions = appendNew(versions, r.Version)
		if r.Level != "" {
			levels = appendNew(levels, string(r.Level))
			if out.Level == "" || r.Level.Rank() < out.Level.Rank() {
				out.Level = r.Level
			}
		}
		if !r.Started.IsZero() && (out.Started.IsZero() || r.Started.Before(out.Started)) {
			out.Started = r.Started
		}
		out.DurationMS += r.DurationMS
		out.Findings = append(out.Findings, r.Findings...)
		for _, ru := range r.Rules {
			if !seenRule[ru.ID] {
				seenRule[ru.ID] = true
				out.Rules = append(out.Rules, ru)
			}
		}
		for _, n := range r.Notes {
			out.Notes = appendNew(out.Notes, n)
		}
		out.Revisions = mergeRevisions(out.Revisions, r.Revisions)
		mergeCertificate(out, r)
		if r.Interrupted && !out.Interrupted {
			// One unfinished part leaves the whole unfinished.
			out.Interrupted, out.Signal = true, r.Signal
		}
		if out.Baseline == "" {
			out.Baseline = r.Baseline
		}
		if out.NotStarted == nil {
			// A part that never began leaves its scenarios not run in the
			// whole: it says why.
			out.NotStarted = r.NotStarted
		}
	}
	if len(targets) > 1 {
		out.Target = strings.Join(targets, " | ")
		out.Notes = append(out.Notes, fmt.Sprintf("merged from %d reports against different targets", len(reports)))
	}
	if len(versions) > 1 {
		out.Notes = append(out.Notes, "merged from reports of different tool versions: "+strings.Join(versions, ", "))
	}
	if len(levels) > 1 {
		out.Notes = append(out.Notes, fmt.Sprintf("merged from runs judged at different levels (%s); judged at %s, the strictest",
			strings.Join(levels, ", "), out.Level))
	}
	out.Findings = dropUnobserved(dropUnjudged(out.Findings, out.Revisions))
	out.Tally()
	return out, nil
}

// dropUnobserved keeps one "not observed" skip per rule (scenario "-":
// no scenario of that run observed it), and none for a rule another run
// did observe: shards of one run each skip the rules of the others'
// lanes, and their merge must read as the whole run does. It filters fs
// in place (Merge's own array).
func dropUnobserved(fs []Finding) []Finding {
	unobserved := func(f *Finding) bool { return f.Scenario == "-" && f.Verdict == verdict.Skip }
	// drop is, for each rule and revision a skip says no scenario
	// observed, whether its skips go: it was observed, or one is kept.
	var drop map[[2]string]bool
	for i := range fs {
		if unobserved(&fs[i]) {
			if drop == nil {
				drop = map[[2]string]bool{}
			}
			drop[[2]string{fs[i].Revision, fs[i].Rule}] = false
		}
	}
	if drop == nil {
		return fs
	}
	for i := range fs {
		if f := &fs[i]; f.Scenario != "-" {
			if _, ok := drop[[2]string{f.Revision, f.Rule}]; ok {
				drop[[2]string{f.Revision, f.Rule}] = true
			}
		}
	}
	n := 0
	for i := range fs {
		if f := &fs[i]; unobserved(f) {
			k := [2]string{f.Revision, f.Rule}
			if drop[k] {
				continue
			}
			drop[k] = true
		}
		if n != i {
			fs[n] = fs[i]
		}
		n++
	}
	clear(fs[n:])
	return fs[:n]
}

// mergeRevisions adds the columns of another report (a shard of a run
// over several revisions). A column is judged when some shard saw the
// server agree to its revision, or no shard saw any answer; a shard that
// saw another revision negotiated, and none that saw this one, leaves it
// unjudged (dropUnjudged then takes out what other shards found in it).
func mergeRevisions(into, more []Revision) []Revision {
	for _, m := range more {
		i := slices.IndexFunc(into, func(r Revision) bool { return r.ID == m.ID })
		switch {
		case i < 0:
			into = append(into, m)
		case m.Negotiated == m.ID || into[i].Negotiated == "":
			into[i].Negotiated, into[i].Judged = m.Negotiated, m.Judged
		}
	}
	return into
}

// dropUnjudged takes out the findings of the columns that judge nothing.
func dropUnjudged(fs []Finding, revs []Revision) []Finding {
	unjudged := map[string]bool{}
	for _, r := range revs {
		if !r.Judged {
			unjudged[r.ID] = true
		}
	}
	if len(unjudged) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return unjudged[f.Revision] })
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// ReadFiles reads the JSON reports named ("-", or none named, is stdin),
// merged into one when there are several or merge is set. A report that says no level is
// judged at must. Its errors name the file at fault ("stdin" for -).
func ReadFiles(names []string, stdin io.Reader, merge bool) (*Report, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	var reps []*Report
	for _, name := range names {
		in, label := io.NopCloser(stdin), "stdin"
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			in, label = f, name
		}
		rep, err := ReadJSON(in)
		if in.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		reps = append(reps, rep)
	}
	rep := reps[0]
	if len(reps) > 1 || merge {
		var err error
		if rep, err = Merge(reps...); err != nil {
			return nil, err
		}
	}
	if rep.Level == "" {
		rep.Level = verdict.Must
	}
	return rep, nil
}
