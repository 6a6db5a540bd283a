package fuzz_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// frameFault is a reference fault whose recorded run fails a rule fuzz
// judges on every frame (a frame judge's rule, or the answer the fuzz
// model says a line that is not JSON is owed).
type frameFault struct {
	protocol, revision, fault, transport string
	// rules are the frame rules its run failed, fails every rule it did:
	// fuzz finds the fault when it fails one of those.
	rules, fails []string
}

func (f frameFault) String() string {
	s := f.protocol + " " + f.fault + " at " + f.revision
	if f.transport != "" {
		s += " over " + f.transport
	}
	return s + " (" + strings.Join(f.rules, ", ") + ")"
}

// frameRules are the rules of a protocol fuzz judges per frame, whatever
// it sent: its frame judge's, and its fuzz model's malformed answer's.
func frameRules(b *protocols.Bundle) []string {
	var out []string
	if b.Judge != nil {
		out = append(out, judgeRules(b)...)
	}
	if f := b.Protocol.Fuzz; f != nil && f.Malformed != nil {
		out = append(out, f.Malformed.Rule)
		for _, m := range f.Malformed.Also {
			out = append(out, m.Rule)
		}
	}
	return out
}

// frameFaults reads the verdict record (internal/protocols/testdata) for
// the fault runs that failed a frame rule.
func frameFaults() []frameFault {
	f, err := os.Open("../protocols/testdata/verdicts.txt")
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	byRun := map[string]*frameFault{}
	var order []string
	rules := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		run, row, ok := strings.Cut(sc.Text(), " | ")
		rule, ok2 := strings.CutSuffix(row, " fail")
		words := strings.Fields(run)
		if !ok || !ok2 || len(words) < 4 || words[2] != "fault" {
			continue
		}
		p := words[0]
		if _, seen := rules[p]; !seen {
			b, err := protocols.Load(p)
			Expect(err).NotTo(HaveOccurred())
			rules[p] = frameRules(b)
		}
		ff := byRun[run]
		if ff == nil {
			ff = &frameFault{protocol: p, revision: words[1], fault: words[3]}
			if len(words) == 6 && words[4] == "over" {
				ff.transport = words[5]
			}
			byRun[run] = ff
			order = append(order, run)
		}
		ff.fails = append(ff.fails, rule)
		if slices.Contains(rules[p], rule) {
			ff.rules = append(ff.rules, rule)
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	var out []frameFault
	for _, run := range order {
		if len(byRun[run].rules) > 0 {
			out = append(out, *byRun[run])
		}
	}
	return out
}

// findsFirst fuzzes a frame fault's reference server under its revision
// and transport until the first failure of a rule its run fails, and
// returns the rules failed.
func findsFirst(ff frameFault) []string {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load(ff.protocol)
	Expect(err).NotTo(HaveOccurred())
	p := b.Protocol
	if ff.revision != "-" && p.Versions != nil {
		p, err = p.ForVersion(ff.revision)
		Expect(err).NotTo(HaveOccurred())
	}
	t := target.Target{Argv: []string{bin, "serve", ff.protocol, "--fault", ff.fault}}
	if ff.transport != "" {
		t.Argv = append(t.Argv, "--"+ff.transport, "127.0.0.1:{port}")
		t.Transport, t.Paths = ff.transport, p.Endpoints
		if refmcp.RequiresToken([]string{ff.fault}, nil) {
			t.Headers = []string{"Authorization: Bearer " + refmcp.Token}
		}
	}
	c, err := fuzz.New(fuzz.Config{Protocol: p, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge, Target: t,
		Runs: 40, Seed: 3, MaxFailures: 1, ShrinkTime: time.Nanosecond, Rules: ff.fails,
		Timeout: time.Second, StartupTimeout: 5 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, bug := range bugs {
		out = append(out, bug.Rule)
	}
	return out
}

var _ = Describe("fuzz against every reference fault of a frame rule", func() {
	It("finds each fault, ending at its first failure", func() {
		faults := frameFaults()
		Expect(faults).NotTo(BeEmpty())
		var missed, names []string
		start := time.Now()
		// One after the other: a campaign sets rapid's flags for its run.
		for _, ff := range faults {
			names = append(names, ff.String())
			got := findsFirst(ff)
			if !slices.ContainsFunc(got, func(r string) bool { return slices.Contains(ff.fails, r) }) {
				missed = append(missed, fmt.Sprintf("%s: fuzz found %v", ff, got))
			}
		}
		GinkgoWriter.Printf("%d faults fuzzed in %s\n", len(faults), time.Since(start).Round(time.Millisecond))
		sort.Strings(missed)
		Expect(missed).To(BeEmpty())
		// The faults are among them.
		Expect(names).To(ContainElements(
			HavePrefix("mcp progress-wrong-token "), HavePrefix("mcp log-undeclared "), HavePrefix("mcp list-changed-undeclared "),
			HavePrefix("sonde-serve malformed-silent "),
			// Their frames come only on a subscription the fuzz model
			// opens (its follow-up requests).
			HavePrefix("mcp listen-update-first "), HavePrefix("mcp listen-no-subscription-id "), HavePrefix("mcp listen-unrequested "),
			HavePrefix("mcp listen-answer-cancel "), HavePrefix("mcp listen-no-ack "), HavePrefix("mcp listen-late-notification "),
			HavePrefix("mcp updated-undeclared "), HavePrefix("mcp updated-unsubscribed "), HavePrefix("mcp updated-after-unsubscribe "),
			HavePrefix("sophon updated-unsubscribed ")))
	})
})
