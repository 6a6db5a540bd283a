package tally

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// benchRun is what one revision of a `run --revision all` against
// server-everything tallies: some 1,500 observations of 360 rules and
// scenarios, a few of them failures with a transcript of their own.
type benchRun struct {
	proto *spec.Protocol
	obs   []verdict.Observation
	order map[string]int
	src   Entries
}

func newBenchRun(b *testing.B) benchRun {
	bu, err := protocols.Load("mcp")
	if err != nil {
		b.Fatal(err)
	}
	p, err := bu.Protocol.ForVersion("2025-06-18")
	if err == nil {
		p, err = p.ForTransport("http")
	}
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, r := range p.Rules {
		if p.Applies(r) {
			ids = append(ids, r.ID)
		}
	}
	r := benchRun{proto: p, order: map[string]int{}}
	for i := range 100 {
		r.src = append(r.src, transcript.Entry{Seq: i, Dir: transcript.Received, Text: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i)})
	}
	for s := range 60 {
		sc := fmt.Sprintf("scenario-%02d", s)
		r.order[sc] = s
		for k := range 6 {
			id := ids[(s*7+k*13)%len(ids)]
			for j := range 4 {
				o := verdict.Observation{Rule: id, Scenario: sc, Verdict: verdict.Pass, Seq: j}
				if (s+k)%45 == 0 && j > 1 {
					o.Verdict, o.Message, o.Expected, o.Actual = verdict.Fail, fmt.Sprintf("failure %d", j), "an answer", "none"
				}
				r.obs = append(r.obs, o)
			}
		}
	}
	return r
}

// BenchmarkTally folds a revision's observations and makes its report,
// alternating in one run with the same done as before (Add moving every
// observation to the heap and asking at each whether its rule is judged;
// Report sorting by map lookups and growing its findings), and checks
// the two reports are the same. x-before is the time over the before's.
func BenchmarkTally(b *testing.B) {
	r := newBenchRun(b)
	o := Options{Target: "http://127.0.0.1/mcp", Started: time.Now(), Order: r.order}
	var ours, before time.Duration
	for b.Loop() {
		start := time.Now()
		t := New(r.proto, nil)
		for _, ob := range r.obs {
			t.Observe(ob, r.src)
		}
		rep := t.Report(o)
		ours += time.Since(start)

		start = time.Now()
		t = New(r.proto, nil)
		for _, ob := range r.obs {
			t.addBefore(ob, 1, r.src)
		}
		old := t.reportBefore(o)
		before += time.Since(start)
		if !reflect.DeepEqual(rep.Findings, old.Findings) || !reflect.DeepEqual(rep.Rules, old.Rules) {
			b.Fatal("the report differs from the before's")
		}
	}
	b.ReportMetric(float64(ours)/float64(before), "x-before")
}

// addBefore is Add as it was: &o moved every observation to the heap.
func (t *Tally) addBefore(o verdict.Observation, n int, src Source) {
	if n <= 0 || !t.Selected(o.Rule) || t.offTransport(o.Rule) != "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := key{o.Scenario, o.Rule}
	a := t.aggs[k]
	if a == nil {
		a = &agg{n: t.n}
		t.n++
		t.aggs[k] = a
	}
	i := o.Verdict.Rank()
	if i == len(verdict.Decisive) {
		return
	}
	a.counts[i] += n
	e := evidence{o, src}
	if a.first[i] == nil {
		a.first[i] = &o
	}
	if o.Verdict == verdict.Fail || o.Verdict == verdict.Error {
		a.addDistinct(e, n)
	}
}

// reportBefore is Report as it was.
func (t *Tally) reportBefore(o Options) *report.Report {
	p := t.proto
	rep := &report.Report{
		Tool: "wirecheck", Protocol: p.ID, Target: o.Target,
		Started: o.Started.UTC(), DurationMS: time.Since(o.Started).Milliseconds(),
		Findings: []report.Finding{},
	}
	for _, ru := range p.ReportRules() {
		if t.Selected(ru.ID) {
			rep.Rules = append(rep.Rules, ru)
		}
	}
	t.mu.Lock()
	keys := make([]key, 0, len(t.aggs))
	for k := range t.aggs {
		keys = append(keys, k)
	}
	rank := func(k key) int {
		if k.scenario == "startup" {
			return -1
		}
		if i, ok := o.Order[k.scenario]; ok {
			return i
		}
		return len(o.Order)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return t.aggs[keys[i]].n < t.aggs[keys[j]].n
	})
	covered := map[string]bool{}
	for _, k := range keys {
		a := t.aggs[k]
		level := verdict.Must
		if rule := p.Rule(k.rule); rule != nil {
			level = rule.Level
		}
		v := verdictOf(a.counts)
		covered[k.rule] = true
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
