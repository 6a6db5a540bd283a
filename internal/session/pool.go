package session

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Pool is the one bound on server sessions that run and fuzz share: how
// many lanes hold a session at once (--jobs), and how many sessions start
// at once. Servers that take CPU to start (Node, the JVM) start sooner one
// after the other than all at once, and a machine fuzzed or certified on
// several lanes should not start a dozen servers in the same instant.
// Several users may share one pool: the revisions of `run --revision all`
// run side by side in one, as lanes do.
type Pool struct {
	starting chan struct{}
	lanes    *lanes
	// open bounds the sessions open at once, at work or lent (OpenFactor
	// times the lanes): lanes that lend their place while they wait by
	// design must not open sessions without end on a server that may
	// limit them.
	open chan struct{}
}

// OpenFactor is how many sessions may be open at once per lane of the
// pool, counting those whose lane is lent while they wait by design
// (runner: lend). At the default eight lanes a run against a server keeps
// at most 32 sessions open; --jobs 1 keeps one.
const OpenFactor = 4

// lanes are the lane slots of a pool: a free one goes to the waiter that
// declared the longest wait (LaneFor), the earliest of those first. The
// revisions of `run --revision all` each order their own lanes, longest
// declared wait first, and wait side by side: first come, first served,
// a revision whose schemas took longest to compile had its long lane (a
// task the server runs for seconds, the run's floor) queue behind the
// others' quick ones (docs/official-suite.md).
type lanes struct {
	mu      sync.Mutex
	jobs    int
	busy    int
	seq     uint64
	waiting []*laneWaiter
}

type laneWaiter struct {
	wait  time.Duration
	seq   uint64
	ready chan struct{}
}

// NewPool bounds its users to jobs lanes at once and starts sessions
// starting at once (0: one per CPU).
func NewPool(jobs, starts int) *Pool {
	if starts <= 0 {
		starts = runtime.NumCPU()
	}
	jobs = max(1, jobs)
	return &Pool{lanes: &lanes{jobs: jobs}, starting: make(chan struct{}, starts), open: make(chan struct{}, OpenFactor*jobs)}
}

// Jobs is how many lanes the pool runs at once.
func (p *Pool) Jobs() int { return p.lanes.jobs }

// WithJobs is a pool of jobs lanes that shares p's start bound (a run on
// a fixed port keeps to one lane, its starts still counted with the
// rest).
func (p *Pool) WithJobs(jobs int) *Pool {
	jobs = max(1, jobs)
	return &Pool{lanes: &lanes{jobs: jobs}, starting: p.starting, open: make(chan struct{}, OpenFactor*jobs)}
}

// Open waits until fewer than OpenFactor×Jobs sessions are open and
// returns the function that closes the one it counts; false when ctx
// ended first. A lane takes it before its place in the pool and keeps it
// while it lends that place.
func (p *Pool) Open(ctx context.Context) (func(), bool) {
	select {
	case p.open <- struct{}{}:
		return p.freer(p.open), true
	case <-ctx.Done():
		return nil, false
	}
}

// Lane waits for a lane to be free and returns the function that frees
// it; false when ctx ended first.
func (p *Pool) Lane(ctx context.Context) (func(), bool) { return p.LaneFor(ctx, 0) }

// LaneFor is Lane for a lane that declares it will wait on its server
// for about wait by design: of the lanes waiting, the one that declared
// the longest gets the next free lane.
func (p *Pool) LaneFor(ctx context.Context, wait time.Duration) (func(), bool) {
	l := p.lanes
	l.mu.Lock()
	if l.busy < l.jobs && len(l.waiting) == 0 {
		l.busy++
		l.mu.Unlock()
		return l.freer(), true
	}
	w := &laneWaiter{wait: wait, seq: l.seq, ready: make(chan struct{})}
	l.seq++
	l.waiting = append(l.waiting, w)
	l.mu.Unlock()
	select {
	case <-w.ready:
		return l.freer(), true
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		select {
		case <-w.ready:
			// Granted as ctx ended: handed on, not kept.
			l.handOn()
		default:
			l.waiting = slices.DeleteFunc(l.waiting, func(o *laneWaiter) bool { return o == w })
		}
		return nil, false
	}
}

func (l *lanes) freer() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.handOn()
			l.mu.Unlock()
		})
	}
}

// handOn gives a lane being freed to the waiter that declared the
// longest wait, or frees it. l.mu is held.
func (l *lanes) handOn() {
	if len(l.waiting) == 0 {
		l.busy--
		return
	}
	best := 0
	for i, w := range l.waiting {
		if b := l.waiting[best]; w.wait > b.wait || (w.wait == b.wait && w.seq < b.seq) {
			best = i
		}
	}
	w := l.waiting[best]
	l.waiting = slices.Delete(l.waiting, best, best+1)
	close(w.ready)
}

// Start waits for a start to be free and returns the function that frees
// it (it may be called more than once; the first call frees); false when
// ctx ended or abort was closed first.
func (p *Pool) Start(ctx context.Context, abort <-chan struct{}) (func(), bool) {
	select {
	case p.starting <- struct{}{}:
		return p.freer(p.starting), true
	case <-ctx.Done():
		return nil, false
	case <-abort:
		return nil, false
	}
}

func (p *Pool) freer(ch chan struct{}) func() {
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }
}

// Spares keeps sessions of one kind (T: whatever its user builds on a
// session, with its setup done) started ahead of need, so replacing a
// session costs its user no wait for the start. Each start holds one of
// the pool's starts while it runs. Safe for concurrent use: lanes take
// spares side by side.
type Spares[T any] struct {
	pool  *Pool
	ctx   context.Context
	start func() (T, error)

	mu      sync.Mutex
	queue   []*spare[T]
	spawned atomic.Int64
}

type spare[T any] struct {
	v    T
	err  error
	done chan struct{}
}

// NewSpares keeps spares that start makes, bounded by pool; once ctx has
// ended no more are started.
func NewSpares[T any](ctx context.Context, pool *Pool, start func() (T, error)) *Spares[T] {
	return &Spares[T]{pool: pool, ctx: ctx, start: start}
}

// Take returns the oldest spare, waited for if it is still starting, or
// one started now when there is none.
func (s *Spares[T]) Take() (T, error) {
	s.mu.Lock()
	var sp *spare[T]
	if len(s.queue) > 0 {
		sp = s.queue[0]
		s.queue = s.queue[1:]
	}
	s.mu.Unlock()
	if sp == nil {
		sp = s.spawn()
	}
	<-sp.done
	return sp.v, sp.err
}

// TopUp starts spares until want are started or starting.
func (s *Spares[T]) TopUp(want int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) < want && s.ctx.Err() == nil {
		s.queue = append(s.queue, s.spawn())
	}
}

// Spawned counts the sessions started, spares never taken included.
func (s *Spares[T]) Spawned() int64 { return s.spawned.Load() }

func (s *Spares[T]) spawn() *spare[T] {
	s.spawned.Add(1)
	sp := &spare[T]{done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		if free, ok := s.pool.Start(context.Background(), s.ctx.Done()); ok {
			defer free()
		}
		// Past the end a start goes on unbounded: its start is aborted by
		// the same ctx, and its user sees the error.
		sp.v, sp.err = s.start()
	}()
	return sp
}

// Close waits for the spares still starting and hands every spare nobody
// took to end, with the error of its start (a start may return a session
// and an error: one whose setup did not go through).
func (s *Spares[T]) Close(end func(T, error)) {
	s.mu.Lock()
	q := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, sp := range q {
		<-sp.done
		end(sp.v, sp.err)
	}
}
