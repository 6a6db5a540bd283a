package fuzz_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// campaign fuzzes the sonde-serve reference server with the given faults.
func campaign(seed uint64, runs int, trace func([]scenario.Step), faults ...string) (*fuzz.Campaign, []*fuzz.Bug) {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", "sonde-serve"}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	c, err := fuzz.New(fuzz.Config{
		Protocol: b.Protocol, Schemas: b.Schemas,
		Target: target.Target{Argv: argv},
		Runs:   runs, Seed: seed, Timeout: time.Second, StartupTimeout: 5 * time.Second,
		ShrinkTime: 8 * time.Second, Trace: trace,
	})
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	return c, bugs
}

// sends counts the messages a reproducer writes.
func sends(steps []scenario.Step) int {
	n := 0
	for _, st := range steps {
		if st.Send != nil || st.SendRaw != nil || st.SendBase64 != nil || st.SendLine != nil {
			n++
		}
	}
	return n
}

// replay runs a saved reproducer through the same runner as `wirecheck
// replay` against the reference server with faults, and returns the rules
// that failed.
func replay(file string, faults ...string) []string {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	return replayArgv(file, append([]string{bin, "serve", "sonde-serve"}, faultArgs(faults)...))
}

func faultArgs(faults []string) []string {
	var out []string
	for _, f := range faults {
		out = append(out, "--fault", f)
	}
	return out
}

var _ = Describe("wirecheck fuzz against the sonde-serve reference server", func() {
	It("finds nothing when no fault is on", func() {
		_, bugs := campaign(3, 80, nil)
		for _, b := range bugs {
			Fail("unexpected finding: " + b.Rule + " after " + b.Shape + ": " + b.First.Message)
		}
	})

	It("gives the same sequences for the same seed", func() {
		record := func() []string {
			var out []string
			_, _ = campaign(11, 25, func(steps []scenario.Step) {
				b, _ := json.Marshal(steps)
				out = append(out, string(b))
			})
			return out
		}
		first, second := record(), record()
		Expect(first).NotTo(BeEmpty())
		Expect(second).To(Equal(first))
	})

	DescribeTable("finds a fault only unusual input reveals, shrinks it, and saves a reproducer that replays",
		func(fault string, rules []string) {
			// The first failure is what this is about: --max-failures 1 ends
			// the campaign there, before it shrinks every further shape the
			// fault breaks after (exit-non-ascii has fourteen). Shrinking a
			// hang waits out --timeout on every rerun that still fails:
			// mute-after-malformed takes some 27 s to its 4 messages, so
			// the budget leaves room for a loaded machine.
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			c, bugs := sondeCampaign(append([]string{bin, "serve", "sonde-serve"}, faultArgs([]string{fault})...),
				fuzz.Config{Runs: 50, Seed: 42, ShrinkTime: time.Minute, MaxFailures: 1})
			Expect(bugs).NotTo(BeEmpty(), "fault %s not found", fault)
			Expect(bugs).To(HaveLen(1), "the campaign stops at its first failure")
			Expect(c.Stats().Stopped).To(BeTrue())
			b := bugs[0]
			Expect(rules).To(ContainElement(b.Rule), "fault %s: %s after %s: %s", fault, b.Rule, b.Shape, b.First.Message)
			Expect(b.Shape).NotTo(MatchRegexp(goSyntax.String()), "a label in protocol terms")
			Expect(sends(b.Steps)).To(BeNumerically("<=", 4), "the reproducer is a few messages")
			file, err := c.Save(b, GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())
			Expect(replay(file, fault)).To(ContainElement(b.Rule), "replay reports the same rule")
			Expect(replay(file)).To(BeEmpty(), "the reproducer passes against a healthy server")
		},
		Entry("exits on a JSON value that is not an object", "exit-non-object", []string{"SONDE-GEN-SURVIVE"}),
		Entry("exits on a line over 64 KiB", "exit-long-line", []string{"SONDE-GEN-SURVIVE"}),
		Entry("exits on non-ASCII input", "exit-non-ascii", []string{"SONDE-GEN-SURVIVE"}),
		Entry("stops answering after a malformed line", "mute-after-malformed", []string{"SONDE-GEN-SURVIVE", "SONDE-ONE-RESPONSE-1"}),
		Entry("answers one request twice", "double-answer", []string{"SONDE-ONE-RESPONSE-1"}),
	)

	It("groups repeated hits of one bug into one finding with a count", func() {
		_, bugs := campaign(5, 60, nil, "double-answer")
		Expect(bugs).To(HaveLen(1))
		Expect(bugs[0].Hits).To(BeNumerically(">", 10))
	})
})

// mcpCampaign fuzzes the MCP reference server, its stdin copied to tee.
func mcpCampaign(runs int, tee string, trace func([]scenario.Step), faults ...string) []*fuzz.Bug {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load("mcp")
	Expect(err).NotTo(HaveOccurred())
	script := `tee -a "$1" | "$2" serve mcp "${@:3}"`
	argv := append([]string{"bash", "-c", script, "wirecheck-tee", tee, bin}, faultArgs(faults)...)
	c, err := fuzz.New(fuzz.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge,
		Target: target.Target{Argv: argv},
		Runs:   runs, Seed: 9, Timeout: time.Second, StartupTimeout: 5 * time.Second,
		ShrinkTime: 4 * time.Second, Trace: trace,
	})
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	return bugs
}

var _ = Describe("wirecheck fuzz against the MCP reference server", func() {
	It("sends notifications/initialized after initialize as a setup notification, without waiting for an answer", func() {
		tee := filepath.Join(GinkgoT().TempDir(), "stdin.jsonl")
		var first []scenario.Step
		bugs := mcpCampaign(5, tee, func(steps []scenario.Step) {
			if first == nil {
				first = steps
			}
		})
		for _, b := range bugs {
			Fail("unexpected finding: " + b.Rule + " after " + b.Shape + ": " + b.First.Message)
		}
		// The reproducer: initialize sent and awaited, then the
		// notification as a line nobody may answer, then tools/list.
		Expect(len(first)).To(BeNumerically(">=", 5))
		Expect(first[0].Send).To(HaveKeyWithValue("method", "initialize"))
		Expect(first[1].Expect).To(Equal("r1"))
		Expect(first[2].SendLine).NotTo(BeNil())
		Expect(*first[2].SendLine).To(MatchJSON(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		Expect(first[2].Answered).To(PointTo(BeFalse()))
		Expect(first[3].Send).To(HaveKeyWithValue("method", "tools/list"))

		// The server read it, right after initialize and before tools/list.
		data, err := os.ReadFile(tee)
		Expect(err).NotTo(HaveOccurred())
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		Expect(len(lines)).To(BeNumerically(">=", 3))
		Expect(lines[0]).To(ContainSubstring(`"method":"initialize"`))
		Expect(lines[1]).To(MatchJSON(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		Expect(lines[2]).To(ContainSubstring(`"method":"tools/list"`))
	})

	It("does not accept an answer to the setup notification (the notification is not a request)", func() {
		tee := filepath.Join(GinkgoT().TempDir(), "stdin.jsonl")
		bugs := mcpCampaign(3, tee, nil, "answer-notifications")
		Expect(bugs).NotTo(BeEmpty())
		var shapes []string
		for _, b := range bugs {
			shapes = append(shapes, b.Rule+" after "+b.Shape)
		}
		// The null-id answer is a stray, charged to the action under way
		// when it arrives: before tools/list is sent, or after (the peer
		// does not take it for the answer of the one request in flight
		// while the notification may be what it answers). The reference
		// server does not always answer in order, though: when the answer
		// comes after a tools/list answer, a later page's request is the
		// one in flight and takes it (the peer's guess assumes order).
		Expect(shapes).To(ContainElement(Or(Equal("MCP-JSONRPC-5 after setup"), Equal("MCP-JSONRPC-5 after discover tools"),
			Equal("MCP-TOOLS-2 after discover tools"))))
	})

	// The frame judge sees every frame of a campaign, as it does a run's:
	// the rules that depend on what the process declared and was sent
	// are judged whichever command sent the request.
	DescribeTable("judges the notifications a tool call brings by the frame judge, as run does",
		func(fault, rule string) {
			Expect(firstFailure("mcp", 40, 9, "--fault", fault)).To(ContainElement(HavePrefix(rule + " after ")))
		},
		Entry("progress under a token never sent", "progress-wrong-token", "MCP-PROGRESS-1"),
		Entry("progress that goes down", "progress-decreasing", "MCP-PROGRESS-2"),
		Entry("logs without the logging capability", "log-undeclared", "MCP-LOGGING-1"),
		Entry("list_changed without listChanged", "list-changed-undeclared", "MCP-LISTCHANGED-1"),
	)
})

// SONDE-EMPTY-1 in fuzz: the empty line goes before each line of only
// whitespace, owed no answer (fuzz's ignored lines). A server that
// answers the whitespace line alone reads the document as it may; one
// that answers both fails, however late (the frame judge, by order).
var _ = Describe("wirecheck fuzz and sonde-serve's empty lines", func() {
	b, err := protocols.Load("sonde-serve")
	if err != nil {
		panic(err)
	}
	sendsEmpty := func(steps []scenario.Step) bool {
		for i, st := range steps {
			if st.SendLine != nil && *st.SendLine == "" && i+1 < len(steps) && steps[i+1].SendRaw != nil && strings.TrimSpace(*steps[i+1].SendRaw) == "" {
				return true
			}
		}
		return false
	}
	It("passes a server that answers the whitespace line and ignores the empty one", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		seen := false
		_, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve", "--variant", "answer-whitespace"}, fuzz.Config{Runs: 80, Seed: 3, Judge: b.Judge,
			Trace: func(steps []scenario.Step) { seen = seen || sendsEmpty(steps) }})
		for _, b := range bugs {
			Fail("unexpected finding: " + b.Rule + " after " + b.Shape + ": " + b.First.Message)
		}
		Expect(seen).To(BeTrue(), "the campaign sent an empty line before a line of only whitespace")
	})

	DescribeTable("fails SONDE-EMPTY-1 on a server that answers the empty line too",
		func(fault string) {
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			// Within --timeout: a server slower than it is judged a hang
			// by the probe instead.
			_, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve", "--fault", fault}, fuzz.Config{Runs: 80, Seed: 3, Judge: b.Judge,
				MaxFailures: 1, ShrinkTime: time.Nanosecond, Rules: []string{"SONDE-EMPTY-1"}, Timeout: 5 * time.Second, StartupTimeout: 5 * time.Second})
			Expect(bugs).To(HaveLen(1))
			Expect(bugs[0].Rule).To(Equal("SONDE-EMPTY-1"))
			Expect(bugs[0].First.Message).To(ContainSubstring("an answer to an empty line"))
		},
		Entry("at once", "answer-empty"),
		Entry("1.5 s late, after any silence window", "answer-empty-late"),
	)
})
