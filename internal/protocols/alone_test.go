package protocols_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Every failure's Reproduce line runs its scenario alone, in a process of
// its own. A scenario's verdicts must not hang on the scenarios that ran
// before it in the whole run's process: alone, it trips no rule the fault
// does not declare (and against a clean server, none). The faults are
// those whose misbehaviour lands between scenarios: answers to
// notifications and cancellations, mangled ids, late answers (a server
// that answered notifications/initialized failed TOOLS-2 on a correct
// tools/list when `tools` ran alone).
var _ = Describe("a scenario run alone, as its Reproduce line runs it", func() {
	cases := []struct{ protocol, fault, transport string }{
		{"sonde-serve", "", ""}, {"tool-host", "", ""}, {"agent-bridge", "", ""}, {"mcp", "", ""}, {"sophon", "", ""},
		{"mcp", "", "http"},
		{"mcp", "answer-notifications", ""}, {"mcp", "id-type", ""}, {"mcp", "answer-cancel-unknown", ""},
		{"mcp", "answer-cancelled", ""}, {"sophon", "answer-initialized", ""},
	}
	for _, c := range cases {
		text := c.protocol + " clean"
		if c.fault != "" {
			text = c.protocol + " with fault " + c.fault
		}
		if c.transport != "" {
			text += " over " + c.transport
		}
		It("trips only what the fault declares, scenario by scenario: "+text, func() {
			b, err := protocols.Load(c.protocol)
			Expect(err).NotTo(HaveOccurred())
			r := newRun(b, "suite", "", "")
			var allowed []string
			if c.fault != "" {
				f := b.Protocol.Fault(c.fault)
				Expect(f).NotTo(BeNil(), "no fault %s in %s", c.fault, c.protocol)
				allowed = append(append(allowed, f.Trips...), f.Also...)
				r = faultRun(b, c.fault)
			}
			r = r.over(b, c.transport)
			srv, err := r.server()
			Expect(err).NotTo(HaveOccurred())
			for _, s := range b.Scenarios {
				rep, err := testrun.Run(srv, runner.Config{Scenarios: []*scenario.Scenario{s}, Timeout: r.bound(b), StartupTimeout: startupTimeout})
				Expect(err).NotTo(HaveOccurred(), "scenario %s alone", s.Name)
				for _, f := range rep.Findings {
					// Over its other transports a clean server passes at
					// --level should (see the tables).
					if f.Level == verdict.May || (f.Verdict != verdict.Fail && f.Verdict != verdict.Error) {
						continue
					}
					Expect(allowed).To(ContainElement(f.Rule), "scenario %s alone broke rule %s (%s):\n%s",
						s.Name, f.Rule, text, evidence(rep, f.Rule))
				}
			}
		})
	}
})
