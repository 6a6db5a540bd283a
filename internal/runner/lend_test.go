package runner_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/testrun"
)

// idler is a scenario that sends nothing and keeps a wait by design
// (scenario.Env.Idle), in which it calls during.
func idler(name string, fresh bool, during func()) *scenario.Scenario {
	return quiet(name, fresh, func(e *scenario.Env) {
		over := e.Idle()
		defer over()
		during()
	})
}

// quiet is a scenario that sends nothing: it calls during and skips its
// rule.
func quiet(name string, fresh bool, during func(*scenario.Env)) *scenario.Scenario {
	return &scenario.Scenario{Name: name, Fresh: fresh, Rules: []string{"MCP-PING-1"}, Run: func(e *scenario.Env) error {
		during(e)
		e.Skip("MCP-PING-1", "this scenario sends nothing")
		return nil
	}}
}

// meeting is n parties that each wait, up to within, for all n to
// arrive; met counts those that saw all arrive.
type meeting struct {
	inside sync.WaitGroup
	all    chan struct{}
	within time.Duration
	met    atomic.Int32
}

func meet(n int, within time.Duration) *meeting {
	m := &meeting{all: make(chan struct{}), within: within}
	m.inside.Add(n)
	go func() { m.inside.Wait(); close(m.all) }()
	return m
}

func (m *meeting) arrive() {
	m.inside.Done()
	select {
	case <-m.all:
		m.met.Add(1)
	case <-time.After(m.within):
	}
}

var _ = Describe("waits by design", func() {
	It("lend their lane against a running server: more lanes wait at once than --jobs lets work", func() {
		const n = 4
		m := meet(n, 10*time.Second)
		var scs []*scenario.Scenario
		for i := range n {
			scs = append(scs, idler(fmt.Sprint("idle", i), false, m.arrive))
		}
		t := running(func(*http.Request) {})
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Scenarios: scs, Jobs: 2, Timeout: 20 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.met.Load()).To(BeEquivalentTo(n), "all %d lanes were in their wait at once, on 2 jobs", n)
		Expect(rep.Summary.Fail).To(BeZero())
	})

	It("open no more sessions at once than session.OpenFactor times --jobs, lent or not", func() {
		const jobs, n = 2, 3 * session.OpenFactor * 2
		var h highWater
		var scs []*scenario.Scenario
		for i := range n {
			scs = append(scs, idler(fmt.Sprint("idle", i), false, h.during(100*time.Millisecond)))
		}
		t := running(func(*http.Request) {})
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Scenarios: scs, Jobs: jobs, Timeout: 20 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Summary.Fail).To(BeZero())
		Expect(h.most.Load()).To(BeNumerically("<=", session.OpenFactor*jobs), "sessions open at once")
		Expect(h.most.Load()).To(BeNumerically(">", jobs), "waits lent their lanes")
	})

	It("keep their lane with --jobs 1 against a running server, and on a launched server's processes", func() {
		// Each wait ends when all have come, or after a second: of lanes
		// that kept their places, only the last sees all come.
		m := meet(2, time.Second)
		t := running(func(*http.Request) {})
		_, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Jobs: 1, Timeout: 5 * time.Second,
			Scenarios: []*scenario.Scenario{idler("a", false, m.arrive), idler("b", false, m.arrive)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.met.Load()).To(BeNumerically("<", 2), "two waits at once with --jobs 1")
		m = meet(3, time.Second)
		against([]*scenario.Scenario{idler("a", true, m.arrive), idler("b", true, m.arrive), idler("c", true, m.arrive)}, 2)
		Expect(m.met.Load()).To(BeNumerically("<", 3), "three processes at once with --jobs 2")
	})
})

var _ = Describe("a lane that waits a second or more against a running server", func() {
	It("starts at once, though the quick lanes of another run sharing the pool hold every lane", func() {
		pool := runner.NewPool(2, 2)
		t := running(func(*http.Request) {})
		quick := meet(2, 0)
		long := make(chan struct{})
		var seen atomic.Int32
		hold := func(*scenario.Env) {
			quick.inside.Done()
			select {
			case <-long:
				seen.Add(1)
			case <-time.After(10 * time.Second):
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			_, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Pool: pool, Timeout: 20 * time.Second,
				Scenarios: []*scenario.Scenario{quiet("q1", false, hold), quiet("q2", false, hold)}})
			Expect(err).NotTo(HaveOccurred())
		})
		// The second run plans once the first holds both lanes.
		<-quick.all
		waits := quiet("waits", false, func(*scenario.Env) { close(long) })
		waits.Idle = 2 * time.Second
		_, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Pool: pool, Timeout: 20 * time.Second,
			Scenarios: []*scenario.Scenario{waits}})
		Expect(err).NotTo(HaveOccurred())
		wg.Wait()
		Expect(seen.Load()).To(BeEquivalentTo(2), "the long lane started while both quick lanes were at work")
	})
})

var _ = Describe("Halt", func() {
	It("ends the lanes not yet started once it gives a reason, their scenarios not run for it, and the report counts them", func() {
		var started atomic.Int32
		var scs []*scenario.Scenario
		for i := range 6 {
			scs = append(scs, quiet(fmt.Sprint("s", i), false, func(*scenario.Env) { started.Add(1) }))
		}
		t := running(func(*http.Request) {})
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{Scenarios: scs, Jobs: 1, Timeout: 5 * time.Second,
			Halt: func() string {
				if started.Load() >= 2 {
					return "the server said enough"
				}
				return ""
			}})
		Expect(err).NotTo(HaveOccurred())
		Expect(started.Load()).To(BeEquivalentTo(2), "lanes started after the reason")
		Expect(rep.Notes).To(ContainElement("4 scenario(s) not run: the server said enough"))
		n := 0
		for _, f := range rep.Findings {
			if strings.Contains(f.Message, "not run: the server said enough") {
				n++
			}
		}
		Expect(n).To(Equal(4))
	})
})
