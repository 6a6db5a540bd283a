package transport

import (
	"io"
	"sync"
)

// Budget bounds the bytes that frames being read hold together, beyond
// budgetFree each: one frame up to --max-frame must be held whole to be
// judged, but the lanes of a run, or the HTTP exchanges of one, reading
// such frames all at once would hold the cap each. A reader past its
// budgetFree bytes takes what it grows by, waiting while others hold the
// budget; one reader alone always gets what it asks, so a cap raised over
// the budget still works. It is safe for concurrent use.
type Budget struct {
	mu   sync.Mutex
	max  int64
	used int64
	free chan struct{} // closed and replaced whenever bytes are given back
}

// NewBudget allows max bytes of frames being read past budgetFree each.
func NewBudget(max int64) *Budget { return &Budget{max: max, free: make(chan struct{})} }

// budgetFree is what a frame being read may hold before it draws on the
// budget: frames this small are bounded by the queues' caps.
const budgetFree = 1 << 20

// DefaultBudget is the budget of every reader of this process: one frame
// of the default cap (and budgetFree for every other reader). Frames that
// big are rare and read in milliseconds, so waiting for one another costs
// nothing; a hostile server answering every request of every lane with a
// gigabyte costs the cap once, not once per lane.
const DefaultBudget = DefaultMaxFrame

// frames is the process's budget.
var frames = NewBudget(DefaultBudget)

// take charges n bytes, waiting while they do not fit and another reader
// holds some, and reports false when abort closed first.
func (b *Budget) take(n int64, abort <-chan struct{}) bool {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		wait := b.free
		b.mu.Unlock()
		select {
		case <-wait:
		case <-abort:
			return false
		}
	}
}

func (b *Budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.free)
	b.free = make(chan struct{})
	b.mu.Unlock()
}

// Used is the bytes charged now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// NewCharge is a charge to the process's budget for a reader's buffers
// (an HTTP event stream's), whose waits abort ends.
func NewCharge(abort <-chan struct{}) *Charge { return &Charge{b: frames, abort: abort} }

// Charge is what one reader's growing buffers hold of a budget.
type Charge = charge

// Grow charges for buffers grown to size bytes in all (see grow).
func (c *charge) Grow(size int) bool { return c.grow(size) }

// Done gives back all it charged.
func (c *charge) Done() { c.done() }

// charge is what one growing buffer holds of a budget.
type charge struct {
	b     *Budget
	abort <-chan struct{}
	held  int64
}

// grow charges the budget for a buffer growing to size bytes (what is
// past budgetFree), and reports false when abort closed while it waited.
func (c *charge) grow(size int) bool {
	if c == nil || c.b == nil {
		return true
	}
	need := int64(size) - budgetFree - c.held
	if need <= 0 {
		return true
	}
	if !c.b.take(need, c.abort) {
		return false
	}
	c.held += need
	return true
}

// done gives back all it charged.
func (c *charge) done() {
	if c == nil {
		return
	}
	if c.b != nil {
		c.b.give(c.held)
	}
	c.held = 0
}

// Chunks a frame is read into: the first small, for the many small
// frames, the rest large. Pooled, so frames read one after another reuse
// the same memory instead of leaving a trail of grown buffers for the
// collector (and the resident set) to carry.
const (
	firstChunk = 64 << 10
	nextChunk  = 1 << 20
)

var (
	firstPool = sync.Pool{New: func() any { b := make([]byte, firstChunk); return &b }}
	nextPool  = sync.Pool{New: func() any { b := make([]byte, nextChunk); return &b }}
)

// ReadFrame reads r to its end, or to one byte past limit (over is then
// set and b holds the first OversizeEvidence bytes: evidence, not the
// frame). It reads into pooled chunks charged to the process's Budget,
// then copies a frame within limit into b of its exact size; abort ends
// a wait for budget, as a failed read (b then holds what was read, as
// evidence); n is how many bytes were read. The caller calls release
// once done with b.
func ReadFrame(r io.Reader, limit int, abort <-chan struct{}) (b []byte, n int, over bool, release func(), err error) {
	c := &charge{b: frames, abort: abort}
	var chunks []*[]byte
	total, used := 0, 0 // bytes read; of them, in the last chunk
	defer func() {
		for i, ch := range chunks {
			if i == 0 {
				firstPool.Put(ch)
			} else {
				nextPool.Put(ch)
			}
		}
	}()
	// gather copies the first n bytes read into one slice.
	gather := func(n int) []byte {
		out := make([]byte, 0, n)
		for _, ch := range chunks {
			if len(out) == n {
				break
			}
			out = append(out, (*ch)[:min(len(*ch), n-len(out))]...)
		}
		return out
	}
	for {
		if len(chunks) == 0 || used == len(*chunks[len(chunks)-1]) {
			if len(chunks) > 0 && !c.grow(total+nextChunk) {
				return gather(min(total, OversizeEvidence)), total, false, c.done, errBudgetAborted
			}
			if len(chunks) == 0 {
				chunks = append(chunks, firstPool.Get().(*[]byte))
			} else {
				chunks = append(chunks, nextPool.Get().(*[]byte))
			}
			used = 0
		}
		last := *chunks[len(chunks)-1]
		got, rerr := r.Read(last[used:])
		used += got
		total += got
		switch {
		case total > limit:
			return gather(min(limit, OversizeEvidence)), total, true, c.done, nil
		case rerr == io.EOF:
			return gather(total), total, false, c.done, nil
		case rerr != nil:
			return gather(min(total, OversizeEvidence)), total, false, c.done, rerr
		}
	}
}

// errBudgetAborted ends a read whose wait for budget was aborted.
var errBudgetAborted = errorString("aborted while waiting for other frames being read to end")

type errorString string

func (e errorString) Error() string { return string(e) }
