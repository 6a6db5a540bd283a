package transport

import "sync"

// Queue is the capped frame queue of the stdio transport, for transports
// built outside this package (HTTP): the same MaxBuffered and Pool caps,
// the same flood verdict. Unlike stdio's, it takes frames from any number
// of goroutines (one per HTTP exchange).
type Queue struct {
	mu     sync.Mutex // serializes offers: the queue's caps assume one writer
	q      *queue
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// NewQueue starts delivering frames on Out; Close stops it.
func NewQueue(maxBuffered int, pool *Pool) *Queue {
	if maxBuffered <= 0 {
		maxBuffered = DefaultMaxBuffered
	}
	q := &Queue{q: newQueue(maxBuffered, pool), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.q.deliver(q.stop)
	}()
	return q
}

// Offer queues f with a copy of raw as its Raw (nil stays nil), or drops
// it when a cap is reached; after Close it does nothing.
func (q *Queue) Offer(raw []byte, f Frame) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.q.offerFrame(raw, f)
}

// Out delivers the frames in the order offered; it is closed by Close.
func (q *Queue) Out() <-chan Frame { return q.q.out }

// Overflowed reports whether frames were dropped at a cap.
func (q *Queue) Overflowed() bool { return q.q.overflow.Load() }

// Close drops the frames not yet delivered, closes Out and returns once
// the deliverer is gone. It is safe to call more than once.
func (q *Queue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		<-q.done
		return
	}
	q.closed = true
	q.q.finish()
	q.mu.Unlock()
	close(q.stop)
	<-q.done
}
