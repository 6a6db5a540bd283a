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
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runReference runs a protocol's suite against its reference server with
// faults, selecting rules.
func runReference(id string, rules []string, faults ...string) *report.Report {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load(id)
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", id}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	rep, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
		Target:  target.Target{Argv: argv},
		Timeout: time.Second, Rules: rules,
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// verdicts maps each rule to its verdict in the report's table (report.ByRule).
func verdicts(rep *report.Report) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for _, g := range rep.ByRule() {
		out[g.Rule.ID] = g.Verdict
	}
	return out
}

var _ = Describe("--rules", func() {
	It("runs the scenarios that decide a rule judged on every frame, and reports only the selected rules", func() {
		// json-log breaks SONDE-FRAMING-2, which no scenario declares: it
		// is judged on whatever frame any scenario draws.
		full := runReference("sonde-serve", nil, "json-log")
		Expect(verdicts(full)).To(HaveKeyWithValue("SONDE-FRAMING-2", verdict.Fail))
		one := runReference("sonde-serve", []string{"SONDE-FRAMING-2"}, "json-log")
		Expect(verdicts(one)).To(Equal(map[string]verdict.Verdict{"SONDE-FRAMING-2": verdict.Fail}))
	})

	It("still runs only the declaring scenarios for a rule only scenarios decide", func() {
		one := runReference("sonde-serve", []string{"SONDE-ID-3"})
		Expect(verdicts(one)).To(Equal(map[string]verdict.Verdict{"SONDE-ID-3": verdict.Pass}))
		for _, f := range one.Findings {
			Expect(f.Scenario).To(Equal("id-types"))
		}
	})
})
