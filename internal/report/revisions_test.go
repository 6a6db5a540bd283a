package report_test

import (
	"bytes"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a report of several revisions", func() {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	at := func(rev, rule, scen string, v verdict.Verdict) report.Finding {
		return report.Finding{Rule: rule, Level: verdict.Must, Verdict: v, Scenario: scen, Revision: rev}
	}
	labels := func(r *report.Report) map[string][]string {
		out := map[string][]string{}
		for _, g := range r.ByRule() {
			for _, c := range r.Matrix(g) {
				out[g.Rule.ID] = append(out[g.Rule.ID], c.Label())
			}
		}
		return out
	}

	It("has a cell per rule and revision: its verdict, · where the rule is not the revision's, — where the server spoke another", func() {
		r := shard(t0, 10, verdict.Must,
			at("A", "R-1", "s", verdict.Pass), at("B", "R-1", "s", verdict.Fail), at("B", "R-1", "t", verdict.Pass),
			at("B", "R-2", "s", verdict.Pass))
		r.Revisions = []report.Revision{{ID: "A", Negotiated: "A", Judged: true}, {ID: "B", Negotiated: "B", Judged: true}, {ID: "C", Negotiated: "B"}}
		Expect(labels(r)).To(Equal(map[string][]string{"R-1": {"pass", "FAIL", "—"}, "R-2": {"·", "pass", "—"}}))
		Expect(r.Revisions[2].Note()).To(Equal("asked for C, the server negotiated B: the B column judges it"))
		Expect(r.Revisions[0].Note()).To(BeEmpty())
	})

	It("has no matrix with one revision or none", func() {
		r := shard(t0, 10, verdict.Must, at("", "R-1", "s", verdict.Pass))
		Expect(r.Matrix(r.ByRule()[0])).To(BeNil())
		r.Revisions = []report.Revision{{ID: "A", Judged: true}}
		Expect(r.Matrix(r.ByRule()[0])).To(BeNil())
	})

	It("names the revision beside the scenario wherever a finding is shown", func() {
		r := shard(t0, 10, verdict.Must, at("A", "R-1", "s", verdict.Pass), at("B", "R-1", "s", verdict.Fail))
		r.Revisions = []report.Revision{{ID: "A", Judged: true}, {ID: "B", Judged: true}}
		Expect(r.Findings[1].Where()).To(Equal("s @ B"))
		var out bytes.Buffer
		Expect(report.WriteConsole(&out, r, report.ConsoleOptions{})).To(Succeed())
		Expect(out.String()).To(ContainSubstring("scenario: s @ B"))
		Expect(out.String()).To(MatchRegexp(`FAIL\s+R-1\s+MUST\s+pass\s+FAIL\s+title of R-1`))
		out.Reset()
		Expect(report.WriteMarkdown(&out, r)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("| verdict | rule | level | A | B | title | citation |"))
		out.Reset()
		Expect(report.WriteJUnit(&out, r)).To(Succeed())
		Expect(out.String()).To(ContainSubstring(`name="s @ B"`))
	})

	It("merges shards column by column: judged where any shard saw the revision spoken, its findings dropped where none did", func() {
		a := shard(t0, 10, verdict.Must, at("A", "R-1", "s", verdict.Pass), at("C", "R-1", "s", verdict.Fail))
		a.Revisions = []report.Revision{{ID: "A", Negotiated: "A", Judged: true}, {ID: "C", Judged: true}}
		b := shard(t0, 10, verdict.Must, at("A", "R-1", "t", verdict.Pass), at("C", "R-1", "t", verdict.Pass),
			report.Finding{Rule: "R-2", Level: verdict.Must, Verdict: verdict.Skip, Scenario: "-", Revision: "A"})
		b.Revisions = []report.Revision{{ID: "A", Judged: true}, {ID: "C", Negotiated: "A"}}
		m, err := report.Merge(a, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Revisions).To(Equal([]report.Revision{{ID: "A", Negotiated: "A", Judged: true}, {ID: "C", Negotiated: "A"}}))
		for _, f := range m.Findings {
			Expect(f.Revision).To(Equal("A"))
		}
		Expect(labels(m)).To(Equal(map[string][]string{"R-1": {"pass", "—"}, "R-2": {"skip", "—"}}))
		Expect(m.Failed(verdict.Must)).To(BeFalse())
	})
})

var _ = Describe("the HTML report of several revisions", func() {
	It("heads a verdict column per revision, escaping what a report file says", func() {
		r := shard(time.Time{}, 1, verdict.Must,
			report.Finding{Rule: "R-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "s", Revision: "A"},
			report.Finding{Rule: "R-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Revision: "<script>x</script>"})
		r.Revisions = []report.Revision{{ID: "A", Judged: true}, {ID: "<script>x</script>", Judged: true}, {ID: "C", Negotiated: "A"}}
		var out bytes.Buffer
		Expect(report.WriteHTML(&out, r)).To(Succeed())
		page := out.String()
		Expect(page).To(ContainSubstring(`<th class="rev">A</th><th class="rev">&lt;script&gt;x&lt;/script&gt;</th><th class="rev">C</th><th>Title</th>`))
		Expect(page).NotTo(ContainSubstring("<script>x"))
		Expect(page).To(ContainSubstring(`<span class="badge pass">pass</span></td><td class="cell" title=""><span class="badge fail">FAIL</span>`))
		Expect(page).To(ContainSubstring(`title="the server negotiated another revision instead"><span class="badge none">—</span>`))
	})
})

var _ = Describe("the JSON report of several revisions", func() {
	It("keeps each finding's revision and the columns, valid against the report schema, and reads back as written", func() {
		t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
		r := shard(t0, 1, verdict.Must,
			report.Finding{Rule: "R-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "s", Revision: "A", Transcript: []transcript.Entry{}},
			report.Finding{Rule: "R-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Revision: "B", Known: true, Transcript: []transcript.Entry{}})
		r.Revisions = []report.Revision{{ID: "A", Negotiated: "A", Judged: true}, {ID: "B", Judged: true}, {ID: "C", Negotiated: "A"}}
		doc := toJSON(r)
		Expect(validate(doc)).To(Succeed())
		back, err := report.ReadJSON(bytes.NewReader(doc))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Revisions).To(Equal(r.Revisions))
		Expect(back.Findings[1].Revision).To(Equal("B"))
		Expect(back.Findings[1].Known).To(BeTrue())
	})
})
