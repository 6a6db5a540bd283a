// Package runner runs a protocol's scenarios against server processes and
// folds what the peer and the scenarios observed into a report: one finding
// per rule per scenario.
//
// Scenarios share a server process unless they ask for a fresh one; a
// process that died or stopped answering is replaced before the next
// scenario, and its death is a finding of the scenario that caused it.
package runner

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/redact"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Defaults for Config.
const (
	DefaultTimeout        = 5 * time.Second
	DefaultStartupTimeout = 10 * time.Second
	// TranscriptLines caps the transcript lines a failing finding carries.
	TranscriptLines = 60
)

// ErrNotStarted means the target could not be started or never became
// ready; the CLI exits 3.
var ErrNotStarted = errors.New("the target could not be started")

// Config is one run.
type Config struct {
	Protocol  *spec.Protocol
	Schemas   *schema.Registry
	Launch    func() (transport.Transport, error)
	Scenarios []*scenario.Scenario
	// Timeout bounds each response; StartupTimeout the ready line.
	Timeout        time.Duration
	StartupTimeout time.Duration
	// Rules selects rules by glob (path.Match syntax); empty selects all.
	Rules []string
	// Handler answers requests the server sends.
	Handler peer.Handler
	Seed    uint64
	Params  map[string]string
	// Reproduce returns the command line that runs one scenario again.
	Reproduce func(scenario string) string
	// Target describes the server for the report.
	Target string
	// Partial says only some of the protocol's scenarios run (--scenario),
	// so rules none of them observed are left out rather than reported as
	// skipped.
	Partial bool
	// Progress, when set, is told each scenario's name as it starts.
	Progress func(name string)
}

// Run executes every scenario and returns the report. The error is
// ErrNotStarted (wrapped) when the target never started; the report is
// still returned, saying what was not run.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = DefaultStartupTimeout
	}
	var verr error
	if v := cfg.Protocol.Versions; v != nil {
		// A versioned protocol (MCP): --param <v.Param>=ID picks the
		// revision whose kinds and schemas judge the run.
		p, err := cfg.Protocol.ForVersion(cfg.Params[v.Param])
		if err != nil {
			verr = err
		} else {
			cfg.Protocol = p
		}
	}
	r := &run{cfg: cfg, rec: transcript.NewRecorder(), aggs: map[key]*agg{}, spans: map[string]span{}, started: time.Now()}
	if verr != nil {
		return r.report(), verr
	}
	r.rec.SetRedactor(redact.Text)
	err := r.all(ctx)
	return r.report(), err
}

type key struct{ scenario, rule string }

type agg struct {
	counts   map[report.Verdict]int
	first    map[report.Verdict]peer.Observation
	order    int
	scenario string
}

type span struct{ from, to int }

type run struct {
	cfg     Config
	rec     *transcript.Recorder
	started time.Time

	mu     sync.Mutex
	aggs   map[key]*agg
	n      int
	spans  map[string]span
	notes  []string
	cur    string
	p      *peer.Peer
	broken bool // the current process must be replaced before the next scenario
	// live is the current peer for the interrupt watcher, which runs on
	// another goroutine than the one that owns p.
	live atomic.Pointer[peer.Peer]
}

func (r *run) selected(rule string) bool {
	if len(r.cfg.Rules) == 0 {
		return true
	}
	for _, g := range r.cfg.Rules {
		if ok, _ := path.Match(g, rule); ok {
			return true
		}
	}
	return false
}

func (r *run) observe(o peer.Observation) {
	if !r.selected(o.Rule) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.Scenario == "" {
		o.Scenario = r.cur
	}
	k := key{o.Scenario, o.Rule}
	a := r.aggs[k]
	if a == nil {
		a = &agg{counts: map[report.Verdict]int{}, first: map[report.Verdict]peer.Observation{}, order: r.n, scenario: o.Scenario}
		r.n++
		r.aggs[k] = a
	}
	a.counts[o.Verdict]++
	if _, ok := a.first[o.Verdict]; !ok {
		a.first[o.Verdict] = o
	}
}

func (r *run) note(format string, args ...any) {
	r.mu.Lock()
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// start launches a server process and waits for its ready line when the
// protocol has one. Observations go to the scenario "startup".
func (r *run) start() error {
	t, err := r.cfg.Launch()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotStarted, err)
	}
	p := peer.New(peer.Options{
		Protocol: r.cfg.Protocol, Schemas: r.cfg.Schemas, Transport: t,
		Recorder: r.rec, Observe: r.observe, Handler: r.cfg.Handler,
	})
	r.p, r.broken = p, false
	r.live.Store(p)
	st := r.cfg.Protocol.Startup
	if st == nil {
		return nil
	}
	r.setScenario("startup")
	first, err := p.AwaitKind(st.Kind, r.cfg.StartupTimeout)
	if first != nil && (first.Kind == nil || first.Kind.Name != st.Kind) {
		r.observe(peer.Observation{Rule: st.Rule, Verdict: report.Fail, Seq: first.Seq,
			Message:  "the first stdout line is not the ready line",
			Expected: "a " + st.Kind + " frame first", Actual: string(first.Raw)})
	}
	if err != nil {
		why := "no ready line within " + r.cfg.StartupTimeout.String()
		if errors.Is(err, peer.ErrExited) {
			why = (&scenario.Env{Peer: p}).Gone()
		}
		r.observe(peer.Observation{Rule: st.Rule, Verdict: report.Fail, Seq: -1,
			Message: "the server never printed its ready line: " + why, Expected: "a " + st.Kind + " frame first", Actual: "nothing"})
		return fmt.Errorf("%w: %s", ErrNotStarted, why)
	}
	if first.Kind != nil && first.Kind.Name == st.Kind {
		r.observe(peer.Observation{Rule: st.Rule, Verdict: report.Pass, Seq: first.Seq})
	}
	return nil
}

func (r *run) setScenario(name string) {
	r.mu.Lock()
	r.cur = name
	if _, ok := r.spans[name]; !ok {
		r.spans[name] = span{from: r.rec.Len(), to: -1}
	}
	r.mu.Unlock()
	if r.p != nil {
		r.p.SetScenario(name)
	} else {
		r.rec.SetScenario(name)
	}
}

func (r *run) endScenario(name string) {
	r.mu.Lock()
	sp := r.spans[name]
	sp.to = r.rec.Len()
	r.spans[name] = sp
	r.mu.Unlock()
}

func (r *run) stop() {
	if r.p != nil {
		r.p.Close()
		r.p = nil
	}
}

func (r *run) all(ctx context.Context) error {
	defer r.stop()
	// An interrupt ends the server at once, which ends any wait in the
	// scenario under way; the loop below then reports the rest as not run.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			if p := r.live.Load(); p != nil {
				p.Transport().Close()
			}
		case <-done:
		}
	}()
	var todo []*scenario.Scenario
	for _, s := range r.cfg.Scenarios {
		for _, id := range s.Rules {
			if r.selected(id) {
				todo = append(todo, s)
				break
			}
		}
	}
	for i, s := range todo {
		if ctx.Err() != nil {
			r.notRun(todo[i:], "the run was interrupted")
			r.note("interrupted: %d scenario(s) not run", len(todo)-i)
			return ctx.Err()
		}
		if r.p == nil || r.broken || s.Fresh {
			r.stop()
			if err := r.start(); err != nil {
				r.endScenario("startup")
				r.notRun(todo[i:], "not run: "+err.Error())
				r.note("%v; %d scenario(s) not run", err, len(todo)-i)
				return err
			}
		}
		if r.cfg.Progress != nil {
			r.cfg.Progress(s.Name)
		}
		r.scenario(s)
	}
	return nil
}

func (r *run) scenario(s *scenario.Scenario) {
	r.setScenario(s.Name)
	defer r.endScenario(s.Name)
	env := &scenario.Env{
		Peer: r.p, Protocol: r.cfg.Protocol, Timeout: r.cfg.Timeout, Seed: r.cfg.Seed, Params: r.cfg.Params,
		Note: func(msg string) { r.note("%s", msg) },
		Observe: func(o peer.Observation) {
			if o.Scenario == "" {
				o.Scenario = s.Name
			}
			r.observe(o)
		},
	}
	env.Restart = func() error {
		r.stop()
		if err := r.start(); err != nil {
			return err
		}
		r.setScenario(s.Name)
		env.Peer = r.p
		return nil
	}
	err := s.Execute(env)
	p := env.Peer
	// Requests nobody waited for get their full timeout, then count as
	// unanswered.
	if err == nil {
		for _, c := range p.InFlight() {
			if _, werr := env.Await(c, time.Until(c.SentAt.Add(r.cfg.Timeout))); werr != nil {
				break
			}
		}
	}
	exited := false
	select {
	case <-p.Transport().Exited():
		exited = true
	default:
	}
	switch {
	case exited && !env.Closed:
		p.Check(peer.CheckSurvives, report.Fail, -1, "the server died during this scenario: "+env.Gone(),
			"the server keeps running", p.Transport().ExitStatus().String())
		r.broken = true
	case err == nil && !env.Closed && !env.Hung:
		p.Check(peer.CheckSurvives, report.Pass, -1, "", "", "")
	}
	if err != nil || env.Hung || env.Closed || exited {
		r.broken = true
	}
	// A declared rule nothing observed: the scenario stopped early, or the
	// fixture checks less than it claims.
	why := "the scenario never checked it (a fixture that declares a rule must check it)"
	if err != nil {
		why = "not observed: the scenario stopped early: " + err.Error()
	}
	r.mu.Lock()
	var missing []string
	for _, id := range s.Rules {
		if r.aggs[key{s.Name, id}] == nil && r.selected(id) {
			missing = append(missing, id)
		}
	}
	r.mu.Unlock()
	for _, id := range missing {
		r.observe(peer.Observation{Rule: id, Verdict: report.Error, Scenario: s.Name, Seq: -1, Message: why})
	}
}

func (r *run) notRun(ss []*scenario.Scenario, why string) {
	for _, s := range ss {
		for _, id := range s.Rules {
			r.observe(peer.Observation{Rule: id, Verdict: report.Error, Scenario: s.Name, Seq: -1, Message: why})
		}
	}
}

func (r *run) report() *report.Report {
	p := r.cfg.Protocol
	rep := &report.Report{
		Tool: "wirecheck", Protocol: p.ID, Target: r.cfg.Target,
		Started: r.started.UTC(), DurationMS: time.Since(r.started).Milliseconds(),
		Findings: []report.Finding{},
	}
	for _, ru := range p.ReportRules() {
		if r.selected(ru.ID) {
			rep.Rules = append(rep.Rules, ru)
		}
	}
	r.mu.Lock()
	keys := make([]key, 0, len(r.aggs))
	for k := range r.aggs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r.aggs[keys[i]].order < r.aggs[keys[j]].order })
	covered := map[string]bool{}
	for _, k := range keys {
		a := r.aggs[k]
		rule := p.Rule(k.rule)
		level := report.Must
		if rule != nil {
			level = rule.Level
		}
		v := verdictOf(a.counts)
		o := a.first[v]
		f := report.Finding{
			Rule: k.rule, Level: level, Verdict: v, Scenario: k.scenario,
			Message: o.Message, Expected: o.Expected, Actual: o.Actual,
			Count: a.counts[v], Transcript: []transcript.Entry{},
		}
		if v == report.Fail || v == report.Error {
			f.Transcript = r.excerpt(k.scenario, o.Seq)
			if r.cfg.Reproduce != nil {
				f.Reproduce = r.cfg.Reproduce(k.scenario)
			}
		}
		covered[k.rule] = true
		rep.Findings = append(rep.Findings, f)
	}
	rep.Notes = append(rep.Notes, r.notes...)
	r.mu.Unlock()
	if d := r.rec.Dropped(); d > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the transcript was full (%d lines); %d later lines were not recorded", transcript.MaxEntries, d))
	}
	kept := rep.Rules[:0]
	for _, ru := range rep.Rules {
		if r.cfg.Partial {
			if covered[ru.ID] {
				kept = append(kept, ru)
			}
			continue
		}
		kept = append(kept, ru)
		if !covered[ru.ID] {
			rep.Findings = append(rep.Findings, report.Finding{
				Rule: ru.ID, Level: ru.Level, Verdict: report.Skip, Scenario: "-",
				Message: "no scenario of this run observed the rule", Transcript: []transcript.Entry{},
			})
		}
	}
	rep.Rules = kept
	rep.Tally()
	return rep
}

func verdictOf(c map[report.Verdict]int) report.Verdict {
	for _, v := range []report.Verdict{report.Fail, report.Error, report.Pass, report.Skip} {
		if c[v] > 0 {
			return v
		}
	}
	return report.Skip
}

// excerpt returns the scenario's transcript lines around the evidence,
// capped at TranscriptLines.
func (r *run) excerpt(name string, seq int) []transcript.Entry {
	sp, ok := r.spans[name]
	if !ok {
		return []transcript.Entry{}
	}
	from, to := sp.from, sp.to
	if to < 0 {
		to = r.rec.Len()
	}
	if seq >= 0 && seq >= to {
		to = seq + 1
	}
	if to-from > TranscriptLines {
		end := to
		if seq >= 0 {
			end = min(to, seq+TranscriptLines/3)
		}
		from = max(from, end-TranscriptLines)
		to = end
	}
	es := r.rec.Slice(from, to)
	if es == nil {
		es = []transcript.Entry{}
	}
	return es
}

// Describe renders a command line for the report's target field.
func Describe(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\"'$\\") {
			b.WriteString(fmt.Sprintf("%q", a))
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}
