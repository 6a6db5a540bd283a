package mcp_test

import (
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runScenario runs the one MCP scenario name at revision against the
// reference server with faults and variants, over stdio or, overHTTP,
// through the reference server's Streamable HTTP front.
func runScenario(name, revision string, faults, variants []string, overHTTP bool) *report.Report {
	return runScenarioWithin(5*time.Second, name, revision, faults, variants, overHTTP)
}

// runScenarioWithin is runScenario with --timeout d.
func runScenarioWithin(d time.Duration, name, revision string, faults, variants []string, overHTTP bool) *report.Report {
	b, err := protocols.Load("mcp")
	Expect(err).NotTo(HaveOccurred())
	var only []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if sc.Name == name {
			only = append(only, sc)
		}
	}
	Expect(only).To(HaveLen(1))
	srv := testrun.Server{Protocol: "mcp", Revision: revision, Faults: faults, Variants: variants}
	if overHTTP {
		t, stop := testrun.Front(refserver.Options{Faults: faults, Variants: variants}, nil)
		DeferCleanup(stop)
		srv.Command = t
	}
	rep, err := testrun.Run(srv, runner.Config{Scenarios: only, Timeout: d})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// familyOf is the verdict of each rule of rep whose ID starts with prefix.
func familyOf(rep *report.Report, prefix string) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for r, v := range testrun.Verdicts(rep) {
		if strings.HasPrefix(r, prefix) {
			out[r] = v
		}
	}
	return out
}

// allOf gives rules prefix1 … prefixN verdict v, but those in except
// theirs.
func allOf(prefix string, n int, v verdict.Verdict, except map[string]verdict.Verdict) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for i := 1; i <= n; i++ {
		out[prefix+strconv.Itoa(i)] = v
	}
	for r, ev := range except {
		out[r] = ev
	}
	return out
}
