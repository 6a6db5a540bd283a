package report

import (
	"reflect"

	"github.com/onsi/ginkgo/v2"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// foldReport draws findings that stress the folds: rules in the
// catalogue twice or not at all, verdicts outside the contract, a
// scenario whose name reads as "scenario @ revision", columns judged or
// not, listed twice.
func foldReport(t *rapid.T) *Report {
	ids := rapid.SampledFrom([]string{"A-1", "B-2", "C-3", "D-4"})
	verdicts := rapid.SampledFrom([]verdict.Verdict{verdict.Pass, verdict.Fail, verdict.Skip, verdict.Error, "odd"})
	scenarios := rapid.SampledFrom([]string{"s", "t", "-", "s @ r1", ""})
	revisions := rapid.SampledFrom([]string{"", "r1", "r2", "r3"})
	r := &Report{}
	for _, id := range rapid.SliceOfN(ids, 0, 5).Draw(t, "rules") {
		r.Rules = append(r.Rules, verdict.Rule{ID: id, Level: verdict.Should, Title: id})
	}
	for range rapid.IntRange(0, 30).Draw(t, "findings") {
		r.Findings = append(r.Findings, Finding{Rule: ids.Draw(t, "rule"), Level: verdict.Must,
			Verdict: verdicts.Draw(t, "verdict"), Scenario: scenarios.Draw(t, "scenario"),
			Revision: revisions.Draw(t, "revision")})
	}
	for range rapid.IntRange(0, 4).Draw(t, "columns") {
		r.Revisions = append(r.Revisions, Revision{ID: revisions.Draw(t, "column"), Judged: rapid.Bool().Draw(t, "judged")})
	}
	return r
}

var _ = ginkgo.Describe("the tables' folds (ByRule, Matrix, the console's rows, Merge's findings)", func() {
	ginkgo.It("group, count and fold any findings as the copying code they replaced did", func() {
		rapid.Check(ginkgo.GinkgoT(), func(t *rapid.T) {
			r := foldReport(t)
			if got, want := rows(r), rowsBefore(r); !reflect.DeepEqual(got, want) {
				t.Fatalf("rows:\n%+v\nbefore:\n%+v", got, want)
			}
			for _, g := range r.ByRule() {
				if got, want := r.Matrix(g), r.matrixBefore(g); !reflect.DeepEqual(got, want) {
					t.Fatalf("matrix of %s: %+v, before %+v", g.Rule.ID, got, want)
				}
			}
			parts := []*Report{r, foldReport(t)}
			parts[1].Revisions = nil
			r.Revisions = nil
			merged, err := Merge(parts...)
			if err != nil {
				t.Fatal(err)
			}
			if want := mergeBefore(parts); !reflect.DeepEqual(merged.Findings, want) {
				t.Fatalf("merged findings:\n%+v\nbefore:\n%+v", merged.Findings, want)
			}
		})
	})
})
