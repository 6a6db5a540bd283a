package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Goals a fault run is flagged against.
const (
	maxRatio = 2.0
	maxRun   = 120 * time.Second
	// maxBounds is what a fault whose only symptom is silence cannot
	// avoid: one bound (a --timeout, a declared within, the start-up
	// timeout) to see the silence. A second in series is a wait the
	// engine could have ended on what it learned from the first.
	maxBounds = 1
)

// runParams are the --param settings of every run of a protocol, as the
// verdict tables give them (internal/protocols tables_profile_test.go):
// the checks a default run leaves out because they cost a real server
// something. Without them a fault of such a check (sophon's
// rate-limit-off) does nothing, and its run measures the clean server.
var runParams = map[string]map[string]string{
	"sophon": {"rate_limit": "check"},
}

// launch is how a run reaches the reference server: over which transport,
// under which revision (as the runner is told it; "" for the default),
// and with which headers.
type launch struct {
	Transport, Revision string
	Headers             []string
}

// key names a clean configuration: the transport and revision a fault run
// is compared under.
func (l launch) key() string {
	s := l.Transport
	if l.Revision != "" {
		s += "@" + l.Revision
	}
	return s
}

// launches are the runs of a fault: over its own transport if it names one;
// else over the protocol's first when a rule it trips holds there; else
// over each transport where one does (spec.Protocol.FaultTransports) — the
// way the verdict tables run it (internal/protocols runs_test.go), so the
// fault does there what it is declared to do.
func launches(p *spec.Protocol, f *spec.Fault) []launch {
	trs := p.FaultTransports(f)
	first := "stdio"
	if len(p.Transports) > 0 {
		first = p.Transports[0]
	}
	if f.Transport == "" && slices.Contains(trs, first) || len(trs) == 0 {
		trs = []string{first}
	}
	var out []launch
	for _, tr := range trs {
		out = append(out, launch{Transport: tr, Revision: f.Version, Headers: headers(p, tr, []string{f.Name})})
	}
	return out
}

// clean is the launch of the clean run l is compared with: the same
// transport and revision, with the headers a run against the server
// without faults carries.
func (l launch) clean(p *spec.Protocol) launch {
	return launch{Transport: l.Transport, Revision: l.Revision, Headers: headers(p, l.Transport, nil)}
}

// headers are a run's credentials over HTTP, as a user with them would
// give: a profile's reference server asks the demo token on every
// request; the MCP reference server the reference token only with the
// faults that switch its authorization on (handed credentials it does not
// check, it fails MCP-AUTH-1).
func headers(p *spec.Protocol, transport string, faults []string) []string {
	switch {
	case transport == "" || transport == "stdio":
		return nil
	case p.Base != "":
		return []string{"Authorization: Bearer " + refmcp.DemoToken()}
	case refmcp.RequiresToken(faults, nil):
		return []string{"Authorization: Bearer " + refmcp.Token}
	}
	return nil
}

// serverTarget launches bin's reference server of p with fault ("" for
// none) as l asks: over HTTP it listens on the port the target picks.
func serverTarget(bin string, p *spec.Protocol, fault string, l launch) target.Target {
	argv := []string{bin, "serve", p.ID}
	if fault != "" {
		argv = append(argv, "--fault", fault)
	}
	t := target.Target{Argv: argv, Paths: p.Endpoints}
	if l.Transport != "" && l.Transport != "stdio" {
		t.Argv = append(t.Argv, "--"+l.Transport, "127.0.0.1:{port}")
		t.Transport = l.Transport
		t.Headers = l.Headers
	}
	return t
}

// tripped reports whether a fault run failed a rule the fault is declared
// to trip: a run that did not measured a server without the fault's
// effect (over a transport where the fault does nothing, say).
func tripped(rep *report.Report, f *spec.Fault) bool {
	if rep == nil {
		return false
	}
	for _, g := range rep.Findings {
		if g.Verdict == verdict.Fail && slices.Contains(f.Trips, g.Rule) {
			return true
		}
	}
	return false
}

// wait is one bound a run waited out: on a scenario, ended at End after
// Took (the time actually waited, which a start-up grace can lengthen
// past the bound).
type wait struct {
	Scenario string
	End      time.Time
	Took     time.Duration
}

// waitedRE finds the time a wait lasted in the message of a wait that ran
// out: "no response to … within 5s (--timeout)", "within 7.2s (5s
// (--timeout), lengthened …)", "no answer within 1m0s": the first
// duration after "within" is the time waited (scenario.Env.Waited). The
// clause says what did not come ("no", "not", "nothing", "never"): "61
// requests of one token within 8ms" times something that came. A wait
// for an exit says "still running 10s after stdin closed".
var waitedRE = regexp.MustCompile(`\b(?:no|not|nothing|never)\b[^;]{0,200}? within (` + duration + `)\b|\bstill running (` + duration + `) after\b`)

const duration = `(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|µs|ms|s|m|h))+`

// waitOf reads the bound an observation says was waited out, if any. A
// message about a wait ended at once for a cause learned earlier
// (scenario.NotWaited) quotes the wait that paid, not one of its own.
func waitOf(o verdict.Observation, at time.Time) (wait, bool) {
	if strings.Contains(o.Message, "not waited for") {
		return wait{}, false
	}
	m := waitedRE.FindStringSubmatch(o.Message)
	if m == nil {
		return wait{}, false
	}
	d, err := time.ParseDuration(m[1] + m[2])
	if err != nil || d <= 0 {
		return wait{}, false
	}
	return wait{Scenario: o.Scenario, End: at, Took: d}, true
}

// inRun keeps the waits that fit in a run begun at start: a message that
// quotes a bound it did not wait out (a server refused at once, its
// message naming the bound it would have had) is no wait; one begun
// before the run is cut to it.
func inRun(ws []wait, start time.Time) []wait {
	var out []wait
	for _, w := range ws {
		if from := w.End.Add(-w.Took); from.Before(start) {
			lasted := w.End.Sub(start)
			if lasted < w.Took/2 {
				continue
			}
			w.Took = lasted
		}
		out = append(out, w)
	}
	return out
}

// sameWait is how close two observations of one scenario naming a wait
// end for them to be one wait: a timeout is reported against several
// checks at once (timeliness, one response), a few statements apart.
const sameWait = 250 * time.Millisecond

// distinct drops the observations of a wait already counted.
func distinct(ws []wait) []wait {
	sorted := slices.Clone(ws)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].End.Before(sorted[j].End) })
	var out []wait
	for _, w := range sorted {
		dup := false
		for _, o := range out {
			if o.Scenario == w.Scenario && w.End.Sub(o.End) < sameWait && o.End.Sub(w.End) < sameWait {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, w)
		}
	}
	return out
}

// spent is what the distinct waits cost the run's wall time: lanes run at
// once, so waits that overlap cost the time of their union; and how many
// bounds were waited out in series: the most waits one after the other
// (each begun after the one before it ended, a report's lag allowed), as
// one lane's scenarios wait — waits that overlap cost one bound between
// them.
func spent(ws []wait) (total time.Duration, series int) {
	type span struct{ from, to time.Time }
	var spans []span
	for _, w := range ws {
		spans = append(spans, span{w.End.Add(-w.Took), w.End})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Before(spans[j].from) })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.from.Before(merged[n-1].to) {
			if s.to.After(merged[n-1].to) {
				merged[n-1].to = s.to
			}
			continue
		}
		merged = append(merged, s)
	}
	for _, s := range merged {
		total += s.to.Sub(s.from)
	}
	// The longest chain of waits that do not overlap: earliest end first.
	sort.Slice(spans, func(i, j int) bool { return spans[i].to.Before(spans[j].to) })
	var last time.Time
	for i, s := range spans {
		if i == 0 || !s.from.Before(last.Add(-sameWait)) {
			series++
			last = s.to
		}
	}
	return total, series
}

// recorder is the runner's Progress: it keeps the waits the run's
// observations say ran out, with the time each was told.
type recorder struct {
	mu    sync.Mutex
	waits []wait
	now   func() time.Time
}

func (r *recorder) Planned(int)          {}
func (r *recorder) Scenario(int, string) {}
func (r *recorder) LaneDone(int)         {}
func (r *recorder) Observed(o verdict.Observation) {
	now := time.Now
	if r.now != nil {
		now = r.now
	}
	if w, ok := waitOf(o, now()); ok {
		r.mu.Lock()
		r.waits = append(r.waits, w)
		r.mu.Unlock()
	}
}

// result is one fault run beside its clean run.
type result struct {
	protocol, fault, over string
	took, clean           time.Duration
	// waits counts the distinct bounds the run waited out; waited is
	// their cost in wall time, bounds how many of them were in series.
	waits, bounds int
	waited        time.Duration
	// untripped marks a run that failed none of the rules the fault
	// trips.
	untripped bool
}

func newResult(protocol, fault, over string, took, clean time.Duration, ws []wait) result {
	ws = distinct(ws)
	waited, bounds := spent(ws)
	return result{protocol: protocol, fault: fault, over: over, took: took, clean: clean, waits: len(ws), bounds: bounds, waited: min(waited, took)}
}

func (r result) name() string {
	if r.over == "" || r.over == "stdio" {
		return r.fault
	}
	return r.fault + " (" + r.over + ")"
}

// command names the run as a user would start it.
func (r result) command() string {
	s := r.protocol + " --fault " + r.fault
	if r.over != "" && r.over != "stdio" {
		s += " over " + r.over
	}
	return s
}

func (r result) ratio() float64 { return float64(r.took) / float64(r.clean) }

// beyond is the ratio with the bounds waited out taken off the run: what
// the fault costs besides the waits its silence makes unavoidable.
func (r result) beyond() float64 { return float64(r.took-r.waited) / float64(r.clean) }

// flags says which goals the run misses, and whether the fault showed
// ("" when all is well).
func (r result) flags() string {
	out := r.misses()
	if r.untripped {
		if out != "" {
			out += ", "
		}
		out += "NOT TRIPPED (the fault did not show)"
	}
	return out
}

// misses says which goals the run misses ("" when none).
func (r result) misses() string {
	var out []string
	if r.bounds > maxBounds {
		out = append(out, fmt.Sprintf("OVER %d bound (%d in series)", maxBounds, r.bounds))
	}
	if r.beyond() > maxRatio {
		out = append(out, fmt.Sprintf("OVER %.0fx beyond its bounds", maxRatio))
	}
	if r.took > maxRun {
		out = append(out, "OVER "+maxRun.String())
	}
	return strings.Join(out, ", ")
}

// worst is a protocol's (or every protocol's) worst raw ratio and worst
// ratio beyond bounds, with the runs that gave them.
type worst struct{ raw, beyond *result }

func (w *worst) add(r *result) {
	if w.raw == nil || r.ratio() > w.raw.ratio() {
		w.raw = r
	}
	if w.beyond == nil || r.beyond() > w.beyond.beyond() {
		w.beyond = r
	}
}

// verdict is the goal's one-line verdict over all the runs.
func verdictOf(all []result) string {
	over := 0
	untripped := 0
	for _, r := range all {
		if r.misses() != "" {
			over++
		}
		if r.untripped {
			untripped++
		}
	}
	var w worst
	for i := range all {
		w.add(&all[i])
	}
	if w.raw == nil {
		return "no fault run"
	}
	goal := "MET"
	if over > 0 {
		goal = "MISSED"
	}
	raw := "within"
	if w.raw.ratio() > maxRatio {
		raw = "over"
	}
	s := fmt.Sprintf("goal (each fault at most %d bound waited out, at most %.0fx the clean run beyond it, none over %s): %s, %d of %d run(s) over; the raw worst, %.1fx, is %s %.0fx",
		maxBounds, maxRatio, maxRun, goal, over, len(all), w.raw.ratio(), raw, maxRatio)
	if untripped > 0 {
		s += fmt.Sprintf("; %d run(s) did not trip their fault's rules", untripped)
	}
	return s
}
