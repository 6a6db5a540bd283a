package runner_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("startup", func() {
	It("reads a ready line that came before the lane began its wait (a runner descheduled after the launch, under load)", func() {
		// The hook holds each lane after its launch until the server's
		// ready line is in the peer's inbox, as a loaded machine can: the
		// line must still be read, not discarded with the inbox when the
		// lane names its scenario.
		DeferCleanup(runner.SetLaunched(func(p *peer.Peer) {
			deadline := time.Now().Add(5 * time.Second)
			for p.Frames() == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}))
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{listing("after", "first")},
			runner.Config{Jobs: 1, StartupTimeout: 2 * time.Second})
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
		}
		Expect(findings(rep, "startup", verdict.Pass)).NotTo(BeEmpty())
		Expect(findings(rep, "after", verdict.Pass)).NotTo(BeEmpty())
	})
})
