package runner_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runReference runs a protocol's suite against its reference server with
// faults, selecting rules.
func runReference(id string, rules []string, faults ...string) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: id, Faults: faults}, runner.Config{
		Timeout: time.Second, Rules: rules,
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

var _ = Describe("--rules", func() {
	It("runs the scenarios that decide a rule judged on every frame, and reports only the selected rules", func() {
		// json-log breaks SONDE-FRAMING-2, which no scenario declares: it
		// is judged on whatever frame any scenario draws.
		full := runReference("sonde-serve", nil, "json-log")
		Expect(testrun.Verdicts(full)).To(HaveKeyWithValue("SONDE-FRAMING-2", verdict.Fail))
		one := runReference("sonde-serve", []string{"SONDE-FRAMING-2"}, "json-log")
		Expect(testrun.Verdicts(one)).To(Equal(map[string]verdict.Verdict{"SONDE-FRAMING-2": verdict.Fail}))
	})

	It("still runs only the declaring scenarios for a rule only scenarios decide", func() {
		one := runReference("sonde-serve", []string{"SONDE-ID-3"})
		Expect(testrun.Verdicts(one)).To(Equal(map[string]verdict.Verdict{"SONDE-ID-3": verdict.Pass}))
		for _, f := range one.Findings {
			Expect(f.Scenario).To(Equal("id-types"))
		}
	})
})

var _ = Describe("the target's transport", func() {
	It("resolves the protocol for it, refusing one the protocol does not offer before launching anything", func() {
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		rep, err := runner.Run(context.Background(), runner.Config{
			Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios,
			Target: target.Target{Argv: []string{"false"}, Transport: "http"},
		})
		Expect(err).To(MatchError(`protocol sonde-serve has no transport "http" (known: stdio)`))
		Expect(testrun.Verdicts(rep)).NotTo(ContainElement(Not(Equal(verdict.Skip))), "nothing was run")
	})
})

var _ = Describe("a rule the spec leaves out of the run's revision", func() {
	It("is skipped with the spec's reason, not the words of a scenario that skips it anyway", func() {
		// The logging scenario skips MCP-LOGGING-1 when no log came, in
		// every revision; 2026-07-28 has no such rule.
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28"}, runner.Config{
			Timeout: time.Second, Rules: []string{"MCP-LOGGING-1"},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Findings).NotTo(BeEmpty())
		for _, f := range rep.Findings {
			Expect(f.Verdict).To(Equal(verdict.Skip))
			Expect(f.Message).To(HavePrefix("not a rule of revision 2026-07-28 (the spec gives it to "), "scenario %s", f.Scenario)
		}
	})
})
