package report_test

import (
	"context"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the exit code of a run that began", func() {
	failing := func(l verdict.Level) *report.Report {
		return &report.Report{Findings: []report.Finding{{Rule: "X-1", Level: l, Verdict: verdict.Fail}}}
	}

	It("is 0 for a pass, and for a violation below the level", func() {
		code, err := (&report.Report{}).Exit(verdict.Must, nil)
		Expect(code, err).To(Equal(report.ExitOK))
		code, err = failing(verdict.Should).Exit(verdict.Must, nil)
		Expect(code, err).To(Equal(report.ExitOK))
	})

	It("is 1 for a violation at or above the level, and for a run cancelled without a signal, which must not pass a gate", func() {
		code, err := failing(verdict.Should).Exit(verdict.Should, nil)
		Expect(code).To(Equal(report.ExitViolations))
		Expect(err).To(MatchError(""))
		code, err = (&report.Report{}).Exit(verdict.Must, fmt.Errorf("run: %w", context.Canceled))
		Expect(code).To(Equal(report.ExitViolations))
		Expect(err).To(MatchError("interrupted"))
	})

	It("is 2 with the error when the harness itself failed, a violation or not", func() {
		boom := errors.New("boom")
		code, err := failing(verdict.Must).Exit(verdict.Must, boom)
		Expect(code).To(Equal(report.ExitUsage))
		Expect(err).To(Equal(boom))
	})

	It("is the signal's, as a shell gives it, for a run a signal interrupted, whatever it found before", func() {
		r := failing(verdict.Must)
		r.Interrupt("SIGTERM", 0)
		code, err := r.Exit(verdict.Must, fmt.Errorf("run: %w", context.Canceled))
		Expect(code).To(Equal(143))
		Expect(err).To(MatchError(ContainSubstring("interrupted by SIGTERM")))
		r = &report.Report{}
		r.Interrupt("SIGINT", 0)
		code, _ = r.Exit(verdict.Must, nil)
		Expect(code).To(Equal(130))
		Expect(r.Notes).To(ContainElement(ContainSubstring("nothing was judged from then on")))
	})
})
