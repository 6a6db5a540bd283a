package progress_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/progress"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func TestProgress(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Progress Suite")
}

var _ runner.Progress = (*progress.Run)(nil)

var _ = Describe("the live line of a run", func() {
	It("is drawn only where a person watches: both streams terminals, no report on stdout, not turned off", func() {
		var buf bytes.Buffer
		Expect(progress.On(&buf, &buf, nil, false)).To(BeFalse())
		f, err := os.CreateTemp(GinkgoT().TempDir(), "out")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		Expect(progress.On(f, f, nil, false)).To(BeFalse(), "a file is no terminal")
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			defer tty.Close()
			Expect(progress.On(tty, tty, nil, false)).To(BeTrue())
			Expect(progress.On(tty, tty, []string{"json=-"}, false)).To(BeFalse(), "a report on stdout")
			Expect(progress.On(tty, tty, nil, true)).To(BeFalse(), "--no-progress")
			Expect(progress.On(tty, f, nil, false)).To(BeFalse(), "stderr redirected")
		}
	})

	It("counts lanes done and distinct rules failed, and names the lane running longest", func() {
		var buf bytes.Buffer
		clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		r := progress.NewRun(&buf)
		progress.SetClock(r, func() time.Time { return clock })
		r.Planned(3)
		r.Scenario(0, "lifecycle")
		clock = clock.Add(2 * time.Second)
		r.Scenario(1, "http-resume")
		r.Scenario(0, "tools")
		clock = clock.Add(5 * time.Second)
		Expect(r.Line()).To(Equal("0 rules failed · slowest: tools 7s"))
		r.Observed(verdict.Observation{Rule: "MCP-X-1", Verdict: verdict.Fail})
		r.Observed(verdict.Observation{Rule: "MCP-X-1", Verdict: verdict.Fail})
		r.Observed(verdict.Observation{Rule: "MCP-X-2", Verdict: verdict.Pass})
		r.LaneDone(0)
		Expect(r.Line()).To(Equal("1 rules failed · slowest: http-resume 5s"))
		r.LaneDone(1)
		r.LaneDone(2)
		Expect(r.Line()).To(Equal("1 rules failed"))
		r.Stop()
		r.Stop()
		// Drawn (throttled: the first state at least), and cleared last,
		// so the report that follows starts on a clean line.
		Expect(buf.String()).To(ContainSubstring("(0/3)"))
		Expect(buf.String()).To(MatchRegexp(`\r +\r+$`))
	})

	It("adds up the lanes of several runs on one line (run --revision all)", func() {
		var buf bytes.Buffer
		r := progress.NewRun(&buf)
		r.Planned(2)
		r.Planned(3)
		for i := range 5 {
			r.LaneDone(i)
		}
		r.Stop()
		Expect(buf.String()).To(ContainSubstring("(0/5)"))
		Expect(buf.String()).NotTo(ContainSubstring("/3)"))
	})
})
