package runner_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// against runs scenarios against the MCP reference server.
func against(scs []*scenario.Scenario, jobs int) *report.Report {
	return againstStarts(scs, jobs, 0)
}

func againstStarts(scs []*scenario.Scenario, jobs, starts int) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: "mcp"}, runner.Config{
		Scenarios: scs, Jobs: jobs, Starts: starts, Timeout: 2 * time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// row is a finding without its count: a notification that arrives as one
// scenario ends may be counted in the next one, whatever the lanes do.
type row struct {
	Rule, Scenario string
	Verdict        verdict.Verdict
}

func rows(rep *report.Report) []row {
	var out []row
	for _, f := range rep.Findings {
		out = append(out, row{f.Rule, f.Scenario, f.Verdict})
	}
	return out
}

// scenarios lists the scenarios of the findings in report order, each once.
func scenarios(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if len(out) == 0 || out[len(out)-1] != f.Scenario {
			out = append(out, f.Scenario)
		}
	}
	return out
}

// pinged is a scenario that pings the server once, and fails rule when
// fail is set, citing the ping's answer.
func pinged(name string, fresh, fail bool, during func()) *scenario.Scenario {
	return &scenario.Scenario{Name: name, Fresh: fresh, Rules: []string{"MCP-PING-1"}, Run: func(e *scenario.Env) error {
		in, _, err := e.Call(map[string]any{"jsonrpc": "2.0", "id": name, "method": "ping"})
		if err != nil {
			return err
		}
		if during != nil {
			during()
		}
		if fail {
			e.Fail("MCP-PING-1", in.Seq, "planted failure in "+name, "nothing", "something")
		} else {
			e.Pass("MCP-PING-1", in.Seq)
		}
		return nil
	}}
}

var _ = Describe("lanes", func() {
	It("reports the same findings, scenario by scenario in suite order, whether lanes run one at a time or side by side", func() {
		format.MaxLength = 0
		one := against(nil, 1)
		Expect(one.Findings).NotTo(BeEmpty())
		for range 2 {
			many := against(nil, 8)
			// Within a scenario, findings come in the order they were
			// first observed, which the server's timing may change (a log
			// notification before or after a response); across scenarios
			// the order is the suite's.
			Expect(rows(many)).To(ConsistOf(rows(one)))
			Expect(scenarios(many)).To(Equal(scenarios(one)))
		}
	})

	It("runs lanes side by side: every fresh scenario is inside its run at once", func() {
		var inside sync.WaitGroup
		inside.Add(3)
		all := make(chan struct{})
		go func() { inside.Wait(); close(all) }()
		var met atomic.Int32
		wait := func() {
			inside.Done()
			select {
			case <-all:
				met.Add(1)
			case <-time.After(20 * time.Second):
			}
		}
		rep := against([]*scenario.Scenario{pinged("a", true, false, wait), pinged("b", true, false, wait), pinged("c", true, false, wait)}, 8)
		Expect(met.Load()).To(BeEquivalentTo(3), "all three lanes were in their scenario at the same time")
		Expect(rep.Summary.Fail).To(BeZero())
	})

	It("runs one scenario at a time with Jobs 1", func() {
		var h highWater
		during := h.during(20 * time.Millisecond)
		against([]*scenario.Scenario{pinged("a", true, false, during), pinged("b", true, false, during), pinged("c", true, false, during)}, 1)
		Expect(h.most.Load()).To(BeEquivalentTo(1))
	})

	It("shares a process within a lane and gives each lane its own", func() {
		var mu sync.Mutex
		peers := map[string]*peer.Peer{}
		mark := func(name string) *scenario.Scenario {
			s := pinged(name, name == "b", false, nil)
			run := s.Run
			s.Run = func(e *scenario.Env) error {
				mu.Lock()
				peers[name] = e.Peer()
				mu.Unlock()
				return run(e)
			}
			return s
		}
		against([]*scenario.Scenario{mark("a"), mark("a2"), mark("b"), mark("b2")}, 8)
		Expect(peers["a"]).To(BeIdenticalTo(peers["a2"]))
		Expect(peers["b"]).To(BeIdenticalTo(peers["b2"]))
		Expect(peers["a"]).NotTo(BeIdenticalTo(peers["b"]))
	})

	It("starts the lanes with the longest waits first, one process start at a time with Starts 1", func() {
		var mu sync.Mutex
		var order []string
		mark := func(name string, idle time.Duration) *scenario.Scenario {
			s := pinged(name, true, false, nil)
			s.Idle = idle
			run := s.Run
			s.Run = func(e *scenario.Env) error {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return run(e)
			}
			return s
		}
		rep := againstStarts([]*scenario.Scenario{mark("quick", 0), mark("slow", time.Second), mark("slowest", 2*time.Second)}, 8, 1)
		Expect(rep.Summary.Fail).To(BeZero())
		Expect(order).To(Equal([]string{"slowest", "slow", "quick"}))
		// The report keeps the suite's order.
		Expect(scenarios(rep)[:3]).To(Equal([]string{"quick", "slow", "slowest"}))
	})

	It("gives a failure the transcript of its own lane", func() {
		rep := against([]*scenario.Scenario{pinged("first", true, false, nil), pinged("second", true, true, nil)}, 8)
		var f *report.Finding
		for i := range rep.Findings {
			if rep.Findings[i].Verdict == verdict.Fail {
				f = &rep.Findings[i]
			}
		}
		Expect(f).NotTo(BeNil())
		Expect(f.Scenario).To(Equal("second"))
		var text []string
		for _, e := range f.Transcript {
			text = append(text, e.Text)
		}
		joined := strings.Join(text, "\n")
		Expect(joined).To(ContainSubstring(`"id":"second"`))
		Expect(joined).NotTo(ContainSubstring(`"id":"first"`))
	})
})

var _ = Describe("lanes of a launched HTTP server", func() {
	It("run one at a time when --url fixes the server's port, and the report says so once", func() {
		scs := []*scenario.Scenario{pinged("a", true, false, nil), pinged("b", true, false, nil)}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: target.Target{Argv: []string{"true"}, Transport: "http",
			URL: "http://127.0.0.1:1/mcp"}}, runner.Config{Scenarios: scs, Jobs: 4, Timeout: 2 * time.Second})
		Expect(err).To(MatchError(testrun.ErrNotStarted))
		var said []string
		for _, n := range rep.Notes {
			if strings.Contains(n, "--jobs 1") {
				said = append(said, n)
			}
		}
		Expect(said).To(Equal([]string{"--url names a fixed port for the launched server, so its processes run one at a time (--jobs 1); put {port} in --url to run 4 at once"}))
	})

	It("keep their jobs when each process gets its own port", func() {
		rep, _ := testrun.Run(testrun.Server{Protocol: "mcp", Command: target.Target{Argv: []string{"true", "{port}"}, Transport: "http"}},
			runner.Config{Scenarios: []*scenario.Scenario{pinged("a", true, false, nil)}, Jobs: 4, Timeout: 2 * time.Second})
		Expect(strings.Join(rep.Notes, "\n")).NotTo(ContainSubstring("--jobs 1"))
	})
})

// running serves the MCP reference server over HTTP in the test process,
// each request passed through hold first; the target reaches it by URL
// alone, as `--url` does.
func running(hold func(r *http.Request)) target.Target {
	t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
		hold(r)
		return w
	})
	DeferCleanup(stop)
	return t
}

var _ = Describe("lanes against a running server (--url alone)", func() {
	It("give every scenario a lane (a session) of its own, so its verdicts do not hang on the scenarios before it", func() {
		// A lane is known by its transcript (a session may be replaced
		// within a lane: these pings come before any initialize).
		var mu sync.Mutex
		lanes := map[string]*transcript.Recorder{}
		mark := func(name string, idle time.Duration) *scenario.Scenario {
			s := pinged(name, false, false, nil)
			s.Idle = idle
			run := s.Run
			s.Run = func(e *scenario.Env) error {
				mu.Lock()
				lanes[name] = e.Peer().Recorder()
				mu.Unlock()
				return run(e)
			}
			return s
		}
		t := running(func(*http.Request) {})
		names := []string{"a", "a2", "waits", "after"}
		_, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{
			Scenarios: []*scenario.Scenario{mark("a", 0), mark("a2", 0), mark("waits", time.Second), mark("after", 0)}, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(lanes).To(HaveLen(len(names)))
		for i, a := range names {
			for _, b := range names[i+1:] {
				Expect(lanes[a]).NotTo(BeIdenticalTo(lanes[b]), "%s and %s share a lane", a, b)
			}
		}
	})

	It("do not fail a server that refuses the liveness probe outside a session (400, as its transport allows)", func() {
		// As the TypeScript SDK's servers do: a POST without a session id
		// that is not initialize gets 400 and an error with id null. The
		// scenario opens no session, so the probe after it is refused.
		t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && !strings.Contains(string(testrun.Body(r)), `"initialize"`) {
				return testrun.NotInitialized(w)
			}
			return w
		})
		DeferCleanup(stop)
		quiet := &scenario.Scenario{Name: "quiet", Rules: []string{"MCP-PING-1"}, Run: func(e *scenario.Env) error {
			e.Skip("MCP-PING-1", "this scenario sends nothing")
			return nil
		}}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t},
			runner.Config{Scenarios: []*scenario.Scenario{quiet}, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Findings).NotTo(BeEmpty())
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
		}
	})

	It("start every lane at once: no lane waits for another's server to speak first", func() {
		// More lanes than CPUs (a launched server's default bound), each
		// held at its first request until all have sent theirs.
		n := runtime.NumCPU() + 1
		var inside sync.WaitGroup
		inside.Add(n)
		all := make(chan struct{})
		go func() { inside.Wait(); close(all) }()
		var met atomic.Int32
		var seen sync.Map
		t := running(func(r *http.Request) {
			if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
				return
			}
			if _, again := seen.LoadOrStore(r.RemoteAddr, true); again {
				return
			}
			inside.Done()
			select {
			case <-all:
				met.Add(1)
			case <-time.After(10 * time.Second):
			}
		})
		var scs []*scenario.Scenario
		for i := range n {
			scs = append(scs, pinged(fmt.Sprint("lane", i), true, false, nil))
		}
		_, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{
			Scenarios: scs, Jobs: n, Timeout: 20 * time.Second, StartupTimeout: 30 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(met.Load()).To(BeEquivalentTo(n), "all %d lanes had sent their first request at the same time", n)
	})
})

// highWater counts the callers inside at once and keeps the most seen.
type highWater struct{ in, most atomic.Int32 }

// during is a function that stays inside for d.
func (h *highWater) during(d time.Duration) func() {
	return func() {
		n := h.in.Add(1)
		for {
			m := h.most.Load()
			if n <= m || h.most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(d)
		h.in.Add(-1)
	}
}
