// Package runner runs a protocol's scenarios against server processes and
// folds what the peer and the scenarios observed into a report: one finding
// per rule per scenario.
//
// Scenarios run in lanes. A lane begins at the first scenario and at every
// scenario that asks for a fresh process; the scenarios after it share its
// process, in order. Lanes are independent, so they run at once (up to
// Config.Jobs): a suite whose slow parts are waits (a server that should
// exit, an answer that should not come) takes as long as its slowest lane,
// not the sum. Within a lane, a process that died or stopped answering is
// replaced before the next scenario, and its death is a finding of the
// scenario that caused it.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
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
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Defaults for Config.
const (
	DefaultTimeout        = 5 * time.Second
	DefaultStartupTimeout = 10 * time.Second
	// DefaultJobs bounds the lanes that run at once. Lanes spend most of
	// their time waiting on the server, so more lanes than cores pay off;
	// eight keeps a run from starting dozens of servers on a laptop.
	DefaultJobs = 8
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
	// Jobs bounds the lanes (server processes) that run at once; 0 means
	// DefaultJobs, 1 runs every scenario one after the other.
	Jobs int
	// Starts bounds the server processes starting at once (launched, no
	// line on stdout yet); 0 means one per CPU. Servers that take CPU to
	// start (Node, the JVM) start sooner one after the other than all at
	// once, and the lanes with the longest waits go first.
	Starts int
	// Rules selects rules by glob (path.Match syntax); empty selects all.
	Rules []string
	// Handler answers requests the server sends. Lanes share it, so it
	// must be safe for concurrent use.
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
	// Progress, when set, is told each scenario's name as it starts
	// (from one goroutine at a time).
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
	if cfg.Jobs <= 0 {
		cfg.Jobs = DefaultJobs
	}
	if cfg.Starts <= 0 {
		cfg.Starts = runtime.NumCPU()
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
	r := &run{cfg: cfg, aggs: map[key]*agg{}, started: time.Now(), order: map[string]int{}, starting: make(chan struct{}, cfg.Starts), startFailed: make(chan struct{})}
	if verr != nil {
		return r.report(), verr
	}
	err := r.all(ctx)
	return r.report(), err
}

type key struct{ scenario, rule string }

type agg struct {
	counts map[verdict.Verdict]int
	first  map[verdict.Verdict]evidence
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
}

// maxDistinct bounds the messages kept per rule and scenario; later new
// ones are counted with the last (a server that fails every frame with a
// different id should not make thousands of findings).
const maxDistinct = 20

// evidence is an observation and the lane whose transcript holds it.
type evidence struct {
	verdict.Observation
	lane *lane
}

type span struct{ from, to int }

// run is the state the lanes share: the findings and the notes.
type run struct {
	cfg     Config
	started time.Time
	// order ranks scenarios by their place in the suite, so the report
	// reads the same however the lanes interleaved.
	order map[string]int

	// starting holds a token per server process starting (Config.Starts).
	starting chan struct{}
	// startFailed is closed when a server process of the run could not be
	// started or never became ready (startErr says why): the processes
	// still starting are not waited out one startup timeout each.
	startFailed chan struct{}
	startOnce   sync.Once
	startErr    error

	mu    sync.Mutex
	aggs  map[key]*agg
	n     int
	notes []string
	lanes []*lane
}

// lane is one sequence of scenarios sharing server processes, with its own
// transcript.
type lane struct {
	r         *run
	scenarios []*scenario.Scenario
	rec       *transcript.Recorder
	spans     map[string]span // guarded by r.mu
	cur       string          // guarded by r.mu
	p         *peer.Peer
	broken    bool // the current process must be replaced before the next scenario
	// live is the current peer for the interrupt watcher, which runs on
	// another goroutine than the one that owns p.
	live atomic.Pointer[peer.Peer]
	// causes is what the lane's waits learned: later waits on a known
	// cause end at once (see scenario.Causes).
	causes scenario.Causes
	// notRun counts the scenarios the lane could not run, and why.
	notRun int
	err    error
	// begun is closed once the lane has got its first start token (or
	// ended without one): lanes start in order.
	begun     chan struct{}
	beginOnce sync.Once
	// release gives back the start token of the current process.
	release func()
}

func (l *lane) begin() { l.beginOnce.Do(func() { close(l.begun) }) }

// idle is how long the lane waits on its servers by design: what its
// scenarios declare, and the silences, exit deadlines and sleeps of their
// steps.
func (l *lane) idle() time.Duration {
	var d time.Duration
	for _, s := range l.scenarios {
		d += s.Idle
		for _, st := range s.Steps {
			d += st.ExpectSilence.D() + st.Sleep.D()
			if st.ExpectExit != nil {
				d += st.ExpectExit.Within.D()
			}
		}
	}
	return d
}

func (r *run) selected(rule string) bool { return spec.Selects(r.cfg.Rules, rule) }

func (l *lane) observe(o verdict.Observation) {
	r := l.r
	if !r.selected(o.Rule) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.Scenario == "" {
		o.Scenario = l.cur
	}
	k := key{o.Scenario, o.Rule}
	a := r.aggs[k]
	if a == nil {
		a = &agg{counts: map[verdict.Verdict]int{}, first: map[verdict.Verdict]evidence{}, n: r.n}
		r.n++
		r.aggs[k] = a
	}
	a.counts[o.Verdict]++
	if _, ok := a.first[o.Verdict]; !ok {
		a.first[o.Verdict] = evidence{o, l}
	}
	if o.Verdict == verdict.Fail || o.Verdict == verdict.Error {
		a.addDistinct(evidence{o, l})
	}
}

func (a *agg) addDistinct(e evidence) {
	var last *distinct
	for _, d := range a.distinct {
		if d.Verdict == e.Verdict {
			if d.Message == e.Message {
				d.count++
				return
			}
			last = d
		}
	}
	if last != nil && len(a.distinct) >= maxDistinct {
		last.count++
		return
	}
	a.distinct = append(a.distinct, &distinct{e, 1})
}

func (r *run) note(format string, args ...any) {
	r.mu.Lock()
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// start launches a server process and waits for its ready line when the
// protocol has one. Observations go to the scenario "startup".
func (l *lane) start(ctx context.Context) error {
	r := l.r
	select {
	case r.starting <- struct{}{}:
	case <-ctx.Done():
		l.begin()
		return ctx.Err()
	case <-r.startFailed:
		l.begin()
		return r.startErr
	}
	l.begin()
	var once sync.Once
	release := func() { once.Do(func() { <-r.starting }) }
	select {
	case <-r.startFailed:
		// The token came free because another start failed.
		release()
		return r.startErr
	default:
	}
	from := l.rec.Len()
	t, err := r.cfg.Launch()
	if err != nil {
		release()
		return r.failStart(fmt.Errorf("%w: %v", ErrNotStarted, err))
	}
	p := peer.New(peer.Options{
		Protocol: r.cfg.Protocol, Schemas: r.cfg.Schemas, Transport: t,
		Recorder: l.rec, Observe: l.observe, Handler: r.cfg.Handler,
		// A wait before the server's first line also covers its start-up.
		StartupGrace: r.cfg.StartupTimeout,
	})
	l.release = release
	st := r.cfg.Protocol.Startup
	// The token goes back when the server has said something, has gone,
	// or has had its startup timeout (a server with a ready line has it
	// when its wait below ends); the scenario's end gives it back too.
	var startup <-chan time.Time
	if st == nil {
		startup = time.After(r.cfg.StartupTimeout)
	}
	go func() {
		select {
		case <-p.Heard():
		case <-p.Gone():
		case <-startup:
		}
		release()
	}()
	l.p, l.broken = p, false
	l.live.Store(p)
	if st == nil {
		return nil
	}
	l.setScenario("startup")
	// Another process that never became ready ends this one's wait.
	waited := make(chan struct{})
	go func() {
		select {
		case <-r.startFailed:
			p.Transport().Close()
		case <-waited:
		}
	}()
	first, err := p.AwaitKind(st.Kind, r.cfg.StartupTimeout)
	close(waited)
	if err != nil {
		select {
		case <-r.startFailed:
			return r.startErr
		default:
		}
	}
	if first != nil && (first.Kind == nil || first.Kind.Name != st.Kind) {
		l.observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: first.Seq,
			Message:  "the first stdout line is not the ready line",
			Expected: "a " + st.Kind + " frame first", Actual: string(first.Raw)})
	}
	if err != nil {
		env := &scenario.Env{Peer: p}
		why := "no ready line within " + r.cfg.StartupTimeout.String() + " (--startup-timeout)" + env.Meanwhile(from-1)
		if errors.Is(err, peer.ErrExited) {
			why = env.Gone()
		}
		l.observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Fail, Seq: -1,
			Message: "the server never printed its ready line: " + why, Expected: "a " + st.Kind + " frame first", Actual: "nothing"})
		err := r.failStart(fmt.Errorf("%w: %s", ErrNotStarted, why))
		release()
		return err
	}
	if first.Kind != nil && first.Kind.Name == st.Kind {
		l.observe(verdict.Observation{Rule: st.Rule, Verdict: verdict.Pass, Seq: first.Seq})
	}
	return nil
}

// failStart records that a server process could not be started, ending
// the start of every other, and returns err.
func (r *run) failStart(err error) error {
	r.startOnce.Do(func() {
		r.startErr = err
		close(r.startFailed)
	})
	return err
}

func (l *lane) setScenario(name string) {
	l.r.mu.Lock()
	l.cur = name
	if _, ok := l.spans[name]; !ok {
		l.spans[name] = span{from: l.rec.Len(), to: -1}
	}
	l.r.mu.Unlock()
	if l.p != nil {
		l.p.SetScenario(name)
	} else {
		l.rec.SetScenario(name)
	}
}

func (l *lane) endScenario(name string) {
	l.r.mu.Lock()
	sp := l.spans[name]
	sp.to = l.rec.Len()
	l.spans[name] = sp
	l.r.mu.Unlock()
}

func (l *lane) stop() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
	if l.p != nil {
		l.p.Close()
		l.p = nil
	}
}

// lanes cuts the selected scenarios into lanes: a new lane at the start
// and at every scenario that wants a fresh process.
//
// --rules runs the scenarios that decide the selected rules: those that
// declare one, and every scenario when a selected rule is judged on frames
// as they arrive (any scenario may draw the frame that breaks it).
func (r *run) plan() []*lane {
	var out []*lane
	budget := transcript.NewBudget(transcript.MaxEntries, transcript.MaxBytes)
	everyFrame := false
	for _, ru := range r.cfg.Protocol.Rules {
		if r.selected(ru.ID) && frameDecided(r.cfg.Protocol, ru.ID) {
			everyFrame = true
			break
		}
	}
	i := 0
	for _, s := range r.cfg.Scenarios {
		picked := everyFrame
		for _, id := range s.Rules {
			if r.selected(id) {
				picked = true
				break
			}
		}
		if !picked {
			continue
		}
		r.order[s.Name] = i
		i++
		if len(out) == 0 || s.Fresh {
			rec := transcript.NewRecorderAt(r.started, budget)
			rec.SetRedactor(redact.Text)
			out = append(out, &lane{r: r, rec: rec, spans: map[string]span{}, begun: make(chan struct{})})
		}
		l := out[len(out)-1]
		l.scenarios = append(l.scenarios, s)
	}
	return out
}

// frameDecided reports whether a rule is judged on every frame as it
// arrives (a built-in check, a frames: schema, a kind's schema) rather than
// only by the scenarios that declare it.
func frameDecided(p *spec.Protocol, id string) bool {
	ru := p.Rule(id)
	if ru == nil {
		return false
	}
	if len(ru.Checks) > 0 || ru.Frames != nil {
		return true
	}
	for _, k := range p.Kinds {
		if k.Rule == id {
			return true
		}
	}
	return false
}

func (r *run) all(ctx context.Context) error {
	r.lanes = r.plan()
	// An interrupt ends every server at once, which ends any wait in the
	// scenarios under way; each lane then reports the rest as not run.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			for _, l := range r.lanes {
				if p := l.live.Load(); p != nil {
					p.Transport().Close()
				}
			}
		case <-done:
		}
	}()
	// The lanes with the longest waits start first; each lane starts once
	// the one before it has its first start token.
	order := slices.Clone(r.lanes)
	slices.SortStableFunc(order, func(a, b *lane) int { return cmp.Compare(b.idle(), a.idle()) })
	slots := make(chan struct{}, r.cfg.Jobs)
	var wg sync.WaitGroup
	for _, l := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.begin()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				l.r.notRun(l.scenarios, "the run was interrupted")
				l.notRun = len(l.scenarios)
				return
			}
			defer func() { <-slots }()
			l.run(ctx)
		}()
		<-l.begun
	}
	wg.Wait()
	if ctx.Err() != nil {
		n := 0
		for _, l := range r.lanes {
			n += l.notRun
		}
		r.note("interrupted: %d scenario(s) not run", n)
		return ctx.Err()
	}
	// Every lane that could not start says the same thing: report the
	// first, with the total of what was lost.
	var first error
	n := 0
	for _, l := range r.lanes {
		if l.err != nil {
			n += l.notRun
			if first == nil {
				first = l.err
			}
		}
	}
	if first != nil {
		r.note("%v; %d scenario(s) not run", first, n)
	}
	return first
}

func (l *lane) run(ctx context.Context) {
	defer l.stop()
	for i, s := range l.scenarios {
		if ctx.Err() != nil {
			l.r.notRun(l.scenarios[i:], "the run was interrupted")
			l.notRun = len(l.scenarios) - i
			return
		}
		if l.p == nil || l.broken {
			l.stop()
			if err := l.start(ctx); err != nil {
				l.endScenario("startup")
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				l.r.notRun(l.scenarios[i:], "not run: "+err.Error())
				l.notRun, l.err = len(l.scenarios)-i, err
				return
			}
		}
		if l.r.cfg.Progress != nil {
			l.r.mu.Lock()
			l.r.cfg.Progress(s.Name)
			l.r.mu.Unlock()
		}
		l.scenario(ctx, s)
		if l.release != nil {
			l.release()
		}
	}
}

func (l *lane) scenario(ctx context.Context, s *scenario.Scenario) {
	r := l.r
	l.setScenario(s.Name)
	defer l.endScenario(s.Name)
	env := &scenario.Env{
		Peer: l.p, Protocol: r.cfg.Protocol, Timeout: r.cfg.Timeout, Seed: r.cfg.Seed, Params: r.cfg.Params,
		Causes: &l.causes,
		Note:   func(msg string) { r.note("%s", msg) },
		Observe: func(o verdict.Observation) {
			if o.Scenario == "" {
				o.Scenario = s.Name
			}
			l.observe(o)
		},
	}
	env.Restart = func() error {
		l.stop()
		if err := l.start(ctx); err != nil {
			return err
		}
		l.setScenario(s.Name)
		env.Peer = l.p
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
	dead, hung, alive, cause := l.settle(env, err)
	switch {
	case dead:
		p.Check(verdict.CheckSurvives, verdict.Fail, -1, "the server died during this scenario: "+cause,
			"the server keeps running", p.Transport().ExitStatus().String())
	case hung:
		p.Check(verdict.CheckSurvives, verdict.Fail, -1, cause, "the server keeps answering", "no answer")
	case err == nil && !env.Closed && !env.Hung:
		p.Check(verdict.CheckSurvives, verdict.Pass, -1, "", "", "")
	}
	// A scenario that stopped on a finding (an error answer it could not
	// go on from) leaves a server that still answers the probe to the
	// next scenario: a new process would cost a start and show nothing.
	if (err != nil && !alive) || env.Hung || env.Closed || dead || hung {
		l.broken = true
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
		l.observe(verdict.Observation{Rule: id, Verdict: verdict.Error, Scenario: s.Name, Seq: -1, Message: why})
	}
}

// settle looks at the process once a scenario is over, before the next one
// starts (alive: it answered the probe), so a death or a hang is charged to the scenario during which it
// happened rather than to the next one, which would find the server gone.
// It checks whether the process has ended and, where the protocol has a
// probe, whether it still answers it: a server that crashes a moment after
// its last answer (a pending callback torn down by a kill) dies by the
// time the probe is read.
func (l *lane) settle(env *scenario.Env, err error) (dead, hung, alive bool, why string) {
	p := env.Peer
	if env.Closed {
		// The scenario closed stdin: the process is meant to end.
		return false, false, false, ""
	}
	if ended(p) {
		return true, false, false, env.Gone()
	}
	// A scenario that stopped on its own finding (a request left
	// unanswered) has reported it, and the lane restarts; the probe only
	// tells whether the server was hung or left that request alone
	// unanswered, which later waits then need not wait out (Confirm).
	stopped := err != nil || env.Hung
	if env.Hung && !env.Suspected() {
		return false, false, false, ""
	}
	proto := p.Protocol()
	if proto == nil || proto.Probe == nil {
		return false, false, false, ""
	}
	if env.Cause(probeCause) != "" {
		// This server does not answer the probe: asking again would only
		// cost another timeout.
		return false, false, false, ""
	}
	method, _ := proto.Probe[strings.TrimPrefix(proto.Correlation.Method, "/")].(string)
	// A server that answered the probe's method before and now does not
	// has stopped answering; one never seen to answer it may not
	// understand it, which says nothing about this scenario.
	known := p.Answered(method)
	c, serr := env.Send(env.ProbeRequest())
	if serr != nil || c == nil {
		if ended(p) || serr != nil {
			return true, false, false, env.Gone()
		}
		return false, false, false, ""
	}
	_, werr := p.Wait(c, l.r.cfg.Timeout)
	switch {
	case werr == nil:
		env.Confirm()
		return false, false, true, ""
	case stopped && errors.Is(werr, peer.ErrTimeout):
		p.Forget(c)
		return false, false, false, ""
	case errors.Is(werr, peer.ErrTimeout) && !known:
		p.Forget(c)
		env.Learn(probeCause, fmt.Sprintf("the probe request %s (id %s) got no answer within %s (--timeout) after scenario %s", method, c.Key, l.r.cfg.Timeout, p.Scenario()))
		return false, false, false, ""
	case errors.Is(werr, peer.ErrTimeout):
		p.Forget(c)
		return false, true, false, fmt.Sprintf("the server stopped answering during this scenario: the probe request %s (id %s), which it answered before, got no answer within %s (--timeout)", method, c.Key, l.r.cfg.Timeout)
	default:
		return true, false, false, env.Gone()
	}
}

// probeCause is the lane's cause for a server that does not answer the
// probe at all.
const probeCause = "answer to the probe between scenarios"

// ended reports whether the server's output has ended or its process has
// exited.
func ended(p *peer.Peer) bool {
	select {
	case <-p.Gone():
		return true
	case <-p.Transport().Exited():
		return true
	default:
		return false
	}
}

func (r *run) notRun(ss []*scenario.Scenario, why string) {
	for _, s := range ss {
		for _, id := range s.Rules {
			r.observeAny(verdict.Observation{Rule: id, Verdict: verdict.Error, Scenario: s.Name, Seq: -1, Message: why})
		}
	}
}

// observeAny records an observation that has no transcript behind it.
func (r *run) observeAny(o verdict.Observation) {
	(&lane{r: r}).observe(o)
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
	rank := func(k key) int {
		if k.scenario == "startup" {
			return -1
		}
		if i, ok := r.order[k.scenario]; ok {
			return i
		}
		return len(r.order)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return r.aggs[keys[i]].n < r.aggs[keys[j]].n
	})
	covered := map[string]bool{}
	for _, k := range keys {
		a := r.aggs[k]
		rule := p.Rule(k.rule)
		level := verdict.Must
		if rule != nil {
			level = rule.Level
		}
		v := verdictOf(a.counts)
		if v != verdict.Fail && v != verdict.Error {
			o := a.first[v]
			rep.Findings = append(rep.Findings, report.Finding{
				Rule: k.rule, Level: level, Verdict: v, Scenario: k.scenario,
				Message: o.Message, Expected: o.Expected, Actual: o.Actual,
				Count: a.counts[v], Transcript: []transcript.Entry{},
			})
			covered[k.rule] = true
			continue
		}
		// A finding per distinct failure message, each with its count.
		for _, d := range a.distinct {
			if d.Verdict != v {
				continue
			}
			f := report.Finding{
				Rule: k.rule, Level: level, Verdict: v, Scenario: k.scenario,
				Message: d.Message, Expected: d.Expected, Actual: d.Actual,
				Count: d.count, Transcript: d.lane.excerpt(k.scenario, d.Seq),
			}
			if r.cfg.Reproduce != nil {
				f.Reproduce = r.cfg.Reproduce(k.scenario)
			}
			rep.Findings = append(rep.Findings, f)
		}
		covered[k.rule] = true
	}
	rep.Notes = append(rep.Notes, r.notes...)
	r.mu.Unlock()
	d := 0
	for _, l := range r.lanes {
		d += l.rec.Dropped()
	}
	if d > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the transcript was full (%d lines or %d MiB); %d later lines were not recorded", transcript.MaxEntries, transcript.MaxBytes>>20, d))
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
				Rule: ru.ID, Level: ru.Level, Verdict: verdict.Skip, Scenario: "-",
				Message: "no scenario of this run observed the rule", Transcript: []transcript.Entry{},
			})
		}
	}
	rep.Rules = kept
	rep.Tally()
	return rep
}

func verdictOf(c map[verdict.Verdict]int) verdict.Verdict {
	for _, v := range []verdict.Verdict{verdict.Fail, verdict.Error, verdict.Pass, verdict.Skip} {
		if c[v] > 0 {
			return v
		}
	}
	return verdict.Skip
}

// excerpt returns the scenario's transcript lines around the evidence,
// capped at TranscriptLines. The caller holds r.mu.
func (l *lane) excerpt(name string, seq int) []transcript.Entry {
	if l == nil || l.rec == nil {
		return []transcript.Entry{}
	}
	sp, ok := l.spans[name]
	if !ok {
		return []transcript.Entry{}
	}
	from, to := sp.from, sp.to
	if to < 0 {
		to = l.rec.Len()
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
	es := l.rec.Slice(from, to)
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
