package tally_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/tally"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func sonde() *spec.Protocol {
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	return b.Protocol
}

func fail(scenario, rule, msg string) verdict.Observation {
	return verdict.Observation{Rule: rule, Scenario: scenario, Verdict: verdict.Fail, Seq: -1, Message: msg}
}

func pass(scenario, rule string) verdict.Observation {
	return verdict.Observation{Rule: rule, Scenario: scenario, Verdict: verdict.Pass, Seq: -1}
}

// findings returns the report's findings of rule.
func findings(rep *report.Report, rule string) []report.Finding {
	var out []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// lines is a transcript of n lines, each its own index.
func lines(n int) tally.Entries {
	es := make(tally.Entries, n)
	for i := range es {
		es[i] = transcript.Entry{Dir: transcript.Received, Text: strconv.Itoa(i)}
	}
	return es
}

var _ = Describe("a tally", func() {
	const id1, id2 = "SONDE-ID-1", "SONDE-ID-2"

	It("names the frames each failure is about, and a request left unanswered", func() {
		t := tally.New(sonde(), nil)
		at := func(o verdict.Observation, seq int) verdict.Observation { o.Seq = seq; return o }
		t.Observe(at(pass("a", id1), 3), nil)
		t.Observe(at(fail("a", id1, "wrong id"), 5), nil)
		t.Observe(at(fail("a", id1, "wrong id"), 9), nil)
		t.Observe(at(fail("a", id1, "wrong id"), 5), nil)
		t.Observe(at(fail("a", id1, "no id"), 7), nil)
		t.Observe(fail("a", id1, "no id"), nil)
		silent := at(fail("b", id2, "no response"), 4)
		silent.Unanswered = "10s"
		t.Observe(silent, nil)
		rep := t.Report(tally.Options{Started: time.Now(), Unobserved: tally.DropUnobserved})
		fs := findings(rep, id1)
		Expect(fs).To(HaveLen(2))
		Expect(fs[0].Frames).To(Equal([]int{5, 9}))
		Expect(fs[1].Frames).To(Equal([]int{7}), "an observation of no line adds none")
		Expect(fs[0].Unanswered).To(BeEmpty())
		fs = findings(rep, id2)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Frames).To(Equal([]int{4}))
		Expect(fs[0].Unanswered).To(Equal("10s"))
	})

	It("counts an observation of a rule already seen in a scenario without allocating", func() {
		// A run of every revision makes some 7,000 observations, most of
		// them passes of a rule and scenario seen before.
		t := tally.New(sonde(), nil)
		o := pass("a", id1)
		t.Observe(o, nil)
		Expect(testing.AllocsPerRun(100, func() { t.Observe(o, nil) })).To(BeZero())
		Expect(findings(t.Report(tally.Options{}), id1)[0].Count).To(Equal(102))
	})

	It("reports a rule in a scenario by its decisive verdict: a failure outweighs passes", func() {
		t := tally.New(sonde(), nil)
		t.Observe(pass("a", id1), nil)
		t.Observe(fail("a", id1, "wrong id"), nil)
		t.Observe(pass("a", id1), nil)
		t.Observe(pass("b", id1), nil)
		rep := t.Report(tally.Options{Started: time.Now()})
		fs := findings(rep, id1)
		Expect(fs).To(HaveLen(2))
		Expect(fs[0]).To(MatchFields(fs[0], "a", verdict.Fail, 1))
		Expect(fs[1]).To(MatchFields(fs[1], "b", verdict.Pass, 1))
		Expect(rep.Summary.Fail).To(BeNumerically(">=", 1))
	})

	Describe("a failure the spec says is the consequence of another (consequence-of)", func() {
		const cause, consequence = "SONDE-GEN-NON-OBJECT", "SONDE-GEN-SURVIVE"

		It("names the cause when both fail in the same scenario, and counts it apart from the independent failures", func() {
			t := tally.New(sonde(), nil)
			t.Observe(fail("non-object", cause, "no answer to null"), nil)
			t.Observe(fail("non-object", consequence, "the server exited (code 1)"), nil)
			rep := t.Report(tally.Options{Started: time.Now()})
			Expect(findings(rep, cause)).To(ConsistOf(HaveField("Cause", "")))
			fs := findings(rep, consequence)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Verdict).To(Equal(verdict.Fail), "still a failure of its own rule")
			Expect(fs[0].Cause).To(Equal(cause))
			Expect(fs[0].Said()).To(Equal("the server exited (code 1) (caused by " + cause + ")"))
			Expect(rep.Summary.Fail).To(Equal(2))
			Expect(rep.Summary.Caused).To(Equal(1))
			Expect(rep.Summary.String()).To(ContainSubstring("1 fail (+1 caused by another rule)"))
			// Both rules are SHOULD; the consequence gates at its own level.
			Expect(rep.Failed(verdict.Should)).To(BeTrue())
		})

		It("stands alone when the cause passed, or failed in another scenario", func() {
			t := tally.New(sonde(), nil)
			t.Observe(pass("a", cause), nil)
			t.Observe(fail("a", consequence, "the server exited"), nil)
			t.Observe(fail("b", cause, "no answer to null"), nil)
			rep := t.Report(tally.Options{Started: time.Now()})
			Expect(findings(rep, consequence)).To(ConsistOf(HaveField("Cause", "")))
			Expect(rep.Summary.Caused).To(BeZero())
		})
	})

	It("counts the failures of a rule judged once per stream out of the streams of the scenario, in one finding", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		p, err := b.Protocol.ForTransport("http")
		Expect(err).NotTo(HaveOccurred())
		const priming = "MCP-HTTP-STREAM-6" // checks: [http.priming]
		t := tally.New(p, nil)
		for range 3 {
			t.Observe(fail("tools", priming, "did not open with an event id and empty data (priming)"), nil)
		}
		t.Observe(pass("tools", priming), nil)
		t.Observe(fail("prompts", priming, "did not open with an event id and empty data (priming)"), nil)
		rep := t.Report(tally.Options{Started: time.Now()})
		fs := findings(rep, priming)
		Expect(fs).To(HaveLen(2))
		Expect(fs[0].Message).To(Equal("3 of 4 SSE streams did not open with an event id and empty data (priming)"))
		Expect(fs[0].Count).To(Equal(3))
		Expect(fs[1].Message).To(Equal("1 of 1 SSE streams did not open with an event id and empty data (priming)"))
		// Any other rule keeps its message as it came.
		t.Observe(fail("tools", "MCP-JSONRPC-1", "no jsonrpc"), nil)
		Expect(findings(t.Report(tally.Options{Started: time.Now()}), "MCP-JSONRPC-1")[0].Message).To(Equal("no jsonrpc"))
	})

	It("keeps each distinct failure message with its count, and counts Add n times", func() {
		t := tally.New(sonde(), nil)
		t.Observe(fail("a", id1, "first"), nil)
		t.Add(fail("a", id1, "second"), 3, nil)
		t.Observe(fail("a", id1, "first"), nil)
		fs := findings(t.Report(tally.Options{Started: time.Now()}), id1)
		Expect(fs).To(HaveLen(2))
		Expect([]string{fs[0].Message, fs[1].Message}).To(Equal([]string{"first", "second"}))
		Expect([]int{fs[0].Count, fs[1].Count}).To(Equal([]int{2, 3}))
	})

	It("counts new messages past twenty with the last kept one", func() {
		t := tally.New(sonde(), nil)
		for i := range 25 {
			t.Observe(fail("a", id1, fmt.Sprint("message ", i)), nil)
		}
		fs := findings(t.Report(tally.Options{Started: time.Now()}), id1)
		Expect(fs).To(HaveLen(20))
		Expect(fs[19].Message).To(Equal("message 19"))
		Expect(fs[19].Count).To(Equal(6))
	})

	It("counts only the rules it selects", func() {
		t := tally.New(sonde(), []string{"SONDE-ID-*"})
		t.Observe(fail("a", "SONDE-STARTUP-1", "no ready line"), nil)
		t.Observe(pass("a", id1), nil)
		rep := t.Report(tally.Options{Started: time.Now()})
		Expect(findings(rep, "SONDE-STARTUP-1")).To(BeEmpty())
		for _, r := range rep.Rules {
			Expect(r.ID).To(HavePrefix("SONDE-ID-"))
		}
		Expect(t.Seen("a", id1)).To(BeTrue())
		Expect(t.Seen("a", "SONDE-STARTUP-1")).To(BeFalse())
	})

	It("orders findings by the suite's order, startup first, however they arrived", func() {
		t := tally.New(sonde(), nil)
		t.Observe(pass("late", id1), nil)
		t.Observe(pass("unranked", id1), nil)
		t.Observe(pass("early", id2), nil)
		t.Observe(pass("startup", "SONDE-STARTUP-1"), nil)
		rep := t.Report(tally.Options{Started: time.Now(), Order: map[string]int{"early": 0, "late": 1}})
		var order []string
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Pass {
				order = append(order, f.Scenario)
			}
		}
		Expect(order).To(Equal([]string{"startup", "early", "late", "unranked"}))
	})

	DescribeTable("does with a rule nothing observed what the run asks",
		func(u tally.Unobserved, listed, skipped bool) {
			t := tally.New(sonde(), nil)
			t.Observe(pass("a", id1), nil)
			rep := t.Report(tally.Options{Started: time.Now(), Unobserved: u})
			ids := map[string]bool{}
			for _, r := range rep.Rules {
				ids[r.ID] = true
			}
			Expect(ids[id1]).To(BeTrue(), "an observed rule is always listed")
			Expect(ids[id2]).To(Equal(listed))
			fs := findings(rep, id2)
			if skipped {
				Expect(fs).To(HaveLen(1))
				Expect(fs[0].Verdict).To(Equal(verdict.Skip))
				Expect(fs[0].Message).To(Equal("no scenario of this run observed the rule"))
			} else {
				Expect(fs).To(BeEmpty())
			}
		},
		Entry("a full run lists it as skipped", tally.SkipUnobserved, true, true),
		Entry("a run of some scenarios leaves it out", tally.DropUnobserved, false, false),
		Entry("a fuzz campaign lists it without a finding", tally.ListUnobserved, true, false),
	)

	Context("of a run over one transport", func() {
		const web = `id: web
source: web.txt
transports: [stdio, http, sse]
rules:
  - {id: WEB-STDIO-1, level: MUST, title: exits, section: S, transports: [stdio]}
  - {id: WEB-HTTP-1, level: MUST, title: accepts, section: S, transports: [http]}
  - {id: WEB-ANY-1, level: MUST, title: answers, section: S}
`
		over := func(tr string) *spec.Protocol {
			p, err := spec.Parse("specs/web.yaml", []byte(web), nil, verdict.Checks, nil)
			Expect(err).NotTo(HaveOccurred())
			p, err = p.ForTransport(tr)
			Expect(err).NotTo(HaveOccurred())
			return p
		}

		It("drops what scenarios observe of a rule of another transport and reports it skipped with the reason", func() {
			t := tally.New(over("http"), nil)
			t.Observe(fail("shutdown", "WEB-STDIO-1", "did not exit"), nil)
			t.Observe(pass("shutdown", "WEB-ANY-1"), nil)
			t.Observe(fail("notify", "WEB-HTTP-1", "answered 200"), nil)
			Expect(t.Seen("shutdown", "WEB-STDIO-1")).To(BeFalse())
			rep := t.Report(tally.Options{Started: time.Now(), Unobserved: tally.SkipUnobserved})
			fs := findings(rep, "WEB-STDIO-1")
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Verdict).To(Equal(verdict.Skip))
			Expect(fs[0].Scenario).To(Equal("-"))
			Expect(fs[0].Message).To(Equal("stdio only; this run is over HTTP"))
			Expect(findings(rep, "WEB-HTTP-1")[0].Verdict).To(Equal(verdict.Fail))
			Expect(findings(rep, "WEB-ANY-1")[0].Verdict).To(Equal(verdict.Pass))
		})

		It("says HTTP only of an HTTP rule on stdio, and leaves it out of a partial run", func() {
			t := tally.New(over("stdio"), nil)
			t.Observe(pass("notify", "WEB-HTTP-1"), nil)
			rep := t.Report(tally.Options{Started: time.Now(), Unobserved: tally.SkipUnobserved})
			Expect(findings(rep, "WEB-HTTP-1")).To(ConsistOf(HaveField("Message", "HTTP only; this run is over stdio")))
			Expect(findings(rep, "WEB-ANY-1")).To(ConsistOf(HaveField("Message", "no scenario of this run observed the rule")))
			rep = t.Report(tally.Options{Started: time.Now(), Unobserved: tally.DropUnobserved})
			Expect(findings(rep, "WEB-HTTP-1")).To(BeEmpty())
		})
	})

	It("gives a failing finding its reproduce line and transcript, a passing one neither", func() {
		t := tally.New(sonde(), nil)
		t.Observe(verdict.Observation{Rule: id1, Scenario: "a", Verdict: verdict.Fail, Seq: 2, Message: "m"}, lines(5))
		t.Observe(pass("b", id1), lines(5))
		rep := t.Report(tally.Options{Started: time.Now(), Reproduce: func(scenario, rule string) string {
			return "again " + scenario + " " + rule
		}})
		fs := findings(rep, id1)
		Expect(fs[0].Reproduce).To(Equal("again a " + id1))
		Expect(fs[0].Transcript).To(HaveLen(5))
		Expect(fs[1].Reproduce).To(BeEmpty())
		Expect(fs[1].Transcript).To(BeEmpty())
		Expect(fs[1].Transcript).NotTo(BeNil(), "an empty transcript is [] in JSON")
	})

	It("adds its notes to the report", func() {
		t := tally.New(sonde(), nil)
		t.Note("%d scenario(s) not run", 3)
		Expect(t.Report(tally.Options{Started: time.Now()}).Notes).To(Equal([]string{"3 scenario(s) not run"}))
	})
})

// MatchFields matches a finding's scenario, verdict and count.
func MatchFields(f report.Finding, scenario string, v verdict.Verdict, count int) OmegaMatcher {
	g := f
	g.Scenario, g.Verdict, g.Count = scenario, v, count
	return Equal(g)
}

var _ = Describe("a transcript excerpt", func() {
	It("is the whole span when it is short", func() {
		Expect(lines(10).Excerpt("any", 3)).To(HaveLen(10))
	})

	It("is the last lines when no line is the evidence", func() {
		es := lines(100).Excerpt("any", -1)
		Expect(es).To(HaveLen(tally.Lines))
		Expect(es[len(es)-1].Text).To(Equal("99"))
	})

	It("holds the evidence and the lines leading to it, whatever the span", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			from := rapid.IntRange(0, 500).Draw(t, "from")
			to := rapid.IntRange(from, from+500).Draw(t, "to")
			seq := rapid.IntRange(-1, to+10).Draw(t, "seq")
			a, b := tally.Window(from, to, seq)
			if b-a > tally.Lines || (a < from && a != seq) || a > b {
				t.Fatalf("window [%d, %d) of [%d, %d)", a, b, from, to)
			}
			if seq >= 0 && !(a <= seq && seq < b) {
				t.Fatalf("window [%d, %d) of [%d, %d) misses line %d", a, b, from, to, seq)
			}
			if seq >= from && seq-a < min(seq-from, tally.Lines/2) {
				t.Fatalf("window [%d, %d) keeps too little before line %d", a, b, seq)
			}
			if b-a < min(to-from, tally.Lines/3) {
				t.Fatalf("window [%d, %d) of [%d, %d) keeps too little", a, b, from, to)
			}
		})
	})
})

// growing is a transcript still being written: its excerpts grow.
type growing struct{ n, asked int }

func (g *growing) Excerpt(string, int) []transcript.Entry {
	g.asked++
	return lines(g.n)
}

var _ = Describe("a settled source", func() {
	It("gives the report the excerpts cut when it settled, and is not asked again", func() {
		t := tally.New(sonde(), nil)
		src := &growing{n: 3}
		t.Observe(fail("s", "SONDE-ID-1", "bad"), src)
		t.Observe(pass("s", "SONDE-ID-2"), src)
		t.Settle(src)
		asked := src.asked
		src.n = 5
		f := findings(t.Report(tally.Options{Started: time.Now()}), "SONDE-ID-1")
		Expect(f).To(HaveLen(1))
		Expect(f[0].Transcript).To(Equal([]transcript.Entry(lines(3))))
		Expect(src.asked).To(Equal(asked))
	})
})
