//go:build linux

package transport

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing/iotest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"
)

func (q *queue) eofSeen() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.eof
}

type got struct {
	raw      string
	oversize bool
	partial  bool
}

func collect(r io.Reader, maxFrame, bufSize int) ([]got, error) {
	var out []got
	err := splitLines(r, maxFrame, bufSize, nil, func(line []byte, oversize, partial bool) {
		out = append(out, got{string(line), oversize, partial})
	})
	return out, err
}

// model is splitLines' contract written the obvious way, holding everything.
func model(data []byte, maxFrame int) []got {
	var out []got
	lines := bytes.Split(data, []byte("\n"))
	tail := lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		if len(l) > maxFrame {
			out = append(out, got{string(l[:maxFrame]), true, false})
		} else {
			out = append(out, got{string(l), false, false})
		}
	}
	switch {
	case len(tail) > maxFrame:
		out = append(out, got{string(tail[:maxFrame]), true, false})
	case len(tail) > 0:
		out = append(out, got{string(tail), false, true})
	}
	return out
}

// chunkReader returns data in the given chunk sizes, so pipe reads that
// split lines anywhere are covered.
type chunkReader struct {
	data   []byte
	chunks []int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.chunks) > 0 {
		n = min(n, c.chunks[0])
		c.chunks = c.chunks[1:]
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

var _ = Describe("splitLines", func() {
	It("matches the model for any bytes, cap, buffer and read sizes", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			alphabet := []byte{'a', 'b', '\n', '\r', 0, 0xff}
			data := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 300).Draw(t, "data")
			maxFrame := rapid.IntRange(1, 40).Draw(t, "maxFrame")
			bufSize := rapid.IntRange(16, 64).Draw(t, "bufSize") // bufio's minimum is 16
			chunks := rapid.SliceOf(rapid.IntRange(1, 70)).Draw(t, "chunks")

			out, err := collect(&chunkReader{data: data, chunks: chunks}, maxFrame, bufSize)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			want := model(data, maxFrame)
			if len(out) != len(want) {
				t.Fatalf("got %d frames %+v, want %d %+v", len(out), out, len(want), want)
			}
			for i := range want {
				if out[i] != want[i] {
					t.Fatalf("frame %d: got %+v, want %+v", i, out[i], want[i])
				}
			}
		})
	})

	It("allocates nothing in proportion to an over-long line", func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		long := io.LimitReader(repeatReader('x'), 64<<20)
		out, err := collect(io.MultiReader(long, strings.NewReader("\nok\n")), 100, 4096)
		runtime.ReadMemStats(&after)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal([]got{{strings.Repeat("x", 100), true, false}, {"ok", false, false}}))
		Expect(after.TotalAlloc - before.TotalAlloc).To(BeNumerically("<", 1<<20))
	})

	It("passes on a read error after the partial line", func() {
		out, err := collect(iotest.TimeoutReader(strings.NewReader("abc")), 10, 16)
		Expect(err).To(MatchError(iotest.ErrTimeout))
		Expect(out).To(Equal([]got{{"abc", false, true}}))
	})
})

var _ = Describe("appendCapped", func() {
	It("grows to the cap and no further", func() {
		var b []byte
		for range 100 {
			b, _ = appendCapped(b, []byte("0123456789"), 95, nil)
		}
		Expect(b).To(HaveLen(95))
		Expect(cap(b)).To(Equal(95))
	})
})

var _ = Describe("queue", func() {
	It("drops what does not fit, keeps order, and closes after the end", func() {
		q := newQueue(3*(10+frameOverhead), NewPool(1<<30))
		for i := range 5 {
			q.offer([]byte(strings.Repeat(string(rune('a'+i)), 10)), false, false)
		}
		Expect(q.overflow.Load()).To(BeTrue())
		q.finish()
		stop := make(chan struct{})
		go q.deliver(stop)
		var out []string
		for f := range q.out {
			out = append(out, string(f.Raw))
		}
		Expect(out).To(Equal([]string{"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"}))
		Expect(q.bytes.Load()).To(BeZero())
	})

	It("accepts a frame bigger than the cap into an empty queue", func() {
		q := newQueue(10, NewPool(1<<30))
		q.offer(make([]byte, 100), true, false)
		q.offer([]byte("x"), false, false)
		Expect(q.overflow.Load()).To(BeTrue())
		Expect(q.items).To(HaveLen(1))
		Expect(q.items[0].Raw).To(HaveLen(100))
	})

	It("charges empty frames, so a flood of them is bounded", func() {
		q := newQueue(64<<10, NewPool(1<<30))
		for range 1_000_000 {
			q.offer(nil, false, false)
		}
		Expect(q.items).To(HaveLen((64 << 10) / frameOverhead))
		Expect(q.items[0].Raw).NotTo(BeNil())
		Expect(q.items[0].Raw).To(BeEmpty())
	})

	It("stops delivering when told to, closing its channel once the reader is done", func() {
		q := newQueue(1<<20, NewPool(1<<30))
		q.offer([]byte("never read"), false, false)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			q.deliver(stop)
			close(done)
		}()
		Consistently(done).WithTimeout(50 * time.Millisecond).ShouldNot(BeClosed())
		close(stop)
		// The reader may still send on the channel; closing it now could
		// make that send panic.
		Consistently(done).WithTimeout(50 * time.Millisecond).ShouldNot(BeClosed())
		q.finish()
		Eventually(done).Should(BeClosed())
		Eventually(q.out).Should(BeClosed())
	})

	It("hands a frame straight to a waiting consumer, never ahead of queued ones", func() {
		q := newQueue(1<<20, NewPool(1<<30))
		received := make(chan string)
		go func() {
			for f := range q.out {
				received <- string(f.Raw)
			}
			close(received)
		}()
		// No deliverer runs yet: only the direct path can deliver.
		// Until the consumer is parked on the channel the frame is queued;
		// take it back out and try again.
		Eventually(func() bool {
			q.offer([]byte("direct"), false, false)
			if len(q.items) == 0 {
				return true
			}
			q.items = nil
			q.bytes.Store(0)
			return false
		}).Should(BeTrue())
		Expect(<-received).To(Equal("direct"))

		q.busy = true // as if the deliverer held older frames
		q.offer([]byte("queued"), false, false)
		Expect(q.items).To(HaveLen(1))
		q.busy = false
		q.offer([]byte("behind"), false, false)
		Expect(q.items).To(HaveLen(2))

		stop := make(chan struct{})
		go q.deliver(stop)
		Expect(<-received).To(Equal("queued"))
		Expect(<-received).To(Equal("behind"))
		q.finish()
		Eventually(received).Should(BeClosed())
	})
})

// sinkLog is a Sink that records what it took and on which path, and
// refuses inline what refuse says.
type sinkLog struct {
	mu     sync.Mutex
	took   []string
	inline []bool
	refuse func(string) bool
}

func (l *sinkLog) sink(f Frame, inline bool) bool {
	if inline && l.refuse != nil && l.refuse(string(f.Raw)) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.took = append(l.took, string(f.Raw))
	l.inline = append(l.inline, inline)
	return true
}

func (l *sinkLog) taken() ([]string, []bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.took...), append([]bool(nil), l.inline...)
}

var _ = Describe("a queue with a sink", func() {
	It("gives it what was queued before it was set, in order, then the rest on the reader's goroutine", func() {
		q := newQueue(1<<20, NewPool(1<<30))
		stop := make(chan struct{})
		go q.deliver(stop)
		// Nobody reads out: the deliverer holds "first" and waits.
		q.offer([]byte("first"), false, false)
		Eventually(func() bool { q.mu.Lock(); defer q.mu.Unlock(); return q.busy }).Should(BeTrue())
		q.offer([]byte("second"), false, false)
		var l sinkLog
		q.setSink(l.sink)
		Eventually(func() []string { t, _ := l.taken(); return t }).Should(Equal([]string{"first", "second"}))
		Eventually(func() bool { q.mu.Lock(); defer q.mu.Unlock(); return !q.busy && len(q.items) == 0 }).Should(BeTrue())

		q.offer([]byte("third"), false, false)
		took, inline := l.taken()
		Expect(took).To(Equal([]string{"first", "second", "third"}))
		Expect(inline).To(Equal([]bool{false, false, true}), "an idle queue's frame is taken where it was read")
		q.finish()
		Eventually(q.out).Should(BeClosed())
		Expect(q.bytes.Load()).To(BeZero())
	})

	It("queues what the sink refuses inline, and what comes behind it, and hands both over in order", func() {
		q := newQueue(1<<20, NewPool(1<<30))
		l := sinkLog{refuse: func(s string) bool { return strings.HasPrefix(s, "request") }}
		q.setSink(l.sink)
		q.offer([]byte("answer 1"), false, false)
		q.offer([]byte("request"), false, false)
		q.offer([]byte("answer 2"), false, false)
		took, _ := l.taken()
		Expect(took).To(Equal([]string{"answer 1"}))
		Expect(q.items).To(HaveLen(2), "the refused frame, and the one behind it that must not overtake it")

		stop := make(chan struct{})
		go q.deliver(stop)
		Eventually(func() []string { t, _ := l.taken(); return t }).Should(Equal([]string{"answer 1", "request", "answer 2"}))
		_, inline := l.taken()
		Expect(inline).To(Equal([]bool{true, false, false}))
		q.finish()
		Eventually(q.out).Should(BeClosed())
	})

	It("never runs the sink twice at once, nor out of order, under a stream of frames", func() {
		q := newQueue(1<<30, NewPool(1<<30))
		var busy atomic.Bool
		var got []int
		var overlap atomic.Bool
		q.setSink(func(f Frame, inline bool) bool {
			if inline && len(f.Raw)%3 == 0 {
				return false // some go the deliverer's way
			}
			if !busy.CompareAndSwap(false, true) {
				overlap.Store(true)
			}
			n, _ := strconv.Atoi(string(f.Raw))
			got = append(got, n)
			busy.Store(false)
			return true
		})
		stop := make(chan struct{})
		go q.deliver(stop)
		const n = 20000
		for i := range n {
			q.offer([]byte(strconv.Itoa(i)), false, false)
		}
		q.finish()
		Eventually(q.out).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(overlap.Load()).To(BeFalse())
		Expect(got).To(HaveLen(n))
		for i, v := range got {
			Expect(v).To(Equal(i))
		}
	})
})

var _ = Describe("a pool shared by queues", func() {
	// fill offers n frames of size bytes and returns how many were kept.
	fill := func(q *queue, n, size int) int {
		for range n {
			q.offer(make([]byte, size), false, false)
		}
		return len(q.items)
	}

	It("caps what the queues hold together, beyond each one's reserve", func() {
		pool := NewPool(1 << 20)
		a := newQueue(64<<20, pool)
		b := newQueue(64<<20, pool)
		c := frameCost(1000)
		kept := fill(a, 10_000, 1000)
		Expect(int64(kept) * c).To(BeNumerically("<=", 1<<20+c))
		Expect(a.overflow.Load()).To(BeTrue())
		// The pool is spent, yet a queue holding less than its reserve
		// still gets its frames: one flooding server does not starve the
		// others of their answers.
		Expect(fill(b, 10, 1000)).To(Equal(10))
		Expect(b.overflow.Load()).To(BeFalse())
		kept = fill(b, 10_000, 1000)
		Expect(int64(kept) * c).To(BeNumerically("<=", queueReserve))
		Expect(pool.Used()).To(BeNumerically("<=", 1<<20+queueReserve+c))
	})

	It("gets back what was delivered, and what a stopped queue never delivered", func() {
		pool := NewPool(1 << 20)
		a := newQueue(64<<20, pool)
		fill(a, 100, 1000)
		Expect(pool.Used()).To(Equal(100 * frameCost(1000)))
		stop := make(chan struct{})
		go a.deliver(stop)
		for range 40 {
			<-a.out
		}
		close(stop)
		a.finish()
		Eventually(a.out).Should(BeClosed())
		Expect(pool.Used()).To(BeZero())
	})

	It("is what Launch uses unless told otherwise, so the servers of a run share it", func() {
		o := Options{Command: []string{"true"}}.withDefaults()
		Expect(o.Pool).To(BeIdenticalTo(sharedPool))
		Expect(o.MaxBuffered).To(Equal(DefaultMaxBuffered))
		Expect(o.MaxStderrLine).To(Equal(DefaultMaxStderrLine))
	})
})

// longLine yields n bytes of 'x' and a '\n' without holding them, then
// reports on parked that the next Read came and blocks in it until done
// closes.
type longLine struct {
	n      int
	parked chan struct{}
	done   chan struct{}
}

func (l *longLine) Read(p []byte) (int, error) {
	switch {
	case l.n > 0:
		k := min(l.n, len(p))
		for i := range p[:k] {
			p[i] = 'x'
		}
		l.n -= k
		return k, nil
	case l.n == 0:
		p[0] = '\n'
		l.n = -1
		return 1, nil
	}
	close(l.parked)
	<-l.done
	return 0, io.EOF
}

var _ = Describe("splitLines' long-line buffer", func() {
	It("goes back to the heap once its line is done", func() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := &longLine{n: 3 << 20, parked: make(chan struct{}), done: make(chan struct{})}
		DeferCleanup(func() { close(r.done) })
		got := make(chan int, 1)
		go func() {
			_ = splitLines(r, 4<<20, 4096, nil, func(l []byte, _, _ bool) { got <- len(l) })
		}()
		Expect(<-got).To(Equal(3 << 20))
		// The reader is back in Read with the line behind it, as after a
		// server's one big answer.
		<-r.parked
		runtime.GC()
		runtime.ReadMemStats(&after)
		Expect(int64(after.HeapInuse)-int64(before.HeapInuse)).To(BeNumerically("<", 2<<20), "a 3 MiB buffer is still held")
	})
})
