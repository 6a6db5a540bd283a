package session_test

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/session"
)

var _ = Describe("the session pool", func() {
	It("gives a free lane to the waiting lane that declared the longest wait, whoever asked first", func() {
		p := session.NewPool(1, 1)
		free, ok := p.Lane(context.Background())
		Expect(ok).To(BeTrue())
		got := make(chan string, 3)
		ask := func(name string, wait time.Duration, waiting int) {
			go func() {
				f, ok := p.LaneFor(context.Background(), wait)
				if ok {
					got <- name
					f()
				}
			}()
			Eventually(func() int { return session.Waiting(p) }).Should(Equal(waiting))
		}
		ask("quick", 0, 1)
		ask("task", 5*time.Second, 2)
		ask("also quick", 0, 3)
		free()
		Expect([]string{<-got, <-got, <-got}).To(Equal([]string{"task", "quick", "also quick"}))
	})
	It("hands on a lane granted to a waiter whose ctx ended", func() {
		p := session.NewPool(1, 1)
		free, _ := p.Lane(context.Background())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan bool)
		go func() { _, ok := p.LaneFor(ctx, time.Second); done <- ok }()
		Eventually(func() int { return session.Waiting(p) }).Should(Equal(1))
		cancel()
		Expect(<-done).To(BeFalse())
		free()
		f, ok := p.Lane(context.Background())
		Expect(ok).To(BeTrue(), "the lane came free")
		f()
	})
	It("bounds the lanes at once, and frees a lane once", func() {
		p := session.NewPool(2, 1)
		Expect(p.Jobs()).To(Equal(2))
		free1, ok := p.Lane(context.Background())
		Expect(ok).To(BeTrue())
		_, ok = p.Lane(context.Background())
		Expect(ok).To(BeTrue())
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, ok = p.Lane(ctx)
		Expect(ok).To(BeFalse(), "a third lane waits until its ctx ends")
		free1()
		free1()
		_, ok = p.Lane(context.Background())
		Expect(ok).To(BeTrue())
		ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel2()
		_, ok = p.Lane(ctx2)
		Expect(ok).To(BeFalse(), "freeing twice freed one lane")
	})

	It("ends a wait for a start when abort is closed", func() {
		p := session.NewPool(1, 1)
		_, ok := p.Start(context.Background(), nil)
		Expect(ok).To(BeTrue())
		abort := make(chan struct{})
		close(abort)
		_, ok = p.Start(context.Background(), abort)
		Expect(ok).To(BeFalse())
	})

	It("starts spares no more at once than the pool's starts, hands them out oldest first and ends those nobody took", func() {
		p := session.NewPool(4, 2)
		var now, most, n atomic.Int32
		start := func() (int, error) {
			cur := now.Add(1)
			for {
				m := most.Load()
				if cur <= m || most.CompareAndSwap(m, cur) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			now.Add(-1)
			return int(n.Add(1)), nil
		}
		sp := session.NewSpares(context.Background(), p, start)
		sp.TopUp(5)
		got, err := sp.Take()
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(BeNumerically(">=", 1))
		var mu sync.Mutex
		var ended []int
		sp.Close(func(v int, err error) {
			mu.Lock()
			ended = append(ended, v)
			mu.Unlock()
		})
		Expect(ended).To(HaveLen(4), "the four spares nobody took")
		Expect(sp.Spawned()).To(BeEquivalentTo(5))
		Expect(most.Load()).To(BeEquivalentTo(2), "two starts at once at most")
	})
})
