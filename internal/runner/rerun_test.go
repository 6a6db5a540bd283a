package runner_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
)

var _ = Describe("the line that reruns a run", func() {
	It("leaves out the runner's timeouts and the level the command judges at by default", func() {
		r := runner.Rerun(target.Rerun{Command: "run", Timeout: runner.DefaultTimeout, Startup: runner.DefaultStartupTimeout, Level: "MUST"})
		Expect(r).To(Equal(target.Rerun{Command: "run"}))
		r = runner.Rerun(target.Rerun{Command: "replay", Timeout: time.Second, Startup: runner.DefaultStartupTimeout, Level: "may"})
		Expect(r).To(Equal(target.Rerun{Command: "replay", Timeout: time.Second}))
		r = runner.Rerun(target.Rerun{Command: "replay", Startup: time.Minute, Level: "must"})
		Expect(r).To(Equal(target.Rerun{Command: "replay", Startup: time.Minute, Level: "must"}))
	})

	reproduce := func(rr target.Rerun, scs ...*scenario.Scenario) map[string]string {
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp"}, runner.Config{Scenarios: scs, Timeout: 2 * time.Second, Rerun: &rr})
		Expect(err).NotTo(HaveOccurred())
		return failedLines(rep)
	}

	It("names the scenario to run again by --scenario for run", func() {
		lines := reproduce(target.Rerun{Command: "run", Protocol: "mcp"}, pinged("a", false, true, nil))
		Expect(lines["a"]).To(HavePrefix("wirecheck run --protocol mcp --scenario a -- "))
	})

	It("names the scenario's file for replay", func() {
		sc := pinged("a", false, true, nil)
		sc.File = "saved/a.yaml"
		lines := reproduce(target.Rerun{Command: "replay", Protocol: "mcp"}, sc)
		Expect(lines["a"]).To(HavePrefix("wirecheck replay saved/a.yaml --protocol mcp -- "))
	})
})

// failedLines maps each scenario with a failure to its Reproduce line.
func failedLines(rep *report.Report) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Findings {
		if f.Reproduce != "" && strings.Contains(f.Message, "planted") {
			out[f.Scenario] = f.Reproduce
		}
	}
	return out
}
