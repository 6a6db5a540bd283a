package toolhost_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the unreadable scenario against a host that ignores lines that are not JSON", func() {
	It("fails TOOLHOST-GEN-UNREADABLE on the first line left unanswered and sends no more such lines, each of which would wait out --timeout", func() {
		rep, err := testrun.Run(testrun.Server{Protocol: "tool-host", Faults: []string{"malformed-silent"}}, runner.Config{
			Timeout: time.Second, Rules: []string{"TOOLHOST-GEN-UNREADABLE", "TOOLHOST-GEN-NO-ID-2"},
		})
		Expect(err).NotTo(HaveOccurred())
		var fails []string
		for _, f := range rep.Findings {
			if f.Rule == "TOOLHOST-GEN-UNREADABLE" && f.Verdict == verdict.Fail {
				for range max(1, f.Count) {
					fails = append(fails, f.Message)
				}
			}
		}
		Expect(fails).To(Equal([]string{"no answer within 1s (--timeout) to a line of truncated JSON; the other lines with no request in them were not sent"}))
		// The requests without a usable id are JSON: still sent, and judged.
		Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("TOOLHOST-GEN-NO-ID-2", verdict.Pass))
	})
})
