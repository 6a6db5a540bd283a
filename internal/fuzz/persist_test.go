package fuzz_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// sondeCampaign fuzzes a sonde-serve server launched by argv.
func sondeCampaign(argv []string, cfg fuzz.Config) (*fuzz.Campaign, []*fuzz.Bug) {
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	cfg.Protocol, cfg.Schemas = b.Protocol, b.Schemas
	cfg.Target = target.Target{Argv: argv}
	if cfg.Timeout == 0 {
		cfg.Timeout, cfg.StartupTimeout = time.Second, 5*time.Second
	}
	c, err := fuzz.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	return c, bugs
}

// replayArgv replays a saved reproducer through the runner, as `wirecheck
// replay` does, against argv, and returns the rules that failed.
func replayArgv(file string, argv []string) []string {
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	s, err := scenario.Parse(file, data, b.Protocol)
	Expect(err).NotTo(HaveOccurred())
	rep, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: []*scenario.Scenario{s}, Partial: true,
		Target:  target.Target{Argv: argv},
		Timeout: time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	var failed []string
	for _, f := range rep.Findings {
		if f.Verdict == verdict.Fail {
			failed = append(failed, f.Rule)
		}
	}
	return failed
}

// teed launches the reference server with its stdin copied to file.
func teed(file string, faults ...string) []string {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	// The server is the process wirecheck launched (exec), and tee holds
	// no copy of its stdout: in a pipeline, bash kept stdout open after
	// the server died until tee's next write failed, so a death read as
	// a hang or as a death by the timing of the next line (under load,
	// the campaign and its replay disagreed). tee runs in a session of
	// its own and goes on past a dead server (-p), so neither the
	// server's death nor Close's signal to the group cuts the copy
	// between its write to the server and its write to file; it ends
	// when wirecheck closes the server's stdin.
	return append([]string{"bash", "-c", `exec "$2" serve sonde-serve "${@:3}" < <(exec setsid tee -p -a "$1")`, "wirecheck-tee", file, bin}, faultArgs(faults)...)
}

// probeID is the part of a sent line that differs from run to run: the
// probe's id comes from a counter of the whole process of wirecheck.
var probeID = regexp.MustCompile(`"probe-\d+"`)

// sentLines is what a transcript says was written, one entry a line.
func sentLines(es []transcript.Entry) []string {
	var out []string
	for _, e := range es {
		if e.Dir == transcript.Sent {
			out = append(out, probeID.ReplaceAllString(strings.TrimSuffix(e.Text, "\n"), `"probe"`))
		}
	}
	return out
}

// readLines is what the server read, as the transcript would show it.
func readLines(file string) []string {
	data, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l == "" {
			continue
		}
		text, _ := transcript.Text([]byte(strings.TrimSuffix(l, "\n")))
		out = append(out, probeID.ReplaceAllString(text, `"probe"`))
	}
	return out
}

// untilProbes is a list of sent lines cut where the liveness probes that
// end it begin.
func untilProbes(lines []string) []string {
	n := len(lines)
	for n > 0 && strings.Contains(lines[n-1], `"probe"`) && strings.Contains(lines[n-1], "tools/list") {
		n--
	}
	return lines[:n]
}

var _ = Describe("a saved reproducer", func() {
	DescribeTable("is byte for byte what the campaign sent: replayed, the server reads the same lines",
		func(fault string) {
			c, bugs := sondeCampaign(teed(os.DevNull, fault), fuzz.Config{Runs: 50, Seed: 42, ShrinkTime: 8 * time.Second, MaxFailures: 1})
			Expect(bugs).NotTo(BeEmpty())
			bug := bugs[0]
			file, err := c.Save(bug, GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())
			read := filepath.Join(GinkgoT().TempDir(), "stdin")
			Expect(replayArgv(file, teed(read, fault))).To(ContainElement(bug.Rule))
			// The liveness probe after the last step is the runner's
			// between scenarios. How many probes end either side is
			// timing's (CI once saw two: the double answer to a probe
			// read after it was judged; and none is sent to a server
			// already seen dead); what the steps sent, up to the probes,
			// is the same byte for byte. tee may still be copying the last
			// lines when the replay returns.
			sent := untilProbes(sentLines(bug.Transcript))
			Expect(sent).NotTo(BeEmpty())
			Eventually(func() []string { return untilProbes(readLines(read)) }).WithTimeout(5 * time.Second).Should(Equal(sent))
		},
		Entry("answers one request twice", "double-answer"),
		Entry("exits on a JSON value that is not an object", "exit-non-object"),
		Entry("stops answering after a malformed line", "mute-after-malformed"),
	)
})

var _ = Describe("persistent fuzzing", func() {
	// processes cuts a campaign's sequences by the process they ran on: a
	// sequence that started one begins with the setup (tools/list, id f1).
	processes := func(traces [][]scenario.Step) [][]int {
		var out [][]int
		for i, steps := range traces {
			if m, ok := steps[0].Send.(map[string]any); ok && m["id"] == "f1" {
				out = append(out, nil)
			}
			Expect(out).NotTo(BeEmpty(), "the first sequence starts a process")
			out[len(out)-1] = append(out[len(out)-1], i)
		}
		return out
	}
	closes := func(steps []scenario.Step) bool {
		for _, st := range steps {
			if st.CloseStdin {
				return true
			}
		}
		return false
	}
	var closed atomic.Int64 // processes closed, counted as Run returns
	run := func(freshEvery int) ([][]scenario.Step, fuzz.Stats) {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		var traces [][]scenario.Step
		var recorded atomic.Int64
		c, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve"}, fuzz.Config{Runs: 60, Seed: 3, FreshEvery: freshEvery,
			Trace:    func(steps []scenario.Step) { traces = append(traces, steps) },
			Recorded: func([]transcript.Entry) { recorded.Add(1) }})
		closed.Store(recorded.Load())
		Expect(bugs).To(BeEmpty())
		return traces, c.Stats()
	}

	It("keeps one process across healthy sequences, and starts a fresh one after stdin closed and every --fresh-every", func() {
		traces, st := run(4)
		procs := processes(traces)
		Expect(st.Starts).To(BeEquivalentTo(len(procs)))
		// Processes replaced are closed in the background; Run waits for
		// every one of them.
		Expect(closed.Load()).To(BeEquivalentTo(st.Starts), "every process used is closed when Run returns")
		Expect(len(procs)).To(BeNumerically("<", len(traces)/2), "processes are kept")
		for _, seqs := range procs {
			Expect(len(seqs)).To(BeNumerically("<=", 4))
			for _, i := range seqs[:len(seqs)-1] {
				Expect(closes(traces[i])).To(BeFalse(), "a sequence that closed stdin is the last of its process")
			}
			if len(seqs) < 4 && seqs[len(seqs)-1] != len(traces)-1 {
				Expect(closes(traces[seqs[len(seqs)-1]])).To(BeTrue(), "a process is replaced early only for a reason")
			}
		}
	})

	It("closes stdin one sequence in 16 until the server has exited cleanly on EOF twice, then one in 400 from the next batch of 50 on", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		var traces [][]scenario.Step
		c, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve"}, fuzz.Config{Runs: 400, Seed: 3,
			Trace: func(steps []scenario.Step) { traces = append(traces, steps) }})
		Expect(bugs).To(BeEmpty())
		// Processes outlive some 60 sequences then: one spare is started
		// ahead of need, not two, and only it is left unused at the end.
		Expect(fuzz.Spawned(c)-c.Stats().Starts).To(BeEquivalentTo(1), "spares never used")
		count := func(seqs [][]scenario.Step) int {
			n := 0
			for _, steps := range seqs {
				if closes(steps) {
					n++
				}
			}
			return n
		}
		Expect(traces).To(HaveLen(400))
		// Seed 3 closes stdin 2 times in its first batch (one in 16, as
		// rapid draws), which makes two clean exits, then not once in 350
		// sequences: one in 16 would be some 22, one in 400 about 1.
		Expect(count(traces[:50])).To(BeNumerically(">=", 2))
		Expect(count(traces[50:])).To(BeNumerically("<=", 3))
	})

	It("starts a process per sequence at --fresh-every 1", func() {
		traces, st := run(1)
		Expect(processes(traces)).To(HaveLen(len(traces)))
		Expect(st.Starts).To(BeEquivalentTo(len(traces)))
	})

	It("finds a failure that needs the process's history, confirms it on a fresh process, and saves that history, shrunk, as a reproducer that fails the same way", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		// A server that stops after its 40th line of input: no sequence of
		// at most three actions writes so many, a kept process soon has.
		breaks := []string{"bash", "-c", `LC_ALL=C sed -u 40q | "$0" serve sonde-serve`, bin}
		// Waits generous enough that a loaded machine adds no hang of
		// its own: nothing here hangs, the server exits.
		c, bugs := sondeCampaign(breaks, fuzz.Config{Runs: 40, Seed: 7, MaxActions: 3, ShrinkTime: time.Minute,
			Timeout: 10 * time.Second, StartupTimeout: 30 * time.Second, MaxFailures: 1})
		Expect(bugs).NotTo(BeEmpty())
		bug := bugs[0]
		Expect(bug.History).To(BeTrue(), describeBugs(bugs))
		Expect(bug.Rule).To(Equal("SONDE-GEN-SURVIVE"))
		Expect(bug.Unshrunk).To(BeEmpty(), "shrunk within its budget")
		// The history kept is what the failure needs: some 40 lines, not
		// everything the process served (no unit of it can go: it has 40
		// lines or more, less than a unit more). Exactly 40 when the
		// server's exit is seen before a 41st line is written.
		lines := len(sentLines(bug.Transcript))
		Expect(lines).To(BeNumerically(">=", 40), describeBugs(bugs))
		Expect(lines).To(BeNumerically("<", 55), describeBugs(bugs))
		file, err := c.Save(bug, GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		Expect(readFile(file)).To(ContainSubstring("# It showed only after earlier sequences"))
		Expect(replayArgv(file, breaks)).To(ContainElement("SONDE-GEN-SURVIVE"))
		Expect(replayArgv(file, []string{bin, "serve", "sonde-serve"})).To(BeEmpty(), "the reproducer passes against a healthy server")
	})
})
