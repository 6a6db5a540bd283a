package protocols_test

import (
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// agent-bridge has no ready line, so its first scenario writes to a
// process that may still be starting. Its variant slow-start (1.5 s of
// silence) failed BRIDGE-INVALID-1 when the tables ran at once: the wait
// of an expect_frame step (2 s) counted from the send, and on a loaded
// machine the process took over half a second more to start. A wait for
// a frame the server owes counts from its first line, as a wait for an
// answer does.
var _ = Describe("a server slower to start than a step's wait", func() {
	It("is judged once it is up: the wait for a frame it owes counts from its first line", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		sh, err := exec.LookPath("sh")
		if err != nil {
			Skip("no sh to delay the server's start with")
		}
		b, err := protocols.Load("agent-bridge")
		Expect(err).NotTo(HaveOccurred())
		var malformed *scenario.Scenario
		for _, s := range b.Scenarios {
			if s.Name == "malformed" {
				malformed = s
			}
		}
		Expect(malformed).NotTo(BeNil())
		// Three seconds of silence, longer than the step's 2 s, well within
		// the startup timeout.
		slow := target.Target{Argv: []string{sh, "-c", `sleep 3; exec "$0" serve agent-bridge`, bin}}
		rep, err := testrun.Run(testrun.Server{Protocol: "agent-bridge", Command: slow}, runner.Config{
			Scenarios: []*scenario.Scenario{malformed}, Partial: true,
			Timeout: timeout, StartupTimeout: 10 * time.Second,
		})
		Expect(err).NotTo(HaveOccurred())
		judged := false
		for _, g := range rep.ByRule() {
			if g.Rule.ID == "BRIDGE-INVALID-1" {
				judged = true
				Expect(g.Verdict).To(Equal(verdict.Pass), evidence(rep, g.Rule.ID))
			}
		}
		Expect(judged).To(BeTrue())
	})
})
