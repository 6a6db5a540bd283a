package protocols_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the pool the tables' runs go through", func() {
	some := func(n int) []run {
		var rs []run
		for i := range n {
			rs = append(rs, run{Protocol: "p", Kind: "fault", Name: fmt.Sprint(i)})
		}
		return rs
	}

	It("runs every run once, never more than its limit at once", func() {
		var running, most atomic.Int32
		var mu sync.Mutex
		times := map[run]int{}
		release := make(chan struct{})
		p := newPool(2, func(r run) outcome {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release
			mu.Lock()
			times[r]++
			mu.Unlock()
			running.Add(-1)
			return outcome{}
		})
		rs := some(6)
		p.enqueue(rs)
		Eventually(running.Load).Should(BeEquivalentTo(2))
		close(release)
		for _, r := range append(rs, rs[0]) {
			p.get(r)
		}
		Expect(most.Load()).To(BeEquivalentTo(2))
		for _, r := range rs {
			Expect(times[r]).To(Equal(1), "run %s", r)
		}
	})

	It("runs first the run a spec waits for", func() {
		var mu sync.Mutex
		var order []string
		done := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), order...)
		}
		started := make(chan run)
		release := make(chan struct{})
		p := newPool(1, func(r run) outcome {
			started <- r
			<-release
			mu.Lock()
			order = append(order, r.Name)
			mu.Unlock()
			return outcome{}
		})
		rs := some(3)
		p.enqueue(rs)
		Expect(<-started).To(Equal(rs[0]))
		waited := make(chan struct{})
		go func() {
			p.get(rs[2])
			close(waited)
		}()
		Eventually(func() run {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.queue[0]
		}).Should(Equal(rs[2]))
		go func() {
			for range started {
			}
		}()
		close(release)
		<-waited
		Expect(done()[:2]).To(Equal([]string{"0", "2"}))
		p.get(rs[1])
		close(started)
		Expect(done()).To(Equal([]string{"0", "2", "1"}))
	})

	It("foresees which specs -ginkgo.focus and -ginkgo.skip leave to run, matching the suite's name too", func() {
		all := focused(types.SuiteConfig{})
		Expect(all("the reference servers mcp with a fault x")).To(BeTrue())
		sonde := focused(types.SuiteConfig{FocusStrings: []string{"sonde-serve"}, SkipStrings: []string{"answer-empty"}})
		Expect(sonde("the reference servers sonde-serve with a fault reports y")).To(BeTrue())
		Expect(sonde("the reference servers sonde-serve with a fault reports answer-empty")).To(BeFalse())
		Expect(sonde("the reference servers mcp with a fault reports y")).To(BeFalse())
		anchored := focused(types.SuiteConfig{FocusStrings: []string{"^" + suiteDescription + " the reference servers mcp"}})
		Expect(anchored("the reference servers mcp passes")).To(BeTrue())
	})
})

var _ = Describe("the verdict record", func() {
	r := run{Protocol: "p", Kind: "fault", Name: "f"}
	failing := func(rule string, v verdict.Verdict) outcome {
		return outcome{rep: &report.Report{Findings: []report.Finding{{Rule: rule, Verdict: v}}}}
	}

	It("holds each rule not passing with its verdict, and a server that never started", func() {
		Expect(verdictRows(failing("R-1", verdict.Fail))).To(Equal([]string{"R-1 fail"}))
		Expect(verdictRows(failing("R-1", verdict.Pass))).To(Equal([]string{allPass}))
		Expect(verdictRows(outcome{err: fmt.Errorf("x: %w", testrun.ErrNotStarted)})).To(Equal([]string{notStarted}))
	})

	It("fails a run whose verdicts differ from it, or that it lacks", func() {
		record := map[string][]string{r.String(): {"R-1 fail"}}
		Expect(InterceptGomegaFailures(func() { expectSame(record, r, failing("R-1", verdict.Fail)) })).To(BeEmpty())
		Expect(InterceptGomegaFailures(func() { expectSame(record, r, failing("R-1", verdict.Error)) })).To(ConsistOf(ContainSubstring("- R-1 fail")))
		Expect(InterceptGomegaFailures(func() { expectSame(record, r, failing("R-2", verdict.Fail)) })).NotTo(BeEmpty())
		Expect(InterceptGomegaFailures(func() { expectSame(map[string][]string{}, r, failing("R-1", verdict.Fail)) })).To(ConsistOf(ContainSubstring("UPDATE_VERDICTS=1")))
	})
})
