// Package tally folds observations into findings: one finding per rule per
// scenario, a finding per distinct failure message with its count, the
// transcript excerpt that shows it (at most Lines lines), and the rules no
// scenario observed. `wirecheck run`, `replay` and `fuzz` feed the same
// tally, so their reports read the same.
package tally

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Lines caps the transcript lines one finding carries.
const Lines = 60

// maxDistinct bounds the messages kept per rule and scenario; later new
// ones are counted with the last (a server that fails every frame with a
// different id should not make thousands of findings).
const maxDistinct = 20

// Source is where an observation's transcript lies: Excerpt returns the
// lines of the scenario around transcript line seq (-1: none in
// particular), cut to Lines with Window. It is called when the report is
// made, so a scenario's later lines are in it.
type Source interface {
	Excerpt(scenario string, seq int) []transcript.Entry
}

// Tally is the findings of one run or campaign. It is safe for concurrent
// use.
type Tally struct {
	proto *spec.Protocol
	rules []string

	mu    sync.Mutex
	aggs  map[key]*agg
	n     int
	notes []string
}

type key struct{ scenario, rule string }

type agg struct {
	// counts and first are indexed by verdicts (the order of verdict.Decisive):
	// arrays rather than maps, for a tally of every revision holds some
	// 1,800 of them, and a map of a handful of entries takes a group of
	// eight slots.
	counts [len(verdict.Decisive)]int
	first  [len(verdict.Decisive)]*verdict.Observation
	// distinct keeps each different failure (and error) message with its
	// count, in order of first appearance: a second, different failure of
	// the rule in the scenario must not hide behind the first's count.
	distinct []*distinct
	n        int
}

// distinct is one failure message of a rule in a scenario and how often
// it was seen.
type distinct struct {
	evidence
	count int
	// frames are the transcript lines its observations judged, the first
	// maxFrames of them.
	frames []int
}

// maxFrames bounds the frames a finding marks.
const maxFrames = 20

// evidence is an observation and the transcript that holds it.
type evidence struct {
	verdict.Observation
	src Source
}

// New returns an empty tally of a protocol's rules; rules selects rules by
// glob (path.Match syntax), empty selects all. A rule that does not hold
// on the transport p was resolved for (spec.Protocol.ForTransport) is
// never judged: what scenarios observe of it is dropped, and a full run's
// report lists it skipped with the reason ("stdio only").
func New(p *spec.Protocol, rules []string) *Tally {
	return &Tally{proto: p, rules: rules, aggs: map[key]*agg{}}
}

// Selected reports whether the tally counts a rule.
func (t *Tally) Selected(rule string) bool { return spec.Selects(t.rules, rule) }

// Observe counts one observation; o.Scenario must be set. src holds its
// transcript (nil: none).
func (t *Tally) Observe(o verdict.Observation, src Source) { t.Add(o, 1, src) }

// Add counts an observation n times, as if observed n times.
func (t *Tally) Add(o verdict.Observation, n int, src Source) {
	if n <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := key{o.Scenario, o.Rule}
	a := t.aggs[k]
	if a == nil {
		// Whether the rule is judged at all, asked once per rule and
		// scenario rather than at each of its observations: only a
		// judged rule has an agg.
		if !t.Selected(o.Rule) || t.offTransport(o.Rule) != "" {
			return
		}
		a = &agg{n: t.n}
		t.n++
		t.aggs[k] = a
	}
	i := o.Verdict.Rank()
	if i == len(verdict.Decisive) {
		return
	}
	a.counts[i] += n
	if a.first[i] == nil {
		// A pass or skip carries no excerpt, and a failure's is its
		// distinct's: the first holds no source, which would keep its
		// transcript alive (see Settle). A copy of its own, made here
		// only: &o would move every observation to the heap, the
		// thousands of passes that are not a first as well.
		first := o
		a.first[i] = &first
	}
	if o.Verdict == verdict.Fail || o.Verdict == verdict.Error {
		a.addDistinct(evidence{o, src}, n)
	}
}

func (a *agg) addDistinct(e evidence, n int) {
	var last *distinct
	for _, d := range a.distinct {
		if d.Verdict == e.Verdict {
			if d.Message == e.Message {
				d.count += n
				d.addFrame(e.Seq)
				return
			}
			last = d
		}
	}
	if last != nil && len(a.distinct) >= maxDistinct {
		last.count += n
		return
	}
	d := &distinct{evidence: e, count: n}
	d.addFrame(e.Seq)
	a.distinct = append(a.distinct, d)
}

func (d *distinct) addFrame(seq int) {
	if seq >= 0 && len(d.frames) < maxFrames && !slices.Contains(d.frames, seq) {
		d.frames = append(d.frames, seq)
	}
}

// offTransport is why a rule is not judged on the run's transport, ""
// when it is: it holds on another transport, or the run's transport is
// not one of the revision's (spec.Protocol.NotInRevision).
func (t *Tally) offTransport(rule string) string {
	r := t.proto.Rule(rule)
	if r == nil {
		return ""
	}
	if !r.AppliesOn(t.proto.Transport) {
		return r.OnlyOn() + "; this run is over " + spec.TransportName(t.proto.Transport)
	}
	return t.proto.NotInRevision(r)
}

// Settle cuts now the excerpts Report would cut from src, for every
// failure and error it holds, and forgets src, so its transcript can go
// before the report is made. For a source that records nothing more
// (a runner's lane whose scenarios have ended): its excerpts are then
// what Report would cut. A run of every revision holds some 135 lanes,
// whose transcripts, kept to the end for the few that failed, were the
// largest part of its live heap.
func (t *Tally) Settle(src Source) {
	if src == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, a := range t.aggs {
		for _, d := range a.distinct {
			if d.src == src {
				d.src = settled(excerpt(src, k.scenario, d.Seq))
			}
		}
	}
}

// settled is an excerpt cut already.
type settled []transcript.Entry

func (s settled) Excerpt(string, int) []transcript.Entry { return s }

// Seen reports whether anything observed rule in scenario.
func (t *Tally) Seen(scenario, rule string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.aggs[key{scenario, rule}] != nil
}

// Note adds a line about the whole run to the report.
func (t *Tally) Note(format string, args ...any) {
	t.mu.Lock()
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}

// Unobserved says what a report does with a rule nothing observed.
type Unobserved int

const (
	// SkipUnobserved lists the rule with a skip finding: "no scenario of
	// this run observed the rule" (a full run).
	SkipUnobserved Unobserved = iota
	// DropUnobserved leaves the rule out of the report (a run of some
	// scenarios only: --scenario, replay).
	DropUnobserved
	// ListUnobserved lists the rule without a finding (a fuzz campaign,
	// which observes what its draws happen to reach).
	ListUnobserved
)

// Options shape the report.
type Options struct {
	// Target describes the server for the report.
	Target string
	// Started is when the run began; the report's duration runs to now.
	Started time.Time
	// Order ranks scenarios by their place in the suite, so the report
	// reads the same however the runs interleaved; "startup" comes first,
	// unranked scenarios last, each group in order of first observation.
	Order map[string]int
	// Reproduce, when set, returns the command line that reproduces a
	// failing finding of a rule in a scenario.
	Reproduce  func(scenario, rule string) string
	Unobserved Unobserved
}

// Report makes the report: per rule and scenario, the decisive verdict
// (fail, then error, pass, skip) with its count; failures and errors as a
// finding per distinct message, each with its transcript excerpt.
func (t *Tally) Report(o Options) *report.Report {
	p := t.proto
	rep := &report.Report{
		Tool: "wirecheck", Protocol: p.ID, Target: o.Target,
		Started: o.Started.UTC(), DurationMS: time.Since(o.Started).Milliseconds(),
		Findings: []report.Finding{},
	}
	// ReportRules is a fresh slice: the rules not selected are taken out
	// of it in place.
	rep.Rules = p.ReportRules()
	if len(t.rules) > 0 {
		rep.Rules = slices.DeleteFunc(rep.Rules, func(ru verdict.Rule) bool { return !t.Selected(ru.ID) })
	}
	if len(rep.Rules) == 0 {
		rep.Rules = nil
	}
	t.mu.Lock()
	rank := func(k key) int {
		if k.scenario == "startup" {
			return -1
		}
		if i, ok := o.Order[k.scenario]; ok {
			return i
		}
		return len(o.Order)
	}
	// Each key's rank and verdict once, rather than in every comparison
	// of the sort; and the findings counted first, so that they are
	// appended into one array (a finding is some 240 bytes, a revision's
	// report some 400 of them).
	type row struct {
		key
		a    *agg
		rank int
		v    verdict.Verdict
	}
	rows := make([]row, 0, len(t.aggs))
	covered := make(map[string]bool, len(rep.Rules))
	n := 0
	for k, a := range t.aggs {
		v := verdictOf(a.counts)
		rows = append(rows, row{k, a, rank(k), v})
		covered[k.rule] = true
		if v != verdict.Fail && v != verdict.Error {
			n++
			continue
		}
		for _, d := range a.distinct {
			if d.Verdict == v {
				n++
			}
		}
	}
	if o.Unobserved == SkipUnobserved {
		for _, ru := range rep.Rules {
			if !covered[ru.ID] {
				n++
			}
		}
	}
	slices.SortFunc(rows, func(x, y row) int {
		if x.rank != y.rank {
			return cmp.Compare(x.rank, y.rank)
		}
		return cmp.Compare(x.a.n, y.a.n)
	})
	rep.Findings = make([]report.Finding, 0, n)
	for _, r := range rows {
		k, a, v := r.key, r.a, r.v
		level := verdict.Must
		if rule := p.Rule(k.rule); rule != nil {
			level = rule.Level
		}
		if v != verdict.Fail && v != verdict.Error {
			var e verdict.Observation
			if f := a.first[v.Rank()]; f != nil {
				e = *f
			}
			rep.Findings = append(rep.Findings, report.Finding{
				Rule: k.rule, Level: level, Verdict: v, Scenario: k.scenario,
				Message: e.Message, Expected: e.Expected, Actual: e.Actual,
				Count: a.counts[v.Rank()], Transcript: []transcript.Entry{},
			})
			continue
		}
		// A finding per distinct failure message, each with its count;
		// of a rule judged once per stream, out of how many.
		unit := counted(p, k.rule)
		cause := ""
		if v == verdict.Fail {
			cause = t.causeOf(k)
		}
		for _, d := range a.distinct {
			if d.Verdict != v {
				continue
			}
			msg := d.Message
			if unit != "" && v == verdict.Fail {
				msg = fmt.Sprintf("%d of %d %s %s", d.count, a.counts[verdict.Fail.Rank()]+a.counts[verdict.Pass.Rank()], unit, msg)
			}
			f := report.Finding{
				Rule: k.rule, Level: level, Verdict: v, Scenario: k.scenario,
				Message: msg, Expected: d.Expected, Actual: d.Actual,
				Count: d.count, Transcript: excerpt(d.src, k.scenario, d.Seq),
				Cause:  cause,
				Frames: d.frames, Unanswered: d.Unanswered,
			}
			if o.Reproduce != nil {
				f.Reproduce = o.Reproduce(k.scenario, k.rule)
			}
			rep.Findings = append(rep.Findings, f)
		}
	}
	rep.Notes = append(rep.Notes, t.notes...)
	t.mu.Unlock()
	kept := rep.Rules[:0]
	for _, ru := range rep.Rules {
		switch {
		case covered[ru.ID] || o.Unobserved == ListUnobserved:
			kept = append(kept, ru)
		case o.Unobserved == SkipUnobserved:
			kept = append(kept, ru)
			msg := "no scenario of this run observed the rule"
			if why := t.offTransport(ru.ID); why != "" {
				msg = why
			}
			rep.Findings = append(rep.Findings, report.Finding{
				Rule: ru.ID, Level: ru.Level, Verdict: verdict.Skip, Scenario: "-",
				Message: msg, Transcript: []transcript.Entry{},
			})
		}
	}
	rep.Rules = kept
	rep.Tally()
	return rep
}

// causeOf is the rule whose failure in the same scenario (or fuzz
// sequence) k's failure is a consequence of (spec.Rule.ConsequenceOf),
// "" when none of them failed there: then k's failure stands alone. The
// caller holds t.mu.
func (t *Tally) causeOf(k key) string {
	r := t.proto.Rule(k.rule)
	if r == nil {
		return ""
	}
	for _, c := range r.ConsequenceOf {
		if a := t.aggs[key{k.scenario, c}]; a != nil && verdictOf(a.counts) == verdict.Fail {
			return c
		}
	}
	return ""
}

// counted is the unit a rule's failures are counted in (a rule decided by
// a check judged once per stream, verdict.Counted), "" for any other.
func counted(p *spec.Protocol, id string) string {
	r := p.Rule(id)
	if r == nil {
		return ""
	}
	for _, c := range r.Checks {
		if u := verdict.Counted[c]; u != "" {
			return u
		}
	}
	return ""
}

func excerpt(src Source, scenario string, seq int) []transcript.Entry {
	var es []transcript.Entry
	if src != nil {
		es = src.Excerpt(scenario, seq)
	}
	if es == nil {
		es = []transcript.Entry{}
	}
	return es
}

func verdictOf(c [len(verdict.Decisive)]int) verdict.Verdict {
	for i, v := range verdict.Decisive {
		if c[i] > 0 {
			return v
		}
	}
	return verdict.Skip
}

// Window cuts the transcript lines [from, to) to at most Lines around line
// seq (-1: none in particular, the last Lines): the lines leading to the
// evidence and a few after it. A seq outside the span extends the span to
// it (a frame recorded just before its scenario began, judged in it).
func Window(from, to, seq int) (int, int) {
	if seq >= 0 && seq >= to {
		to = seq + 1
	}
	if seq >= 0 && seq < from {
		from = seq
	}
	if to-from > Lines {
		end := to
		if seq >= 0 {
			end = min(to, seq+Lines/3)
		}
		from = max(from, end-Lines)
		to = end
	}
	return from, to
}

// Entries is a transcript held as a slice (a fuzz sequence's): its
// excerpt is cut from the whole, whatever the scenario.
type Entries []transcript.Entry

// Excerpt implements Source.
func (es Entries) Excerpt(_ string, seq int) []transcript.Entry {
	from, to := Window(0, len(es), seq)
	to = min(to, len(es))
	return es[from:to]
}
