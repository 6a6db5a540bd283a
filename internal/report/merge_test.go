package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func shard(started time.Time, ms int64, level verdict.Level, fs ...report.Finding) *report.Report {
	r := &report.Report{Tool: "wirecheck", Version: "0.3.0", Protocol: "sonde-serve", Target: "sonde serve --json",
		Started: started, DurationMS: ms, Level: level, Findings: fs}
	for _, f := range fs {
		r.Rules = append(r.Rules, verdict.Rule{ID: f.Rule, Level: f.Level, Title: "title of " + f.Rule})
	}
	r.Tally()
	return r
}

var _ = Describe("Merge", func() {
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	pass := func(rule, scen string) report.Finding {
		return report.Finding{Rule: rule, Level: verdict.Must, Verdict: verdict.Pass, Scenario: scen}
	}
	fail := func(rule, scen string) report.Finding {
		return report.Finding{Rule: rule, Level: verdict.Must, Verdict: verdict.Fail, Scenario: scen}
	}

	It("concatenates findings, unions rules, re-tallies and sums time", func() {
		a := shard(t0.Add(time.Minute), 1000, verdict.Must, pass("A-1", "s1"), fail("B-1", "s1"))
		b := shard(t0, 500, verdict.Must, pass("A-1", "s2"), pass("C-1", "s2"))
		a.Notes = []string{"shard 1 of 2"}
		m, err := report.Merge(a, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Findings).To(HaveLen(4))
		Expect(m.Findings[2].Scenario).To(Equal("s2"))
		var ids []string
		for _, ru := range m.Rules {
			ids = append(ids, ru.ID)
		}
		Expect(ids).To(Equal([]string{"A-1", "B-1", "C-1"}))
		Expect(m.Summary).To(Equal(report.Summary{Pass: 3, Fail: 1}))
		Expect(m.DurationMS).To(Equal(int64(1500)))
		Expect(m.Started).To(Equal(t0))
		Expect(m.Level).To(Equal(verdict.Must))
		Expect(m.Target).To(Equal("sonde serve --json"))
		Expect(m.Notes).To(Equal([]string{"shard 1 of 2"}))
		Expect(m.ByRule()[0].Findings).To(HaveLen(2))
		Expect(a.Findings).To(HaveLen(2), "inputs are left alone")
	})

	It("keeps why a shard never began", func() {
		a := shard(t0, 1000, verdict.Must, pass("A-1", "s1"))
		b := shard(t0, 500, verdict.Must, pass("C-1", "s2"))
		b.NotStarted = &report.NotStarted{State: "unreachable", Reason: "nothing is listening on 127.0.0.1:9 (connection refused)"}
		m, err := report.Merge(a, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.NotStarted).To(Equal(b.NotStarted))
		m, err = report.Merge(a, a)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.NotStarted).To(BeNil())
	})

	It("keeps an interrupted shard's mark: one unfinished part leaves the whole unfinished", func() {
		a := shard(t0, 1000, verdict.Must, pass("A-1", "s1"))
		b := shard(t0, 500, verdict.Must, pass("C-1", "s2"))
		b.Interrupt("SIGTERM", time.Second)
		m, err := report.Merge(a, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Interrupted).To(BeTrue())
		Expect(m.Signal).To(Equal("SIGTERM"))
		code, _ := m.Exit(verdict.Must, nil)
		Expect(code).To(Equal(report.ExitSIGTERM))
	})

	It("refuses reports of different protocols", func() {
		b := shard(t0, 1, verdict.Must)
		b.Protocol = "mcp"
		_, err := report.Merge(shard(t0, 1, verdict.Must), b)
		Expect(err).To(MatchError(`report: merge: report 2 is for protocol "mcp", report 1 for "sonde-serve"; only reports of one protocol can be merged`))
	})

	It("refuses nothing and nil", func() {
		_, err := report.Merge()
		Expect(err).To(MatchError("report: merge: no reports given"))
		_, err = report.Merge(shard(t0, 1, verdict.Must), nil)
		Expect(err).To(MatchError("report: merge: report 2 is nil"))
	})

	It("judges at the strictest level and says where the runs differed", func() {
		a := shard(time.Time{}, 1, verdict.Must)
		b := shard(t0, 1, verdict.Should)
		b.Target, b.Version = "other", "0.4.0"
		m, err := report.Merge(a, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Level).To(Equal(verdict.Should))
		Expect(m.Started).To(Equal(t0), "a zero start is not the earliest")
		Expect(m.Target).To(Equal("sonde serve --json | other"))
		Expect(m.Notes).To(ConsistOf(
			"merged from 2 reports against different targets",
			"merged from reports of different tool versions: 0.3.0, 0.4.0",
			"merged from runs judged at different levels (MUST, SHOULD); judged at SHOULD, the strictest",
		))
	})

	It("merges one report into an equal copy", func() {
		r := tallied()
		m, err := report.Merge(r)
		Expect(err).NotTo(HaveOccurred())
		Expect(m).To(Equal(r))
	})
})

var _ = Describe("ReadFiles", func() {
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	fail := report.Finding{Rule: "B-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s1"}
	save := func(r *report.Report) string {
		var buf bytes.Buffer
		Expect(report.WriteJSON(&buf, r)).To(Succeed())
		name := filepath.Join(GinkgoT().TempDir(), "r.json")
		Expect(os.WriteFile(name, buf.Bytes(), 0o644)).To(Succeed())
		return name
	}

	It("reads one report from a file or from stdin (-, or none named) as it is, judged at must when it names no level", func() {
		one := shard(t0, 1000, "", fail)
		rep, err := report.ReadFiles([]string{save(one)}, nil, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Level).To(Equal(verdict.Must))
		Expect(rep.Findings).To(HaveLen(1))
		var buf bytes.Buffer
		Expect(report.WriteJSON(&buf, shard(t0, 1000, verdict.Should, fail))).To(Succeed())
		rep, err = report.ReadFiles([]string{"-"}, &buf, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Level).To(Equal(verdict.Should))
		Expect(report.WriteJSON(&buf, shard(t0, 1000, verdict.May, fail))).To(Succeed())
		rep, err = report.ReadFiles(nil, &buf, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Level).To(Equal(verdict.May), "none named is stdin")
	})

	It("merges several, or one when asked to", func() {
		a := save(shard(t0, 1000, verdict.Must, fail))
		rep, err := report.ReadFiles([]string{a, a}, nil, false)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Findings).To(HaveLen(2))
		Expect(rep.DurationMS).To(Equal(int64(2000)))
		rep, err = report.ReadFiles([]string{a}, nil, true)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Summary).To(Equal(shard(t0, 1000, verdict.Must, fail).Summary))
	})

	It("names the file that is not a report, and stdin as such", func() {
		bad := filepath.Join(GinkgoT().TempDir(), "bad.json")
		Expect(os.WriteFile(bad, []byte("{"), 0o644)).To(Succeed())
		_, err := report.ReadFiles([]string{bad}, nil, false)
		Expect(err).To(MatchError(HavePrefix(bad + ": ")))
		_, err = report.ReadFiles([]string{"-"}, strings.NewReader(""), false)
		Expect(err).To(MatchError(HavePrefix("stdin: ")))
		_, err = report.ReadFiles([]string{"/nonexistent/r.json"}, nil, false)
		Expect(err).To(MatchError(ContainSubstring("/nonexistent/r.json")))
	})
})
