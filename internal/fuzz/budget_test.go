package fuzz_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// fakeClock moves one step each time a sequence ends, so the budgets are
// spent by how many sequences ran, not by how fast the machine is.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) tick() {
	c.mu.Lock()
	c.t = c.t.Add(c.step)
	c.mu.Unlock()
}

// clocked runs a campaign on the fake clock against argv and returns
// the steps of every sequence as JSON.
func clocked(argv []string, duration, shrink time.Duration, runs int, seed uint64) (*fuzz.Campaign, []*fuzz.Bug, []string) {
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	clock := &fakeClock{t: time.Unix(0, 0), step: time.Second}
	var traces []string
	c, err := fuzz.New(fuzz.Config{
		Protocol: b.Protocol, Schemas: b.Schemas,
		Target: target.Target{Argv: argv},
		// A sequence costs a step of the clock, fresh process or not.
		Trace: func(steps []scenario.Step) {
			clock.tick()
			js, err := json.Marshal(steps)
			Expect(err).NotTo(HaveOccurred())
			traces = append(traces, string(js))
		},
		// Waits generous enough that a loaded machine never adds a
		// failure of its own; the fake clock does not see them.
		Runs: runs, Duration: duration, Seed: seed, Timeout: 10 * time.Second, StartupTimeout: 30 * time.Second,
		ShrinkTime: shrink, Now: clock.Now,
	})
	Expect(err).NotTo(HaveOccurred())
	start := time.Now()
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	// Generous: the campaign is a few dozen sequences.
	Expect(time.Since(start)).To(BeNumerically("<", 3*time.Minute))
	return c, bugs, traces
}
func budgeted(duration, shrink time.Duration, runs int, seed uint64) (*fuzz.Campaign, []*fuzz.Bug) {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	c, bugs, _ := clocked([]string{bin, "serve", "sonde-serve", "--fault", "exit-non-object"}, duration, shrink, runs, seed)
	return c, bugs
}

var _ = Describe("the fuzz budget", func() {
	It("holds --duration for the whole campaign: shrinking is cut off at it and the failure saved as far as it got", func() {
		// With seed 10 the first failure comes a few sequences in, and
		// shrinking it takes more reruns than the rest: 40 cuts it off.
		c, bugs := budgeted(40*time.Second, time.Hour, 0, 10)
		Expect(bugs).NotTo(BeEmpty())
		st := c.Stats()
		// A sequence costs a step; the budget is exceeded by at most the
		// one running when it ran out.
		Expect(st.Elapsed).To(BeNumerically("<=", 40*time.Second+time.Second))
		Expect(st.Shrinking).To(BeNumerically(">", 0))
		Expect(st.Shrinking).To(BeNumerically("<", st.Elapsed))
		Expect(st.Cut).To(Equal(1), describeBugs(bugs))
		cut := bugs[len(bugs)-1]
		for _, b := range bugs {
			if b.Unshrunk != "" {
				cut = b
			}
		}
		Expect(cut.Unshrunk).To(ContainSubstring("--duration budget (40s) ran out"))
		Expect(st.Parts()).To(MatchRegexp(`^generation \S+, shrinking \S+ \(1 failure\(s\) saved before shrinking ended`))

		dir := GinkgoT().TempDir()
		file, err := c.Save(cut, dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(readFile(file)).To(ContainSubstring("# Not minimal: shrinking stopped after"))
		// The header says how far it got, never that it is minimal.
		Expect(cut.Shrinking()).To(MatchRegexp(`^(shrunk to \d+ steps \(from \d+; |not shrunk \()shrinking stopped: budget spent\)`))
		Expect(readFile(file)).To(And(ContainSubstring("# Reproducer "+cut.Shrinking()+".\n"),
			ContainSubstring("# Transcript of the run saved above, "+cut.Shrinking()+":\n"), Not(ContainSubstring("minimal run"))))
		rep := c.Report(bugs, nil)
		Expect(strings.Join(rep.Notes, "\n")).To(ContainSubstring("generation "))
	})

	It("bounds the shrinking of one failure by --shrink-time when --runs sets the budget", func() {
		c, bugs := budgeted(0, 5*time.Second, 40, 42)
		Expect(bugs).NotTo(BeEmpty())
		for _, b := range bugs {
			Expect(b.Shrunk).To(BeNumerically("<=", 5*time.Second+time.Second))
		}
		Expect(c.Stats().Cut).To(BeNumerically(">=", 1), describeBugs(bugs))
		Expect(bugs[0].Unshrunk + bugs[len(bugs)-1].Unshrunk).To(ContainSubstring("--shrink-time 5s"))
	})

	It("saves a failure as found when --shrink-time is spent before the first rerun, and its header says it is not shrunk", func() {
		c, bugs := budgeted(0, time.Nanosecond, 10, 10)
		Expect(bugs).NotTo(BeEmpty())
		dir := GinkgoT().TempDir()
		unshrunk := 0
		for _, b := range bugs {
			file, err := c.Save(b, dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(readFile(file)).To(And(ContainSubstring("# Reproducer "+b.Shrinking()+".\n"), Not(ContainSubstring("minimal run"))))
			if b.Stop != "" && len(b.Steps) == b.Found {
				unshrunk++
				Expect(readFile(file)).To(ContainSubstring(fmt.Sprintf("# Reproducer not shrunk (shrinking stopped: budget spent): the %d steps as found.", len(b.Steps))))
			}
		}
		Expect(unshrunk).To(BeNumerically(">=", 1), describeBugs(bugs))
		var out strings.Builder
		fuzz.Summary(&out, c.Stats(), bugs, func(f string) string { return f })
		Expect(out.String()).To(ContainSubstring("reproducer not shrunk (shrinking stopped: budget spent)"))
	})

	It("caps --runs with --duration: the cap ends the campaign before its runs, and the summary and report say so", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		// A correct server: every sequence passes, each a step of the
		// clock, so 8 s of it end the campaign long before 1,000 runs.
		c, bugs, _ := clocked([]string{bin, "serve", "sonde-serve"}, 8*time.Second, time.Second, 1000, 3)
		Expect(bugs).To(BeEmpty())
		st := c.Stats()
		Expect(st.Capped).To(BeTrue())
		Expect(st.Generated).To(BeNumerically("<", 1000))
		var out strings.Builder
		fuzz.Summary(&out, st, bugs, nil)
		Expect(out.String()).To(ContainSubstring(fmt.Sprintf("stopped at the --duration cap (8s) before --runs 1000: %d of 1000 sequences generated", st.Generated)))
		Expect(c.Report(bugs, nil).Notes).To(ContainElement(ContainSubstring("stopped at the --duration cap (8s) before --runs 1000")))

		By("runs done within the cap say nothing of it")
		c, _, _ = clocked([]string{bin, "serve", "sonde-serve"}, time.Hour, time.Second, 5, 3)
		Expect(c.Stats().Capped).To(BeFalse())
		Expect(c.Stats().Generated).To(BeEquivalentTo(5))
		out.Reset()
		fuzz.Summary(&out, c.Stats(), nil, nil)
		Expect(out.String()).NotTo(ContainSubstring("cap"))
	})

	It("caps --runs alone at DefaultCap", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		c, _, _ := clocked([]string{bin, "serve", "sonde-serve"}, 0, time.Second, 5, 3)
		Expect(c.Stats().Cap).To(Equal(fuzz.DefaultCap))
	})
})

var _ = Describe("shrinking", func() {
	It("is the same for the same seed, though the server's messages differ from process to process", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		// Each process says its pid on stderr first, so the failure's
		// message (which quotes the last stderr) differs on every rerun,
		// as which of a write to an exited server and its exit is seen
		// first does on a loaded machine.
		argv := []string{"sh", "-c", `echo "pid $$" >&2; exec "$0" serve sonde-serve --fault exit-non-object`, bin}
		_, bugs, traces := clocked(argv, 0, time.Hour, 10, 10)
		Expect(bugs).NotTo(BeEmpty())
		Expect(smallest(bugs)).To(Equal(2), "tools/list and the line the server exits on: %s", describeBugs(bugs))
		_, again, tracesAgain := clocked(argv, 0, time.Hour, 10, 10)
		Expect(tracesAgain).To(Equal(traces))
		Expect(reproducers(again)).To(Equal(reproducers(bugs)))
	})

	It("ends when reruns find nothing smaller, long before --shrink-time", func() {
		c, bugs := budgeted(0, time.Hour, 10, 10)
		Expect(bugs).NotTo(BeEmpty())
		st := c.Stats()
		Expect(st.Cut).To(BeZero())
		// A rerun costs a step of the fake clock: an hour would be 3,600
		// of them.
		Expect(st.Shrinking).To(BeNumerically("<", 10*time.Minute))
		dir := GinkgoT().TempDir()
		for _, b := range bugs {
			Expect(b.Unshrunk).To(BeEmpty())
			Expect(b.Shrinking()).To(MatchRegexp(`^shrunk to \d+ steps \(from \d+; shrinking finished\)$`))
			file, err := c.Save(b, dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(readFile(file)).To(ContainSubstring("# Transcript of the run saved above, " + b.Shrinking() + ":\n"))
		}
		Expect(smallest(bugs)).To(Equal(2), describeBugs(bugs))
	})
})

// smallest is how many messages the smallest reproducer sends.
func smallest(bugs []*fuzz.Bug) int {
	n := -1
	for _, b := range bugs {
		if m := sends(b.Steps); n < 0 || m < n {
			n = m
		}
	}
	return n
}

// reproducers is what identifies the bugs and their reproducers.
func reproducers(bugs []*fuzz.Bug) []string {
	var out []string
	for _, b := range bugs {
		js, err := json.Marshal(b.Steps)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, fmt.Sprintf("%s after %s, %d hits: %s", b.Rule, b.Shape, b.Hits, js))
	}
	return out
}

func describeBugs(bugs []*fuzz.Bug) string {
	var b strings.Builder
	for _, bug := range bugs {
		fmt.Fprintf(&b, "%s after %s: %s; shrunk %s %s; history %v, %d sends\n", bug.Rule, bug.Shape, bug.First.Message, bug.Shrunk, bug.Unshrunk, bug.History, sends(bug.Steps))
	}
	return b.String()
}

func readFile(name string) string {
	data, err := os.ReadFile(name)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

var _ = Describe("the first answer of a server without a ready line", func() {
	It("gets --startup-timeout, not --timeout: it includes the process's start", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		// A server slower to start than --timeout, as an interpreter on a
		// loaded machine is, and correct once started.
		argv := []string{"sh", "-c", `sleep 1.5; exec "$0" serve mcp`, bin}
		c, err := fuzz.New(fuzz.Config{
			Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler,
			Target: target.Target{Argv: argv},
			Runs:   2, Seed: 9, Timeout: time.Second, StartupTimeout: 30 * time.Second,
			ShrinkTime: time.Second,
		})
		Expect(err).NotTo(HaveOccurred())
		bugs, err := c.Run(context.Background())
		Expect(err).NotTo(HaveOccurred())
		for _, b := range bugs {
			Fail("unexpected finding: " + b.Rule + " after " + b.Shape + ": " + b.First.Message)
		}
	})
})
