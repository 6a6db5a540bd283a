package transport

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// readBufSize is each reader's bufio buffer. A line shorter than this is
// copied exactly once, from the buffer straight into its frame; longer lines
// are assembled in a scratch slice first (one copy more). Every server
// process a run has open holds one, live all its life: at 256 KiB they
// were some 3 MiB of a `run --revision all`'s live heap at its peak, and
// its peak RSS 3 MiB less at 64 KiB; a frame that long is rare.
const readBufSize = 64 << 10

// frameOverhead is charged per queued frame on top of len(Raw). Without it a
// flood of empty lines would cost nothing against MaxBuffered and the queue
// of zero-length frames could grow without bound. It is what a queued frame
// really costs besides its bytes: the Frame in the queue's slice (56
// bytes), twice over for the slice's growth, and the rounding of Raw's
// allocation to a size class.
const frameOverhead = 128

// keepAcc is the largest long-line buffer a reader keeps between lines; a
// bigger one (up to MaxFrame per stream and server) goes back to
// the heap once its line is done, rather than be pinned for the
// transport's life by one long line.
const keepAcc = 64 << 10

// splitLines reads r to its end and hands every line to emit, without its
// '\n' and otherwise byte for byte ('\r' included: judging it is the
// checks' business). The slice passed to emit is only valid during the call.
//
// A line longer than maxFrame is emitted as soon as that is known, as its
// first maxFrame bytes with oversize set; its remainder is skipped buffer by
// buffer and never held, whatever its length. Bytes after the last '\n' are
// emitted with partial set. An oversize line cut off by EOF is not emitted a
// second time as partial.
//
// c, when not nil, is charged for acc past budgetFree (see Budget); a wait
// for it that is aborted ends the read with errBudgetAborted.
func splitLines(r io.Reader, maxFrame, bufSize int, c *charge, emit func(line []byte, oversize, partial bool)) error {
	br := bufio.NewReaderSize(r, bufSize)
	defer c.done()
	grow := func(acc, src []byte) ([]byte, error) {
		acc, ok := appendCapped(acc, src, maxFrame+1, c)
		if !ok {
			return acc, errBudgetAborted
		}
		return acc, nil
	}
	var gerr error
	// acc holds a line that outgrew br's buffer. It never holds more than
	// maxFrame+1 bytes: one byte past the cap is enough to know the line is
	// oversize. It is kept between lines so long lines do not regrow it.
	var acc []byte
	discarding := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			if discarding {
				discarding = false
				continue
			}
			line := chunk[:len(chunk)-1]
			if len(acc) > 0 {
				if acc, gerr = grow(acc, line); gerr != nil {
					return gerr
				}
				line = acc
			}
			if len(line) > maxFrame {
				emit(line[:maxFrame], true, false)
			} else {
				emit(line, false, false)
			}
			acc = release(acc, c)
		case errors.Is(err, bufio.ErrBufferFull):
			if discarding {
				continue
			}
			if acc, gerr = grow(acc, chunk); gerr != nil {
				return gerr
			}
			if len(acc) > maxFrame {
				emit(acc[:maxFrame], true, false)
				acc = release(acc, c)
				discarding = true
			}
		default:
			if !discarding {
				acc, _ = appendCapped(acc, chunk, maxFrame+1, c)
				if len(acc) > maxFrame {
					emit(acc[:maxFrame], true, false)
				} else if len(acc) > 0 {
					emit(acc, false, true)
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// release empties acc for the next line, dropping it when it is too big to
// keep (see keepAcc), and gives back what it was charged.
func release(acc []byte, c *charge) []byte {
	c.done()
	if cap(acc) > keepAcc {
		return nil
	}
	return acc[:0]
}

// appendCapped appends as much of src as fits under limit total bytes,
// growing dst at most to limit, where append's own growth could overshoot it
// by up to a factor of two.
//
// The growth is charged to c (nil: to nothing); when a wait for it is
// aborted, dst comes back as it was with ok false.
func appendCapped(dst, src []byte, limit int, c *charge) (_ []byte, ok bool) {
	n := min(len(src), limit-len(dst))
	if n <= 0 {
		return dst, true
	}
	if need := len(dst) + n; need > cap(dst) {
		size := min(max(2*cap(dst), need), limit)
		if !c.grow(size) {
			return dst, false
		}
		grown := make([]byte, len(dst), size)
		copy(grown, dst)
		dst = grown
	}
	return append(dst, src[:n]...), true
}

// Pool caps the bytes that the queues of several transports hold together.
// Every queued frame is charged to it; a queue holding less than its
// reserve may go past the cap, so one flooding server cannot starve the
// others of the few frames they need. It is safe for concurrent use.
type Pool struct {
	max  int64
	used atomic.Int64
}

// NewPool allows max bytes of queued frames in all.
func NewPool(max int) *Pool { return &Pool{max: int64(max)} }

// sharedPool is the pool of every transport launched without one.
var sharedPool = NewPool(DefaultPool)

// take charges n bytes if they fit under the cap, or unconditionally when
// force is set, and reports whether it charged them.
func (p *Pool) take(n int64, force bool) bool {
	if force {
		p.used.Add(n)
		return true
	}
	for {
		u := p.used.Load()
		if u+n > p.max {
			return false
		}
		if p.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (p *Pool) give(n int64) { p.used.Add(-n) }

// Used is the bytes charged now.
func (p *Pool) Used() int64 { return p.used.Load() }

// queueReserve is what a queue may hold whatever the pool says: enough for
// a server that answers while another floods, too little to matter when
// every lane of a run floods at once.
const queueReserve = 256 << 10

// queue hands frames from a reader goroutine, which must never wait, to a
// consumer who may be slow or absent. Its cost is capped by bytes, its own
// and its pool's; once a cap is reached new frames are dropped and the
// overflow is remembered.
type queue struct {
	max      int64
	pool     *Pool
	bytes    atomic.Int64 // cost of frames queued or in the deliverer's hand
	overflow atomic.Bool

	mu    sync.Mutex
	items []Frame
	eof   bool
	// busy is set while the deliverer holds frames taken from items. Only
	// when it is clear and items is empty may the reader hand a frame to
	// the consumer itself without overtaking an older one.
	busy bool

	wake chan struct{} // capacity 1: "items or eof changed"
	out  chan Frame    // unbuffered, so every undelivered frame is counted

	// sink, once set, takes the frames out would carry (see Sinker);
	// sinkSet closes then, for a deliverer waiting to send on out.
	sink     atomic.Pointer[Sink]
	sinkSet  chan struct{}
	sinkOnce sync.Once
}

func newQueue(limit int, pool *Pool) *queue {
	if pool == nil {
		pool = sharedPool
	}
	return &queue{
		max:     int64(limit),
		pool:    pool,
		wake:    make(chan struct{}, 1),
		out:     make(chan Frame),
		sinkSet: make(chan struct{}),
	}
}

// setSink makes s take every frame not yet delivered. The queue must have
// one writer (the reader): only then is an idle queue's frame safe to
// hand to s on the writer's goroutine.
func (q *queue) setSink(s Sink) {
	q.sinkOnce.Do(func() {
		q.sink.Store(&s)
		close(q.sinkSet)
	})
}

func frameCost(n int) int64 { return int64(n) + frameOverhead }

// offer queues a copy of line, or drops it when the queue or its pool is
// full. It checks the caps before copying so a flood costs no allocation
// once full. A frame is always accepted into an empty queue, so a
// MaxBuffered below MaxFrame cannot make every long line vanish.
func (q *queue) offer(line []byte, oversize, partial bool) {
	if line == nil {
		line = []byte{} // a line is never an End frame
	}
	q.offerFrame(line, Frame{Oversize: oversize, Partial: partial})
}

// offerFrame is offer for a frame with more than its bytes (HTTP's Via):
// f is copied with Raw set to a copy of line (nil stays nil: an End frame)
// and At to now.
func (q *queue) offerFrame(line []byte, f Frame) {
	cost := frameCost(len(line))
	// Only the reader adds and the deliverer only subtracts, so a stale load
	// can only overestimate what is queued.
	n := q.bytes.Load()
	if n > 0 && n+cost > q.max {
		q.overflow.Store(true)
		return
	}
	if !q.pool.take(cost, n == 0 || n+cost <= queueReserve) {
		q.overflow.Store(true)
		return
	}
	var raw []byte
	if line != nil {
		raw = make([]byte, len(line))
		copy(raw, line)
	}
	f.Raw, f.At = raw, time.Now()
	q.mu.Lock()
	if !q.busy && len(q.items) == 0 {
		if s := q.sink.Load(); s != nil {
			// Nothing is queued or in the deliverer's hand, and only
			// this goroutine adds frames: the sink may take this one here
			// without overtaking an older one.
			q.mu.Unlock()
			if (*s)(f, true) {
				q.pool.give(cost)
				return
			}
			q.mu.Lock()
		} else {
			// A consumer already waiting takes the frame straight from
			// the reader: one goroutine switch per round trip instead of
			// two.
			select {
			case q.out <- f:
				q.mu.Unlock()
				q.pool.give(cost)
				return
			default:
			}
		}
	}
	q.bytes.Add(cost)
	q.items = append(q.items, f)
	q.mu.Unlock()
	q.notify()
}

func (q *queue) finish() {
	q.mu.Lock()
	q.eof = true
	q.mu.Unlock()
	q.notify()
}

func (q *queue) notify() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// maxIdleItems bounds the slice capacity kept between batches, so one burst
// of tiny frames does not pin a large backing array for the transport's life.
const maxIdleItems = 4096

// deliver moves frames to out until the stream has ended and everything was
// delivered, or until stop closes; either way it closes out. It takes the
// whole queue at once, so the reader contends for the lock once per batch
// rather than once per frame.
//
// The reader sends on out too, so out is closed only once the reader has
// finished: after stop that means waiting for it, which the caller ensures
// is brief by closing the reader's input first.
func (q *queue) deliver(stop <-chan struct{}) {
	defer func() {
		q.awaitEOF()
		// Frames left undelivered by stop go with the queue: the pool,
		// which outlives it, must not go on counting them.
		q.pool.give(q.bytes.Swap(0))
		close(q.out)
	}()
	var batch []Frame
	for {
		q.mu.Lock()
		batch, q.items = q.items, batch[:0]
		q.busy = len(batch) > 0
		eof := q.eof
		q.mu.Unlock()
		if len(batch) == 0 {
			if eof {
				return
			}
			select {
			case <-q.wake:
				continue
			case <-stop:
				return
			}
		}
		for i := range batch {
			if !q.hand(batch[i], stop) {
				return
			}
			c := frameCost(len(batch[i].Raw))
			q.bytes.Add(-c)
			q.pool.give(c)
			batch[i] = Frame{} // let the consumer own the only reference
		}
		if cap(batch) > maxIdleItems {
			batch = nil
		}
	}
}

// hand gives f to the sink, or to out's consumer, and reports false when
// stop closed first.
func (q *queue) hand(f Frame, stop <-chan struct{}) bool {
	if s := q.sink.Load(); s != nil {
		(*s)(f, false)
		return true
	}
	select {
	case q.out <- f:
	case <-q.sinkSet:
		(*q.sink.Load())(f, false)
	case <-stop:
		return false
	}
	return true
}

func (q *queue) awaitEOF() {
	for {
		q.mu.Lock()
		eof := q.eof
		q.mu.Unlock()
		if eof {
			return
		}
		<-q.wake
	}
}
