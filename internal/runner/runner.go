// Package runner runs a protocol's scenarios against server processes
// (sessions, see package session) and folds what the peer and the
// scenarios observed into a report through a tally: one finding per rule
// per scenario. What is its own is the coordination: which scenarios share
// a process, how many processes start and run at once.
//
// Scenarios run in lanes. A lane begins at the first scenario and at every
// scenario that asks for a fresh process (against a server already
// running, also at every scenario that waits by design); the scenarios
// after it share its process, in order. Lanes are independent, so they
// run at once (up to Config.Jobs): a suite whose slow parts are waits (a
// server that should exit, an answer that should not come) takes as long
// as its slowest lane, not the sum; against a running server a lane whose
// scenario waits on a timer by design lends its place meanwhile (lend).
// Within a lane, a process that died or stopped answering is replaced
// before the next scenario, and its death is a finding of the scenario
// that caused it.
package runner

import (
	"cmp"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/redact"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/shard"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/tally"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Defaults for Config.
const (
	DefaultTimeout        = session.DefaultTimeout
	DefaultStartupTimeout = session.DefaultStartupTimeout
	// DefaultJobs bounds the lanes that run at once. Lanes spend most of
	// their time waiting on the server, so more lanes than cores pay off;
	// eight keeps a run from starting dozens of servers on a laptop.
	DefaultJobs = 8
)

// Config is one run.
type Config struct {
	Protocol *spec.Protocol
	Schemas  *schema.Registry
	// Target is the server: each process of the run is launched from it,
	// and the report names it.
	Target    target.Target
	Scenarios []*scenario.Scenario
	// Timeout bounds each response; StartupTimeout the ready line.
	Timeout        time.Duration
	StartupTimeout time.Duration
	// Jobs bounds the lanes (server processes) that run at once; 0 means
	// DefaultJobs, 1 runs every scenario one after the other. Against a
	// running server it bounds the sessions at work: a lane lends its
	// place while its scenario waits by design (scenario.Env.Idle), and
	// one that declares a wait of a second or more runs beside them.
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
	// Judge makes the protocol's frame judge of each process.
	Judge  peer.NewJudge
	Seed   uint64
	Params map[string]string
	// Rerun is the command line that runs one scenario again, but for its
	// head: the scenario's own, its file for replay, --scenario NAME for
	// run. Nil: findings carry no reproduce line.
	Rerun *target.Rerun
	// Partial says only some of the protocol's scenarios run (--scenario),
	// so rules none of them observed are left out rather than reported as
	// skipped.
	Partial bool
	// Progress, when set, is told how the run goes (from one goroutine
	// at a time), for a live display; never for the report.
	Progress Progress
	// Agreed, when set, is told the revision the server agreed to each
	// time a scenario opened a process's session (scenario.Env.Agree),
	// from any lane.
	Agreed func(revision string)
	// Halt, when set, is asked before each lane starts, and again once it
	// has its place: a reason ends the lane there, its scenarios not run
	// for it, and the run's report says how many (certify: a revision of
	// --revision all the server has answered with another revision of the
	// run, whose column is not judged: its lanes would be spent on
	// findings the report drops).
	Halt func() (why string)
	// Identified, when set, is told the server's own name and version
	// each time a ready line or a scenario states them
	// (scenario.Env.Identify), from any lane.
	Identified func(name, version string)
	// Pool, when set, bounds the lanes and starts of this run together
	// with the other runs that share it (the revisions of --revision all
	// run side by side as lanes do); Jobs and Starts are then its own.
	Pool *Pool
	// Shard, when not the whole, runs only its lanes: lane k (in plan
	// order, the same on every machine) belongs to shard k mod n. Rules
	// no lane of the shard observes are skipped, and `report merge` of
	// all the shards gives the rule verdicts of one whole run.
	Shard shard.Shard
}

// Progress follows a run as it goes: the lanes planned, each scenario as
// it starts on its lane (lanes counted from 0 in plan order), each
// observation, each lane as it ends.
type Progress interface {
	Planned(lanes int)
	Scenario(lane int, name string)
	Observed(o verdict.Observation)
	LaneDone(lane int)
}

// Run executes every scenario and returns the report. The error wraps
// session.ErrNotStarted (a *session.NotStarted) when the target never
// started; the report is still returned, saying what was not run.
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
		if running(cfg.Target) {
			// Nothing is launched: a lane's start is a connection, and
			// holding one back until another's server has spoken only
			// delays it.
			cfg.Starts = cfg.Jobs
		}
	}
	var verr error
	if v := cfg.Protocol.Versions; v != nil {
		// A versioned protocol: --param <v.Param>=ID picks the
		// revision whose kinds and schemas judge the run.
		p, err := cfg.Protocol.ForVersion(cfg.Params[v.Param])
		if err != nil {
			verr = err
		} else {
			cfg.Protocol = p
		}
	}
	if verr == nil {
		// The transport decides which rules the run judges (and which the
		// report lists as skipped, "stdio only", "HTTP only").
		if p, err := cfg.Protocol.ForTransport(cfg.Target.Transport); err != nil {
			verr = err
		} else {
			cfg.Protocol = p
		}
	}
	if cfg.Pool == nil {
		cfg.Pool = session.NewPool(cfg.Jobs, cfg.Starts)
	}
	r := &run{cfg: cfg, tally: tally.New(cfg.Protocol, cfg.Rules), started: time.Now(), order: map[string]int{}, startFailed: make(chan struct{})}
	if jobs := cfg.Pool.Jobs(); cfg.Target.FixedPort() && jobs > 1 {
		// Each lane launches its own process; on one port the second
		// would find it taken (or, worse, talk to the first's server).
		// Runs that share a pool share this one's port too: the pool
		// must hold one lane (certify makes it so).
		r.cfg.Jobs, r.cfg.Pool = 1, cfg.Pool.WithJobs(1)
		r.tally.Note("--url names a fixed port for the launched server, so its processes run one at a time (--jobs 1); put {port} in --url to run %d at once", jobs)
	}
	if d := cfg.Target.Detected; d != "" {
		r.tally.Note("--url without --transport: %s; judged over --transport %s", d, cfg.Target.Kind())
	}
	if verr != nil {
		return r.report(), verr
	}
	if cfg.Schemas != nil {
		// Every schema the run judges by, compiled as the lanes start: the
		// decoded documents a compiler keeps for later compiles then go,
		// rather than stay live beside the compiled schemas all run. Not
		// before the lanes: the revisions of --revision all compile theirs
		// one after the other (one registry), and the lane that waits
		// longest (a task the server runs for seconds) would start that
		// much later, behind the quick lanes of the revisions compiled
		// first; its first frames wait for the schemas they need.
		settled := make(chan struct{})
		go func() {
			defer close(settled)
			cfg.Schemas.Settle(judgedSchemas(cfg.Protocol))
		}()
		defer func() { <-settled }()
	}
	err := r.all(ctx)
	return r.report(), err
}

// judgedSchemas are the schemas the peer judges a run's frames by: its
// kinds' and its frame rules'.
func judgedSchemas(p *spec.Protocol) []string {
	var out []string
	for _, k := range p.Kinds {
		if k.Schema != "" {
			out = append(out, k.Schema)
		}
	}
	for _, r := range p.Rules {
		if r.Frames != nil && r.Frames.Schema != "" && r.AppliesTo(p.Version) {
			out = append(out, r.Frames.Schema)
		}
	}
	return out
}

// Pool is the lanes and starts that several runs at once share: the
// session pool fuzz runs its lanes in too.
type Pool = session.Pool

// NewPool bounds the runs that share it to jobs lanes and starts server
// processes starting at once (0: one per CPU).
func NewPool(jobs, starts int) *Pool { return session.NewPool(jobs, starts) }

type span struct{ from, to int }

// run is the state the lanes share: the tally and the start tokens.
type run struct {
	cfg Config
	// ctx is the run's: once it is done (an interrupt), nothing is judged
	// any more. Ending the servers is what ends the scenarios under way,
	// and what follows from that (a server that exits as its stdin
	// closes, a wait cut short) is no verdict on the server.
	ctx     context.Context
	tally   *tally.Tally
	started time.Time
	// haltedScenarios counts the scenarios Halt kept from running, for
	// the first reason it gave (haltWhy).
	haltedScenarios atomic.Int64
	haltWhy         atomic.Pointer[string]
	// order ranks scenarios by their place in the suite, so the report
	// reads the same however the lanes interleaved.
	order map[string]int

	// startFailed is closed when a server process of the run could not be
	// started or never became ready (startErr says why): the processes
	// still starting are not waited out one startup timeout each.
	startFailed chan struct{}
	startOnce   sync.Once
	startErr    error

	lanes []*lane
	// progress keeps Config.Progress to one goroutine at a time.
	progress sync.Mutex
}

// lane is one sequence of scenarios sharing server processes, with its own
// transcript.
type lane struct {
	r         *run
	id        int // its place in the plan, for Progress
	scenarios []*scenario.Scenario
	// next is the scenario the lane launches its next process for.
	next   string
	rec    *transcript.Recorder
	mu     sync.Mutex
	spans  map[string]span // guarded by mu
	cur    string          // guarded by mu
	s      *session.Session
	broken bool // the current process must be replaced before the next scenario
	// live is the current peer for the interrupt watcher, which runs on
	// another goroutine than the one that owns s.
	live atomic.Pointer[peer.Peer]
	// causes is what the lane's waits learned: later waits on a known
	// cause end at once (see scenario.Causes).
	causes scenario.Causes
	// notRun counts the scenarios the lane could not run, and why; cut
	// is set when an interrupt ended one under way.
	notRun int
	cut    bool
	err    error
	// begun is closed once the lane has got its first start token (or
	// ended without one): lanes start in order.
	begun     chan struct{}
	beginOnce sync.Once
	// release gives back the start token of the current process.
	release func()
	// dropped is the transcript's lines not recorded for want of room,
	// counted when the lane settled.
	dropped int
	// slot frees the lane's place in the pool; nil while it is lent (a
	// scenario waiting by design, see lend) or when it holds none.
	slotMu sync.Mutex
	slot   func()
	// lends is set when the lane lends its place while its scenarios
	// wait by design: against a running server, on a pool of more than
	// one lane.
	lends bool
	// apart is set when the lane runs beside the pool's bounds (laneFor):
	// it takes no start token either.
	apart bool
}

// resumed is the wait a lane declares as it asks for its place back after
// a wait by design: of the lanes waiting for one, it goes first, so the
// sessions begun end before more begin.
const resumed = time.Duration(math.MaxInt64)

// lend gives the lane's place in the pool to another lane while its
// scenario waits by design (scenario.Env.Idle), and returns the function
// that takes a place back. A wait by design (a pause before
// notifications/initialized, the silence after a notification) loads
// neither the server nor wirecheck: against a running server a run of
// 135 lanes, most of which keep such a wait, had --jobs of them waiting
// at once while the machine idled (docs/official-suite.md, session 16).
// The place taken back may come later than the wait's end, never before.
// A launched server's lanes do not lend: --jobs bounds its processes.
func (l *lane) lend(ctx context.Context) (over func()) {
	l.slotMu.Lock()
	free := l.slot
	if !l.lends || free == nil {
		l.slotMu.Unlock()
		return func() {}
	}
	l.slot = nil
	l.slotMu.Unlock()
	free()
	if l.release != nil {
		// A session that has not spoken yet holds a start too.
		l.release()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			back, ok := l.r.cfg.Pool.LaneFor(ctx, resumed)
			if !ok {
				// Interrupted: the lane ends its scenario without a place.
				return
			}
			l.slotMu.Lock()
			l.slot = back
			l.slotMu.Unlock()
		})
	}
}

// freeSlot frees the lane's place in the pool, if it holds one.
func (l *lane) freeSlot() {
	l.slotMu.Lock()
	free := l.slot
	l.slot = nil
	l.slotMu.Unlock()
	if free != nil {
		free()
	}
}

func (l *lane) begin() { l.beginOnce.Do(func() { close(l.begun) }) }

// settle hands the tally the excerpts of the lane's failures, cut now
// that its scenarios have ended, and lets its transcript go: the report
// is made once every lane has ended, and a run of every revision has
// some 135 lanes.
func (l *lane) settle() {
	l.dropped = l.rec.Dropped()
	l.r.tally.Settle(l)
	l.mu.Lock()
	l.rec = nil
	l.mu.Unlock()
}

// idle is how long the lane waits on its servers by design: what its
// scenarios declare, and the silences, exit deadlines and sleeps of their
// steps. A scenario none of whose rules holds on the run's transport
// (shutdown over HTTP) skips them and waits on nothing. One whose rules
// are of other revisions may still wait: against a server that falls
// back to a revision it speaks, it runs at that one.
func (l *lane) idle() time.Duration {
	var d time.Duration
	for _, s := range l.scenarios {
		if l.r.offTransport(s) {
			continue
		}
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

func (r *run) selected(rule string) bool { return r.tally.Selected(rule) }

func (l *lane) observe(o verdict.Observation) {
	if l.r.stopped() {
		return
	}
	if o.Scenario == "" {
		l.mu.Lock()
		o.Scenario = l.cur
		l.mu.Unlock()
	}
	l.r.tally.Observe(o, l)
	l.r.tell(func(p Progress) { p.Observed(o) })
}

// start launches a server process and waits for its ready line when the
// protocol has one. Observations go to the scenario "startup".
func (l *lane) start(ctx context.Context) error {
	r := l.r
	release, ok := func() {}, ctx.Err() == nil
	if !l.apart {
		release, ok = r.cfg.Pool.Start(ctx, r.startFailed)
	}
	l.begin()
	if !ok {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.startErr
	}
	select {
	case <-r.startFailed:
		// The token came free because another start failed.
		release()
		return r.startErr
	default:
	}
	st := r.cfg.Protocol.Startup
	scen := ""
	if st == nil && r.cfg.Target.Client && l.next != "" {
		// A client under test speaks first (it opens its session as it
		// connects): what it sends is the scenario's it is launched for.
		scen = l.next
		l.setScenario(scen)
	}
	if st != nil {
		// Named before the launch, not after: the peer empties its inbox
		// when a scenario is set, and a server that is quick (or a runner
		// that is slow, under load) has its ready line there by then.
		scen = "startup"
		l.setScenario(scen)
	}
	from := l.rec.Len()
	s, err := session.Launch(session.Options{
		Target: r.cfg.Target, Protocol: r.cfg.Protocol, Schemas: r.cfg.Schemas,
		Recorder: l.rec, Observe: l.observe, Handler: r.cfg.Handler, Judge: r.cfg.Judge,
		Timeout: r.cfg.Timeout, StartupTimeout: r.cfg.StartupTimeout,
		// Another process that never became ready ends this one's wait.
		Abort:      r.startFailed,
		Scenario:   scen,
		Identified: r.cfg.Identified,
	})
	if errors.Is(err, session.ErrAborted) {
		release()
		return r.startErr
	} else if err != nil {
		release()
		return r.failStart(err)
	}
	p := s.Peer()
	if launched != nil {
		launched(p)
	}
	l.release = release
	// The token goes back when the server has said something, has gone,
	// has read what it was sent, or has had its startup timeout (a server
	// with a ready line has it when its wait below ends); the scenario's
	// end gives it back too.
	var startup <-chan time.Time
	var took <-chan struct{}
	stop := make(chan struct{})
	if st == nil {
		startup = time.After(r.cfg.StartupTimeout)
		took = tookInput(p, l.rec, from, stop)
	}
	go func() {
		select {
		case <-p.Heard():
		case <-p.Gone():
		case <-took:
		case <-startup:
		}
		close(stop)
		release()
	}()
	l.s, l.broken = s, false
	l.live.Store(p)
	if st == nil {
		return nil
	}
	switch err := s.AwaitReady(); {
	case errors.Is(err, session.ErrAborted):
		return r.startErr
	case err != nil:
		err = r.failStart(err)
		release()
		return err
	}
	return nil
}

// tookInput is closed once the process has read every byte written to
// it, at least one line of which was (the recorder's entries from from on
// are its own): a server without a ready line that reads its input has
// started, though it may answer nothing for --timeout (a request it
// drops). Holding its start token until it speaks would let such a
// server's silence hold back every other lane's start, one timeout each.
// Nil when the transport cannot tell (HTTP); stop ends the watch.
func tookInput(p *peer.Peer, rec *transcript.Recorder, from int, stop <-chan struct{}) <-chan struct{} {
	ra, ok := p.Transport().(transport.ReadAwaiter)
	if !ok {
		return nil
	}
	took := make(chan struct{})
	go func() {
		wait, wrote := time.Millisecond, false
		for {
			if n := rec.Len(); !wrote && from < n {
				wrote, from = sentSince(rec, from), n
			}
			// AwaitRead(0) looks once: is the pipe empty now?
			if wrote && ra.AwaitRead(0) {
				close(took)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 20*time.Millisecond)
		}
	}()
	return took
}

// sentSince reports whether a line was written to the server from the
// recorder's entry from on.
func sentSince(rec *transcript.Recorder, from int) bool {
	for _, en := range rec.Slice(from, -1) {
		if en.Dir == transcript.Sent {
			return true
		}
	}
	return false
}

// launched, when set (by tests), sees each peer as soon as its process is
// launched, before the wait for its ready line: a test can hold the lane
// there as a loaded machine would.
var launched func(*peer.Peer)

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
	l.mu.Lock()
	l.cur = name
	if _, ok := l.spans[name]; !ok {
		l.spans[name] = span{from: l.rec.Len(), to: -1}
	}
	l.mu.Unlock()
	if l.s != nil {
		l.s.Peer().SetScenario(name)
	} else {
		l.rec.SetScenario(name)
	}
}

func (l *lane) endScenario(name string) {
	l.mu.Lock()
	sp := l.spans[name]
	sp.to = l.rec.Len()
	l.spans[name] = sp
	l.mu.Unlock()
}

func (l *lane) stop() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
	if l.s != nil {
		l.s.Close()
		l.s = nil
	}
}

// lanes cuts the selected scenarios into lanes: a new lane at the start
// and at every scenario that wants a fresh process; against a running
// server, one lane per scenario.
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
	// Against a running server a lane costs a session, not a process:
	// every scenario gets a lane of its own, so the run takes as long as
	// its longest scenario (a wait by design among them), not their sum,
	// --jobs bounding how many sessions run at once; and a scenario's
	// verdicts do not hang on which scenarios shared its session before.
	apart := running(r.cfg.Target)
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
		if r.cfg.Target.Client && s.Fresh && r.noneApplies(s) {
			// A client speaks as it connects: launched for a scenario
			// none of whose rules holds in this run, what it sends would
			// be judged by the frame judge in a scenario that asked it
			// nothing, sooner or later as its start goes. It is not
			// launched; the spec says why each rule is not judged.
			for _, id := range s.Rules {
				if r.selected(id) {
					r.observeAny(verdict.Observation{Rule: id, Verdict: verdict.Skip, Scenario: s.Name, Seq: -1, Message: r.cfg.Protocol.WhyNotApplied(r.cfg.Protocol.Rule(id))})
				}
			}
			continue
		}
		if len(out) == 0 || s.Fresh || apart {
			rec := transcript.NewRecorderAt(r.started, budget)
			rec.SetRedactor(redact.Text)
			out = append(out, &lane{r: r, rec: rec, spans: map[string]span{}, begun: make(chan struct{})})
		}
		l := out[len(out)-1]
		l.scenarios = append(l.scenarios, s)
	}
	if r.cfg.Shard.Whole() {
		return out
	}
	var mine []*lane
	for k, l := range out {
		if r.cfg.Shard.Has(k) {
			mine = append(mine, l)
		}
	}
	r.tally.Note("shard %s: %d of the run's %d lanes (server processes); merge the shards' JSON reports with 'wirecheck report merge'", r.cfg.Shard, len(mine), len(out))
	return mine
}

// numbered gives each lane its place in the plan.
func numbered(ls []*lane) []*lane {
	for i, l := range ls {
		l.id = i
	}
	return ls
}

// running reports whether the target is a server already running (--url
// alone): the run launches no process.
func running(t target.Target) bool { return len(t.Argv) == 0 && t.URL != "" }

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

// stopped reports whether the run was interrupted: from then on nothing
// is judged.
func (r *run) stopped() bool { return r.ctx != nil && r.ctx.Err() != nil }

// interrupted is why the scenarios an interrupt left have no verdict.
const interrupted = "not judged: the run was interrupted before this scenario ran"

func (r *run) all(ctx context.Context) error {
	r.ctx = ctx
	r.lanes = numbered(r.plan())
	r.tell(func(p Progress) { p.Planned(len(r.lanes)) })
	if err := r.reach(); err != nil {
		return err
	}
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
	// The lanes with the longest waits start first (and the pool hands a
	// free lane to the waiting lane with the longest wait of all the runs
	// that share it: LaneFor); each lane starts once the one before it
	// has its first start token.
	idle := make(map[*lane]time.Duration, len(r.lanes))
	for _, l := range r.lanes {
		idle[l] = l.idle()
	}
	order := slices.Clone(r.lanes)
	slices.SortStableFunc(order, func(a, b *lane) int { return cmp.Compare(idle[b], idle[a]) })
	var wg sync.WaitGroup
	for _, l := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.settle()
			defer l.begin()
			if r.halted(l) {
				return
			}
			closed, ok := r.cfg.Pool.Open(ctx)
			if ok {
				defer closed()
			}
			free, pooled, ok := r.laneFor(ctx, idle[l])
			if !ok {
				l.r.notRun(l.scenarios, interrupted)
				l.notRun = len(l.scenarios)
				return
			}
			if r.halted(l) {
				free()
				return
			}
			l.slot, l.apart = free, !pooled
			l.lends = pooled && running(r.cfg.Target) && r.cfg.Pool.Jobs() > 1
			defer l.freeSlot()
			l.run(ctx)
		}()
		<-l.begun
	}
	wg.Wait()
	if n := r.haltedScenarios.Load(); n > 0 {
		r.tally.Note("%d scenario(s) not run: %s", n, *r.haltWhy.Load())
	}
	if ctx.Err() != nil {
		n, cut := 0, 0
		for _, l := range r.lanes {
			n += l.notRun
			if l.cut {
				cut++
			}
		}
		r.tally.Note("interrupted: %d scenario(s) cut short and %d not run; their rules have no verdict from them", cut, n)
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
		r.tally.Note("%v; %d scenario(s) not run", first, n)
	}
	return first
}

// halted reports whether Halt ends the lane before it starts, and if so
// records its scenarios as not run for the reason Halt gives.
func (r *run) halted(l *lane) bool {
	if r.cfg.Halt == nil {
		return false
	}
	why := r.cfg.Halt()
	if why == "" {
		return false
	}
	r.haltWhy.CompareAndSwap(nil, &why)
	r.notRun(l.scenarios, "not run: "+why)
	r.haltedScenarios.Add(int64(len(l.scenarios)))
	return true
}

// longWait is the declared wait from which a lane against a running
// server takes no lane of the pool.
const longWait = time.Second

// laneFor waits for a lane of the pool for a lane that declared the given
// wait, and returns the function that frees it. Against a running server
// (--jobs above 1) a lane that waits a second or more by design starts at
// once, beside the lanes the pool bounds: it holds a session, not a
// process, and mostly waits, and its wait is the run's floor (a task the
// server runs for seconds), so it should start first. The pool hands a
// free lane to the longest waiter, but the revisions of --revision all
// plan and ask at their own pace, and whichever asked first had filled
// the pool with quick lanes: against a server whose requests queue on one
// thread, the first to come free did so some 200 ms into the run.
// pooled says whether the lane holds a place of the pool.
func (r *run) laneFor(ctx context.Context, wait time.Duration) (free func(), pooled, ok bool) {
	if wait >= longWait && running(r.cfg.Target) && r.cfg.Pool.Jobs() > 1 {
		if ctx.Err() != nil {
			return nil, false, false
		}
		return nil, false, true
	}
	free, ok = r.cfg.Pool.LaneFor(ctx, wait)
	return free, ok, ok
}

// reach makes the run's first connection to a running server (--url
// alone) before any lane opens a session (session.Reach): when it fails,
// no scenario runs, each is reported not run, and the error ends the run
// as one whose server never started. Lanes dial on their own afterwards:
// a server gone since is a finding of the scenarios it fails.
func (r *run) reach() error {
	if len(r.lanes) == 0 {
		return nil
	}
	// An interrupt during the try leaves the lanes to report their
	// scenarios as the interrupt left them.
	err := session.Reach(r.ctx, r.cfg.Target, r.cfg.Timeout)
	if err == nil {
		return nil
	}
	n := 0
	for _, l := range r.lanes {
		r.notRun(l.scenarios, "not run: "+err.Error())
		l.notRun, l.err = len(l.scenarios), err
		n += len(l.scenarios)
		r.tell(func(p Progress) { p.LaneDone(l.id) })
	}
	r.tally.Note("%v; %d scenario(s) not run", err, n)
	return err
}

func (l *lane) run(ctx context.Context) {
	defer l.r.tell(func(p Progress) { p.LaneDone(l.id) })
	defer l.stop()
	for i, s := range l.scenarios {
		if ctx.Err() != nil {
			l.r.notRun(l.scenarios[i:], interrupted)
			l.notRun = len(l.scenarios) - i
			return
		}
		if l.s == nil || l.broken {
			l.stop()
			l.next = s.Name
			if err := l.start(ctx); err != nil {
				l.endScenario("startup")
				if ctx.Err() != nil {
					l.r.notRun(l.scenarios[i:], interrupted)
					l.notRun = len(l.scenarios) - i
					return
				}
				l.r.notRun(l.scenarios[i:], "not run: "+err.Error())
				l.notRun, l.err = len(l.scenarios)-i, err
				return
			}
		}
		l.r.tell(func(p Progress) { p.Scenario(l.id, s.Name) })
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
	env := l.s.Env()
	env.Seed, env.Params, env.Causes = r.cfg.Seed, r.cfg.Params, &l.causes
	env.Note = func(msg string) { r.tally.Note("%s", msg) }
	env.Agreed = r.cfg.Agreed
	env.Identified = r.cfg.Identified
	env.Waiting = func() func() { return l.lend(ctx) }
	env.Observe = func(o verdict.Observation) {
		if o.Scenario == "" {
			o.Scenario = s.Name
		}
		l.observe(o)
	}
	env.Restart = func() error {
		l.stop()
		l.next = s.Name
		if err := l.start(ctx); err != nil {
			return err
		}
		l.setScenario(s.Name)
		env.SetPeer(l.s.Peer())
		return nil
	}
	from, dropped := l.rec.Len(), l.rec.Dropped()
	err := s.Execute(env)
	p := env.Peer()
	if r.stopped() {
		// Whatever the scenario saw after the interrupt ended its server
		// is not the server's doing: the rules it had not yet decided get
		// no verdict from it.
		l.cut = true
		for _, id := range s.Rules {
			if r.selected(id) && !r.tally.Seen(s.Name, id) {
				r.observeAny(verdict.Observation{Rule: id, Verdict: verdict.Skip, Scenario: s.Name, Seq: -1,
					Message: "not judged: the run was interrupted during this scenario"})
			}
		}
		return
	}
	// Requests nobody waited for get their full timeout, then count as
	// unanswered.
	if err == nil {
		for _, c := range p.InFlight() {
			if _, werr := env.Await(c, time.Until(c.SentAt.Add(r.cfg.Timeout))); werr != nil {
				break
			}
		}
	}
	var h session.Health
	if err == nil && !env.Hung && !env.Closed && !session.Ended(p) && l.rec.Dropped() == dropped && !sentSince(l.rec, from) {
		// The scenario sent the process nothing (it skipped every rule
		// for this revision or transport; a full transcript would not
		// tell, so then it is probed): it cannot have broken it, and
		// the probe would only ask what the last one asked, at the cost of
		// --timeout against a server that does not answer the probe.
		h = session.Untouched()
	} else {
		h = session.Probe(env, err)
	}
	switch v, judged := h.Survival(); {
	case !judged:
	case h.State == session.Dead:
		p.Check(verdict.CheckSurvives, v, -1, "the server died during this scenario: "+h.Why,
			"the server keeps running", p.Transport().ExitStatus().String())
	case h.State == session.Hung:
		p.Check(verdict.CheckSurvives, v, -1, h.Why, "the server keeps answering", "no answer")
	default:
		p.Check(verdict.CheckSurvives, v, -1, "", "", "")
	}
	if !h.Keep {
		l.broken = true
	}
	// A declared rule nothing observed: the scenario stopped early, or the
	// fixture checks less than it claims.
	why, unobserved := "the scenario never checked it (a fixture that declares a rule must check it)", verdict.Error
	switch {
	case err != nil && h.State == session.Dead && r.judgesSurvival(p):
		// The crash is the finding, once, under the rule that the server
		// keeps running: what it kept the scenario from observing is no
		// second finding of the same cause.
		why, unobserved = "not observed: the server died during the scenario (the crash is reported under the rule that the server keeps running): "+h.Why, verdict.Skip
	case err != nil:
		why = "not observed: the scenario stopped early: " + err.Error()
	}
	for _, id := range s.Rules {
		if !r.selected(id) || r.tally.Seen(s.Name, id) {
			continue
		}
		// The spec decides applicability (versions:, transports:), once,
		// here: a scenario need not skip a rule that is no rule of the run.
		if whyNot := r.cfg.Protocol.WhyNotApplied(r.cfg.Protocol.Rule(id)); whyNot != "" {
			l.observe(verdict.Observation{Rule: id, Verdict: verdict.Skip, Scenario: s.Name, Seq: -1, Message: whyNot})
			continue
		}
		l.observe(verdict.Observation{Rule: id, Verdict: unobserved, Scenario: s.Name, Seq: -1, Message: why})
	}
}

// noneApplies reports whether no rule s declares holds in the run
// (versions:, transports:).
func (r *run) noneApplies(s *scenario.Scenario) bool {
	for _, id := range s.Rules {
		if r.cfg.Protocol.WhyNotApplied(r.cfg.Protocol.Rule(id)) == "" {
			return false
		}
	}
	return len(s.Rules) > 0
}

// offTransport reports whether no rule s declares holds on the run's
// transport.
func (r *run) offTransport(s *scenario.Scenario) bool {
	for _, id := range s.Rules {
		if ru := r.cfg.Protocol.Rule(id); ru == nil || ru.AppliesOn(r.cfg.Protocol.Transport) {
			return false
		}
	}
	return len(s.Rules) > 0
}

// judgesSurvival reports whether a selected rule of the process's
// protocol reports the server dying (verdict.CheckSurvives): only then is
// a crash a finding of its own.
func (r *run) judgesSurvival(p *peer.Peer) bool {
	proto := r.cfg.Protocol
	if p != nil && p.Protocol() != nil {
		proto = p.Protocol()
	}
	for _, ru := range proto.RulesForCheck(verdict.CheckSurvives) {
		if r.selected(ru.ID) {
			return true
		}
	}
	return false
}

// notRun records the declared rules of scenarios that did not run: an
// error (the harness could not tell) when something failed, a skip when
// an interrupt left them, which says nothing of the server.
func (r *run) notRun(ss []*scenario.Scenario, why string) {
	v := verdict.Error
	if r.stopped() {
		v = verdict.Skip
	}
	for _, s := range ss {
		for _, id := range s.Rules {
			r.observeAny(verdict.Observation{Rule: id, Verdict: v, Scenario: s.Name, Seq: -1, Message: why})
		}
	}
}

// observeAny records an observation that has no transcript behind it.
func (r *run) observeAny(o verdict.Observation) {
	r.tally.Observe(o, nil)
	r.tell(func(p Progress) { p.Observed(o) })
}

// tell gives the run's Progress one event, one at a time.
func (r *run) tell(f func(Progress)) {
	if r.cfg.Progress == nil {
		return
	}
	r.progress.Lock()
	defer r.progress.Unlock()
	f(r.cfg.Progress)
}

func (r *run) report() *report.Report {
	d := 0
	for _, l := range r.lanes {
		d += l.dropped
	}
	if d > 0 {
		r.tally.Note("the transcript was full (%d lines or %d MiB); %d later lines were not recorded", transcript.MaxEntries, transcript.MaxBytes>>20, d)
	}
	unobserved := tally.SkipUnobserved
	if r.cfg.Partial {
		unobserved = tally.DropUnobserved
	}
	o := tally.Options{Target: r.cfg.Target.String(), Started: r.started, Order: r.order, Unobserved: unobserved}
	if r.cfg.Rerun != nil {
		o.Reproduce = func(scenario, _ string) string { return r.reproduce(scenario) }
	}
	return r.tally.Report(o)
}

// Excerpt returns the scenario's transcript lines around the evidence,
// cut by tally.Window: the lane is the tally's Source of its observations.
func (l *lane) Excerpt(name string, seq int) []transcript.Entry {
	l.mu.Lock()
	sp, ok := l.spans[name]
	rec := l.rec
	l.mu.Unlock()
	if !ok || rec == nil {
		// Settled: an observation made after its lane ended (by none of
		// its scenarios) has no lines of its own.
		return nil
	}
	to := sp.to
	if to < 0 {
		to = rec.Len()
	}
	from, to := tally.Window(sp.from, to, seq)
	return rec.Slice(from, to)
}
