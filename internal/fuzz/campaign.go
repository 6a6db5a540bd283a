package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/shard"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Defaults for Config.
const (
	DefaultRuns       = 100
	DefaultMaxActions = 12
	DefaultTimeout    = 2 * time.Second
	DefaultShrinkTime = 30 * time.Second
	// DefaultCap bounds a campaign Runs sets and no Duration does: each
	// failure adds up to ShrinkTime and each sequence waits on a slow
	// server, so 200 runs against a real MCP server once took 16 minutes.
	// A campaign in CI must end; the summary says when the cap, not
	// Runs, ended it.
	DefaultCap = 10 * time.Minute
	// DefaultFreshEvery is how many sequences one server process serves
	// before a fresh one replaces it (it is replaced sooner after a
	// failure, a hang or closed stdin). Measured on the sonde-serve
	// reference server (BenchmarkFreshEvery, 500 sequences, 2 cores): 1
	// gives 121 messages/s, 10 gives 1,039, and 50, 200 and 1,000 all
	// give 970 to 1,450 (noise): past some 15, the sequences that close
	// stdin (then one in 12) replaced processes first. Now that one in
	// 400 does once the server exits cleanly (rareCloseOdds), a process
	// serves up to this many: 200 bounds the history a failure that
	// needs it is shrunk from, at one start per 2,000 messages or so.
	DefaultFreshEvery = 200
	// batch is how many sequences one rapid.Check runs; a failure ends a
	// batch, and the next starts from a seed derived from the last.
	batch = 50
)

// Config is one campaign.
type Config struct {
	Protocol *spec.Protocol
	Schemas  *schema.Registry
	// Target is the server: every process of the campaign is launched
	// from it, and reports and reproducers name it.
	Target  target.Target
	Handler peer.Handler
	// Judge makes the protocol's frame judge of each process, the one
	// run and replay use.
	Judge peer.NewJudge
	// Runs is how many sequences to generate (shrinking not counted:
	// each failure adds up to ShrinkTime); 0 for none but Duration's
	// bound. Duration bounds the whole campaign, with Runs or alone:
	// generation stops at it, and shrinking is cut off at it (the
	// sequence saved as far as it got); DefaultCap with Runs alone.
	Runs     int
	Duration time.Duration
	Seed     uint64
	// MaxActions bounds the actions of one sequence.
	MaxActions     int
	Timeout        time.Duration
	StartupTimeout time.Duration
	// ShrinkTime bounds the shrinking of one failure (within Duration).
	ShrinkTime time.Duration
	// MaxFailures, when positive, ends the campaign once it has found this
	// many distinct failures, each shrunk and saved (a CI job that gates
	// on the first failure need not wait for the rest of the budget).
	MaxFailures int
	// FreshEvery is how many sequences one server process serves at most
	// (DefaultFreshEvery when 0; 1 starts a process per sequence).
	FreshEvery int
	// Jobs is how many sequences run side by side, each on a session of
	// its own (a lane, as run's --jobs); 0 means 1. Sequence i of a batch
	// is drawn from the batch's seed and i alone, and the failure reported
	// is the lowest-numbered one, so what a seed finds does not depend on
	// Jobs or on how the lanes interleave (but for a failure that shows
	// only after the history of its process, which the lanes share out).
	Jobs int
	// Pool, when set, bounds the campaign's lanes and starts together
	// with whatever else shares it; else the campaign has one of Jobs
	// lanes.
	Pool *session.Pool
	// Now, when set, is the clock the budgets are measured by (tests);
	// the wall clock otherwise, which also ends a sequence still running
	// when Duration is spent.
	Now func() time.Time
	// Level is the lowest rule level whose failure counts as a finding;
	// Rules, when set, narrows the rules that count (path.Match globs).
	Level verdict.Level
	Rules []string
	// Replay, when set, is the command line that replays a saved
	// reproducer file with the campaign's settings; the file's comment
	// carries it.
	Replay func(file string) string
	// Trace, when set, is told the steps of every sequence as it ends (for
	// tests of reproducibility).
	Trace func(steps []scenario.Step)
	// Recorded, when set, is told the transcript of every server process
	// as it closes (benchmarks replay what was sent).
	Recorded func([]transcript.Entry)
	// Shard, when not the whole, runs this machine's part of a campaign
	// spread over several: batch k of the seed chain (each batch's seed
	// derived from the last) is shard k mod n's, so shards never draw
	// the same sequences; Runs is shared out among them.
	Shard shard.Shard
}

// Bug is one distinct failure: a rule broken after one shape of action.
type Bug struct {
	Rule  string
	Level verdict.Level
	Shape string
	// Hits is how many sequences broke the rule after that shape.
	Hits int
	// First is the observation of the minimal (shrunk) sequence, Steps its
	// actions and Transcript what was exchanged.
	First      verdict.Observation
	Steps      []scenario.Step
	Transcript []transcript.Entry
	Seed       uint64
	// Shrunk is how long shrinking took; Unshrunk, when set, says why it
	// stopped before the sequence was minimal (a budget ran out), and
	// Stop the same in a few words ("budget spent", "interrupted").
	// Found is how many steps the failing sequence had as first found.
	Shrunk   time.Duration
	Unshrunk string
	Stop     string
	Found    int
	// History is set when the failure showed only after earlier
	// sequences on the same process: Steps carry that history, shrunk.
	History bool
	// File is where the reproducer was saved, if it was.
	File string
}

// Stats is the live state of a campaign.
type Stats struct {
	Sequences int64
	Messages  int64
	Bugs      int
	Elapsed   time.Duration
	// Shrinking is the part of Elapsed spent shrinking failures (finished
	// ones); the rest generated and ran new sequences.
	Shrinking time.Duration
	// Cut counts failures whose shrinking a budget cut off.
	Cut int
	// Starts counts the server processes started; Unconfirmed the
	// failures on a kept process that a fresh one did not show again,
	// alone or after the same history (not reported).
	Starts      int64
	Unconfirmed int64
	// Stopped is set when MaxFailures ended the campaign before its budget.
	Stopped bool
	// Generated counts the new sequences (not shrinking's reruns), Runs
	// the ones asked for (this shard's share; 0: Duration alone), and
	// Capped is set when Duration (Cap) ended the campaign before them.
	Generated int64
	Runs      int
	Cap       time.Duration
	Capped    bool
}

// Shrinking says how far a reproducer was shrunk, as its file's header
// and the summary say it: a reproducer that is not minimal says so.
func (b *Bug) Shrinking() string {
	n, found := len(b.Steps), max(b.Found, len(b.Steps))
	switch {
	case b.Stop == "":
		return fmt.Sprintf("shrunk to %d steps (from %d; shrinking finished)", n, found)
	case n < found:
		return fmt.Sprintf("shrunk to %d steps (from %d; shrinking stopped: %s)", n, found, b.Stop)
	}
	return fmt.Sprintf("not shrunk (shrinking stopped: %s): the %d steps as found", b.Stop, n)
}

// Campaign runs sequences until its budget is spent.
type Campaign struct {
	cfg     Config
	ctx     context.Context
	started time.Time

	request        *jsonschema.Schema
	validRequest   *rapid.Generator[any]
	invalidRequest *rapid.Generator[gen.Mutation]
	// requests are the methods the revision and its extensions define
	// (spec.FuzzRequest), drawn beside the generic request.
	requests []*methodRequests
	// results draw the results of the model's frames that name a schema
	// (spec.FuzzFrame.Result), by the frame.
	results map[*spec.FuzzFrame]*rapid.Generator[any]

	sequences atomic.Int64
	generated atomic.Int64
	messages  atomic.Int64
	starts    atomic.Int64
	// stopped is set once MaxFailures distinct failures were found;
	// capped once Duration ended a campaign before its Runs.
	stopped atomic.Bool
	capped  atomic.Bool
	// cleanExits counts the sequences that closed stdin and saw the
	// server exit as the rules ask; odds is the batch's closeOdds.
	cleanExits atomic.Int64
	odds       int
	// unconfirmed counts failures a fresh process did not show again.
	unconfirmed atomic.Int64
	// pool bounds the lanes and the starts; spares are the fresh
	// processes starting meanwhile; lanes run the sequences, shrinker
	// reruns a failure's while it is shrunk.
	pool     *session.Pool
	spares   *session.Spares[*proc]
	lanes    []*lane
	shrinker *lane
	// inUse are the processes taken from the spares and not yet closed;
	// ended is set once the ctx is done (both guarded by mu).
	inUse map[*proc]struct{}
	ended bool
	// trace keeps Config.Trace to one lane at a time.
	trace sync.Mutex
	// closing counts the processes being closed in the background
	// (retire).
	closing sync.WaitGroup

	mu    sync.Mutex
	bugs  map[[2]string]*Bug
	order []*Bug
	last  *failure // the last failing sequence of the current batch
	// fruitless counts the reruns since one sent other than the last.
	fruitless int
	// end is when a Duration budget is spent (zero: no such budget). The
	// current batch shrinks from shrinkFrom until shrinkUntil (the earlier
	// of ShrinkTime and end, byDuration when end); cut is set when a
	// sequence was refused because that time had come.
	end         time.Time
	shrinkFrom  time.Time
	shrinkUntil time.Time
	byDuration  bool
	cut         bool
	foundSteps  int
	shrinking   time.Duration
	cuts        int
	startErr    error
	passes      map[string]int
	// skips are the skips seen, by rule and shape (tally).
	skips     map[[2]string]*skipEntry
	skipOrder [][2]string
	// schemas are the tools' input schemas compiled, with their
	// generators, by the schema's JSON (nil: it does not compile).
	schemas map[string]*tool
	// methods are the methods the protocol defines (knownMethods): a
	// generated request of another is labelled as such (label).
	methods map[string]bool
	seed    uint64
	// lastPtrs are the response fields templates carry forward.
	lastPtrs []string
}

// New checks a config and prepares the generators.
func New(cfg Config) (*Campaign, error) {
	if cfg.Target.FixedPort() {
		// The campaign starts fresh processes ahead of need: on one port
		// they would find it taken.
		return nil, fmt.Errorf("--url %s: fuzz starts several servers at once; put {port} in --url (the port wirecheck picks for each)", target.MaskURL(cfg.Target.URL))
	}
	// The transport decides which rules apply, as it does for run's
	// (an HTTP stream rule is a finding over HTTP only, a stdio one never
	// there): resolved here, not left to the protocol's first transport.
	if len(cfg.Protocol.Transports) > 0 {
		p, err := cfg.Protocol.ForTransport(cfg.Target.Transport)
		if err != nil {
			return nil, err
		}
		cfg.Protocol = p
	}
	if cfg.Protocol.Fuzz == nil && cfg.Protocol.Probe == nil {
		return nil, fmt.Errorf("protocol %s has no fuzz model yet", cfg.Protocol.ID)
	}
	if cfg.MaxFailures < 0 {
		return nil, fmt.Errorf("--max-failures %d: give 0 (no limit) or more", cfg.MaxFailures)
	}
	if cfg.Runs < 0 {
		return nil, fmt.Errorf("--runs %d: give a positive count (or --duration alone)", cfg.Runs)
	}
	if cfg.Runs == 0 && cfg.Duration <= 0 {
		cfg.Runs = DefaultRuns
	}
	if cfg.Duration <= 0 {
		cfg.Duration = DefaultCap
	}
	if cfg.MaxActions <= 0 {
		cfg.MaxActions = DefaultMaxActions
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = 10 * time.Second
	}
	if cfg.ShrinkTime <= 0 {
		cfg.ShrinkTime = DefaultShrinkTime
	}
	if cfg.FreshEvery <= 0 {
		cfg.FreshEvery = DefaultFreshEvery
	}
	if cfg.Level == "" {
		cfg.Level = verdict.Should
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = 1
	}
	if cfg.Pool == nil {
		cfg.Pool = session.NewPool(cfg.Jobs, 0)
	}
	c := &Campaign{cfg: cfg, bugs: map[[2]string]*Bug{}, passes: map[string]int{}, skips: map[[2]string]*skipEntry{}, schemas: map[string]*tool{},
		pool: cfg.Pool, inUse: map[*proc]struct{}{}, shrinker: &lane{shrink: true}}
	for range cfg.Jobs {
		c.lanes = append(c.lanes, &lane{})
	}
	if f := cfg.Protocol.Fuzz; f != nil {
		c.lastPtrs = lastPointers(f)
	}
	c.methods = knownMethods(cfg.Protocol)
	if f := cfg.Protocol.Fuzz; f != nil {
		for _, fr := range f.Frames {
			if fr.Result == "" {
				continue
			}
			sch := cfg.Schemas.Get(fr.Result)
			if sch == nil {
				return nil, fmt.Errorf("protocol %s: fuzz frame result schema %s is not compiled", cfg.Protocol.ID, fr.Result)
			}
			if c.results == nil {
				c.results = map[*spec.FuzzFrame]*rapid.Generator[any]{}
			}
			c.results[fr] = gen.Valid(sch)
		}
	}
	if f := cfg.Protocol.Fuzz; f != nil && f.Request != "" {
		c.request = cfg.Schemas.Get(f.Request)
		if c.request == nil {
			return nil, fmt.Errorf("protocol %s: fuzz request schema %s is not compiled", cfg.Protocol.ID, f.Request)
		}
		c.validRequest = gen.Valid(c.request)
		c.invalidRequest = gen.Invalid(c.request)
		for _, r := range f.Requests {
			sch := cfg.Schemas.Get(r.Schema)
			if sch == nil {
				return nil, fmt.Errorf("protocol %s: fuzz request schema %s is not compiled", cfg.Protocol.ID, r.Schema)
			}
			c.requests = append(c.requests, &methodRequests{when: r.When, valid: gen.Valid(sch), invalid: gen.Invalid(sch)})
		}
	}
	return c, nil
}

// methodRequests draws the requests of one method (spec.FuzzRequest),
// valid and near valid, for a server that declared what when names.
type methodRequests struct {
	when    []string
	valid   *rapid.Generator[any]
	invalid *rapid.Generator[gen.Mutation]
}

// Stats reports progress; safe to call from another goroutine.
func (c *Campaign) Stats() Stats {
	c.mu.Lock()
	n, shrinking, cuts := len(c.order), c.shrinking, c.cuts
	c.mu.Unlock()
	return Stats{Sequences: c.sequences.Load(), Messages: c.messages.Load(), Bugs: n,
		Elapsed: c.now().Sub(c.started), Shrinking: shrinking, Cut: cuts,
		Starts: c.starts.Load(), Unconfirmed: c.unconfirmed.Load(), Stopped: c.stopped.Load(),
		Generated: c.generated.Load(), Runs: c.cfg.Shard.Share(c.cfg.Runs), Cap: c.cfg.Duration, Capped: c.capped.Load()}
}

// Parts says how the time went: generating and running new sequences,
// shrinking failures, and how many shrinks a budget cut off.
func (st Stats) Parts() string {
	out := fmt.Sprintf("generation %s, shrinking %s", (st.Elapsed - st.Shrinking).Round(time.Millisecond), st.Shrinking.Round(time.Millisecond))
	if st.Cut > 0 {
		out += fmt.Sprintf(" (%d failure(s) saved before shrinking ended: a budget ran out)", st.Cut)
	}
	return out
}

func (c *Campaign) now() time.Time {
	if c.cfg.Now != nil {
		return c.cfg.Now()
	}
	return time.Now()
}

// spent reports whether the next sequence is refused: past the end of
// the campaign while generating; while shrinking, past the shrink
// deadline (cut is set: the sequence kept may not be minimal) or after
// fruitless reruns in a row that found nothing smaller (shrinking is
// done). A refused sequence ends the batch (run), keeping the smallest
// failing sequence found so far.
func (c *Campaign) spent() bool {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		return !c.end.IsZero() && !now.Before(c.end)
	}
	if !now.Before(c.shrinkUntil) {
		c.cut = true
		return true
	}
	return c.fruitless >= fruitless
}

// fruitless is how many reruns in a row shrinking tries without one
// that fails sending other than the last failure did, before it stops:
// rapid's rounds go on while its random bits get fewer, and most of a
// sequence's bits change nothing sent (see recordFailure). Without this
// bound, exit-non-object at seed 10 reran one 2-message reproducer 3,300
// times in 10 minutes without an end; with it, that campaign's two
// failures are shrunk in 141 reruns, and a rerun that sent something new
// came at most a few dozen after the one before.
const fruitless = 50

var rapidInit sync.Once

// Run spends the budget and returns the distinct bugs found, most hit
// first. An interrupt (ctx) ends the campaign between sequences.
func (c *Campaign) Run(ctx context.Context) ([]*Bug, error) {
	rapidInit.Do(func() {
		// rapid asks testing.Short, which panics outside `go test` unless
		// the testing flags exist and were parsed; rapid's own knobs are
		// flags too. Parsing no arguments sets nothing.
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	c.ctx, c.started = ctx, c.now()
	if c.cfg.Duration > 0 {
		c.end = c.started.Add(c.cfg.Duration)
		if c.cfg.Now == nil {
			// The budget holds even while one sequence waits out its
			// timeouts: at the end the live server is closed, as on Ctrl-C.
			var cancel context.CancelFunc
			c.ctx, cancel = context.WithDeadline(ctx, c.end)
			defer cancel()
		}
	}
	// A running server (--url alone) that the first connection does not
	// reach ends the campaign before it begins, as one whose command
	// cannot be started: no sequence blames the server for it.
	if err := session.Reach(c.ctx, c.cfg.Target, c.cfg.Timeout); err != nil {
		return nil, err
	}
	c.spares = session.NewSpares(c.ctx, c.pool, c.start)
	done := make(chan struct{})
	defer close(done)
	// The kept processes are retired last, so nothing else Run does on
	// its way out overlaps the wait for them.
	defer c.closing.Wait()
	defer c.retireLanes()
	defer c.spares.Close(func(pr *proc, _ error) {
		if pr != nil {
			pr.s.Close()
		}
	})
	go func() {
		select {
		case <-c.ctx.Done():
			c.endAll()
		case <-done:
		}
	}()
	setFlag("rapid.nofailfile", "true")
	// The campaign's own clock ends shrinking (spent); rapid's is a
	// backstop past it, so it never decides first.
	setFlag("rapid.shrinktime", (c.cfg.ShrinkTime + time.Minute).String())
	batchSeed := seeds(c.cfg.Seed, c.cfg.Shard)
	c.seed = batchSeed()
	remaining := c.cfg.Shard.Share(c.cfg.Runs)
	if c.cfg.Runs <= 0 {
		remaining = int(^uint(0) >> 1)
	}
	for remaining > 0 && c.ctx.Err() == nil && (c.end.IsZero() || c.now().Before(c.end)) && !c.enough() {
		n := min(batch, remaining)
		c.mu.Lock()
		c.last, c.cut, c.fruitless, c.foundSteps = nil, false, 0, 0
		// Fixed for the batch: rapid's reruns of a sequence must read its
		// draws as they were read when it ran.
		c.odds = closeOdds
		if c.cleanExits.Load() >= cleanExits {
			c.odds = rareCloseOdds
		}
		c.mu.Unlock()
		ran := c.batch(n)
		if err := c.startFailure(); err != nil {
			return c.sorted(), err
		}
		now := c.now()
		c.mu.Lock()
		last, cut := c.last, c.cut || (c.last != nil && !now.Before(c.shrinkUntil))
		took, byDuration, found := now.Sub(c.shrinkFrom), c.byDuration, c.foundSteps
		if last != nil {
			c.shrinking += took
		}
		c.mu.Unlock()
		if last != nil {
			why, stop := "", "budget spent"
			ended := c.ctx.Err()
			switch {
			case ended != nil && !errors.Is(ended, context.DeadlineExceeded):
				why, stop = "shrinking stopped by the interrupt: the sequence may not be minimal", "interrupted"
			case (cut || ended != nil) && byDuration:
				why = fmt.Sprintf("shrinking stopped after %s, when the --duration budget (%s) ran out: the sequence may not be minimal",
					took.Round(time.Millisecond), c.cfg.Duration)
			case cut:
				why = fmt.Sprintf("shrinking stopped at --shrink-time %s: the sequence may not be minimal", c.cfg.ShrinkTime)
			default:
				stop = ""
			}
			c.addBug(last, took, found, stop, why)
		}
		// Only new sequences count against --runs, never shrinking's
		// reruns (how many of those fit in --shrink-time depends on the
		// machine, and so would the campaign).
		remaining -= max(1, ran)
		c.seed = batchSeed()
	}
	if remaining > 0 && c.cfg.Runs > 0 && ctx.Err() == nil && !c.stopped.Load() && !c.now().Before(c.end) {
		// Duration, not Runs, ended it: the summary says so.
		c.capped.Store(true)
	}
	return c.sorted(), nil
}

// enough reports whether MaxFailures distinct failures were found and no
// other is being shrunk (its shrinking finishes first), and says so in
// Stats.
func (c *Campaign) enough() bool {
	if c.cfg.MaxFailures <= 0 {
		return false
	}
	c.mu.Lock()
	done := len(c.order) >= c.cfg.MaxFailures && c.last == nil
	c.mu.Unlock()
	if done {
		c.stopped.Store(true)
	}
	return done
}

func setFlag(name, value string) {
	if err := flag.Set(name, value); err != nil {
		panic("rapid flag " + name + ": " + err.Error())
	}
}

// seeds returns the seeds of a shard's batches, one per call: the
// campaign's seed chain (first, next(first), …) cut so that batch k is
// shard k mod n's.
func seeds(first uint64, sh shard.Shard) func() uint64 {
	s, k := first, 0
	return func() uint64 {
		for ; !sh.Has(k); k++ {
			s = next(s)
		}
		out := s
		s = next(s)
		k++
		return out
	}
}

// next derives the seed of the next batch (splitmix64), so a campaign is
// reproducible from its first seed.
func next(s uint64) uint64 {
	s += 0x9e3779b97f4a7c15
	z := s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// countSequence counts a sequence run, and a new one (not a rerun while
// shrinking) apart.
func (c *Campaign) countSequence() {
	c.sequences.Add(1)
	c.mu.Lock()
	shrinking := c.last != nil
	c.mu.Unlock()
	if !shrinking {
		c.generated.Add(1)
		return
	}
	c.mu.Lock()
	c.fruitless++
	c.mu.Unlock()
}

// counts reports whether a failure of rule is a finding of this campaign.
func (c *Campaign) counts(rule string) bool {
	r := c.cfg.Protocol.Rule(rule)
	if r == nil || r.Level.Rank() < c.cfg.Level.Rank() {
		return false
	}
	// Applicability is the spec's, as in run's tally: a rule of another
	// transport or revision (MCP-HTTP-GET-2 over the legacy SSE stream) is
	// no finding of this campaign.
	if !c.cfg.Protocol.Applies(r) {
		return false
	}
	return spec.Selects(c.cfg.Rules, rule)
}

func (c *Campaign) tally(o verdict.Observation) {
	if o.Verdict != verdict.Pass && o.Verdict != verdict.Skip {
		return
	}
	if r := c.cfg.Protocol.Rule(o.Rule); r != nil && !c.cfg.Protocol.Applies(r) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.Verdict == verdict.Pass {
		c.passes[o.Rule]++
		return
	}
	// A skip with its reason, as run's report shows a scenario's: the
	// first of each rule and shape, counted (a reason names transcript
	// lines, different on every process).
	k := [2]string{o.Rule, o.Scenario}
	if sk := c.skips[k]; sk != nil {
		sk.n++
		return
	}
	c.skips[k] = &skipEntry{obs: o, n: 1}
	c.skipOrder = append(c.skipOrder, k)
}

// skipEntry is a rule skipped in a shape: the first skip, and how many.
type skipEntry struct {
	obs verdict.Observation
	n   int
}

// Skips are the skips the campaign saw, each rule and shape's first with
// its count, in the order they came.
func (c *Campaign) Skips() []Skipped {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Skipped, 0, len(c.skipOrder))
	for _, k := range c.skipOrder {
		sk := c.skips[k]
		out = append(out, Skipped{Rule: sk.obs.Rule, Shape: sk.obs.Scenario, Why: sk.obs.Message, Count: sk.n})
	}
	return out
}

// Skipped is a rule a campaign skipped after a shape (what the process was
// doing: "end of sequence" for what a sequence's end decided), why, and
// how many times.
type Skipped struct {
	Rule, Shape, Why string
	Count            int
}

// recordFailure keeps the last failing sequence of a batch: rapid reruns
// the minimal one last, so that is the reproducer. A failure that sends
// other than the last one is progress (see fruitless); rapid counts one
// that sends the same as progress too when its random bits are fewer,
// and most of a sequence's bits (a request a mutation then replaced
// whole, a count past the action that failed) change nothing sent.
func (c *Campaign) recordFailure(s *failure) {
	now := c.now()
	js, _ := json.Marshal(s.steps)
	s.sent = string(js)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil || c.last.sent != s.sent {
		c.fruitless = 0
	}
	if c.last == nil {
		// The batch's first failure: shrinking starts, within the budgets.
		c.foundSteps = len(s.steps)
		c.shrinkFrom, c.shrinkUntil, c.byDuration = now, now.Add(c.cfg.ShrinkTime), false
		if !c.end.IsZero() && c.end.Before(c.shrinkUntil) {
			c.shrinkUntil, c.byDuration = c.end, true
		}
	}
	c.last = s
}

// known counts a hit of a bug already found and reports whether it was
// one, so the campaign goes on looking for others instead of shrinking the
// same bug again.
func (c *Campaign) known(f *verdict.Observation) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.bugs[[2]string{f.Rule, f.Scenario}]; b != nil {
		b.Hits++
		return true
	}
	return false
}

// addBug records a failure, shrunk from found steps for shrunk; stop and
// unshrunk say why shrinking stopped early, if it did.
func (c *Campaign) addBug(s *failure, shrunk time.Duration, found int, stop, unshrunk string) {
	f := &s.obs
	k := [2]string{f.Rule, f.Scenario}
	c.mu.Lock()
	defer c.mu.Unlock()
	if unshrunk != "" {
		c.cuts++
	}
	if b := c.bugs[k]; b != nil {
		b.Hits++
		return
	}
	level := verdict.Must
	if r := c.cfg.Protocol.Rule(f.Rule); r != nil {
		level = r.Level
	}
	b := &Bug{Rule: f.Rule, Level: level, Shape: f.Scenario, Hits: 1, First: *f,
		Steps: s.steps, Transcript: s.transcript, Seed: c.seed, Shrunk: shrunk, Unshrunk: unshrunk, Stop: stop, Found: found, History: s.history}
	c.bugs[k] = b
	c.order = append(c.order, b)
}

func (c *Campaign) sorted() []*Bug {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]*Bug(nil), c.order...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Hits > out[j].Hits })
	return out
}

// startError records that the server could not be started or never
// became ready (a *session.NotStarted carries the evidence).
func (c *Campaign) startError(err error) error {
	if c.ctx.Err() != nil {
		// Closed by an interrupt or the end of the budget, not a failure
		// to start.
		return errStop
	}
	c.mu.Lock()
	if c.startErr == nil {
		c.startErr = err
	}
	c.mu.Unlock()
	return errStop
}

func (c *Campaign) startFailure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.startErr
}

// toolsFrom reads the tool list of a discovery response and compiles each
// input schema once per campaign.
func (c *Campaign) toolsFrom(in *peer.Inbound) []tool {
	t := c.cfg.Protocol.Fuzz.Tools
	items, _ := in.Field(t.Items)
	list, _ := items.([]any)
	var out []tool
	for _, it := range list {
		name, _ := peer.Pointer(it, t.Name)
		ns, _ := name.(string)
		raw, _ := peer.Pointer(it, t.Schema)
		if ns == "" || raw == nil {
			continue
		}
		b, _ := json.Marshal(raw)
		c.mu.Lock()
		tl, ok := c.schemas[string(b)]
		c.mu.Unlock()
		if !ok {
			if s, _ := gen.Compile(b); s != nil {
				tl = &tool{valid: gen.Valid(s), invalid: gen.Invalid(s)}
			}
			c.mu.Lock()
			c.schemas[string(b)] = tl
			c.mu.Unlock()
		}
		if tl != nil {
			out = append(out, tool{name: ns, valid: tl.valid, invalid: tl.invalid})
		}
	}
	return out
}

// fill copies a request template of the spec, replacing "$name" and
// "$args" by a tool call's name and arguments (or "$name" by a follow-up
// request's item: a reference to the answer that made it, itemValue), "$token" by a string no
// other request of the process carries (MCP's progress token: the frame
// judge, one per process, holds the server to the tokens it was sent;
// numbered per process, so a sequence sends the same bytes whichever lane
// and process it runs on), and "$last:/pointer" by the value at that
// pointer in the latest response of the process that had one (the state
// a tool host hands back), or an empty object before there is one.
func fill(v any, name any, args any, pr *proc) any {
	switch x := v.(type) {
	case string:
		switch {
		case x == "$name":
			return jsonval.Clone(name)
		case x == "$args":
			return args
		case x == "$token":
			pr.tokens++
			return fmt.Sprintf("wc-fuzz-progress-%d", pr.tokens)
		case x == "$stray":
			pr.strays++
			return fmt.Sprintf("wc-fuzz-stray-%d", pr.strays)
		case x == "$asked":
			return pr.asked()
		case strings.HasPrefix(x, "$last:"):
			if got, ok := pr.last[strings.TrimPrefix(x, "$last:")]; ok {
				return jsonval.Clone(got)
			}
			return map[string]any{}
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = fill(v, name, args, pr)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = fill(v, name, args, pr)
		}
		return out
	}
	return v
}

// lastPointers lists the pointers the templates read with "$last:".
func lastPointers(f *spec.Fuzz) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if p, ok := strings.CutPrefix(x, "$last:"); ok {
				seen[p] = true
			}
		case map[string]any:
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	for _, r := range f.Setup {
		walk(r) // a {notify: …} step is walked whole
	}
	if f.Tools != nil {
		walk(f.Tools.List)
		walk(f.Tools.Call)
	}
	for _, src := range f.Sources {
		walk(src.List)
	}
	for _, fl := range f.Follow {
		walk(fl.Request)
		walk(fl.Undo)
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Passes reports how many times each rule was observed to hold.
func (c *Campaign) Passes() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.passes))
	for k, v := range c.passes {
		out[k] = v
	}
	return out
}

// quietTB lets rapid run outside `go test`: it records failure and keeps
// rapid's own log, which wirecheck replaces with a reproducer file.
type quietTB struct {
	mu     sync.Mutex
	failed bool
}

func (t *quietTB) Helper()               {}
func (t *quietTB) Name() string          { return "wirecheck-fuzz" }
func (t *quietTB) Logf(string, ...any)   {}
func (t *quietTB) Log(...any)            {}
func (t *quietTB) Skipf(string, ...any)  {}
func (t *quietTB) Skip(...any)           {}
func (t *quietTB) SkipNow()              {}
func (t *quietTB) Errorf(string, ...any) { t.Fail() }
func (t *quietTB) Error(...any)          { t.Fail() }
func (t *quietTB) Fatalf(string, ...any) { t.Fail() }
func (t *quietTB) Fatal(...any)          { t.Fail() }
func (t *quietTB) FailNow()              { t.Fail() }
func (t *quietTB) Fail()                 { t.mu.Lock(); t.failed = true; t.mu.Unlock() }
func (t *quietTB) Failed() bool          { t.mu.Lock(); defer t.mu.Unlock(); return t.failed }
