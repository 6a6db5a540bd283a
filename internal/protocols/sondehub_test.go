package protocols_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A plain MCP server is no sonde hub: the profile's run against the MCP
// reference server fails exactly the hub's promises it does not keep,
// each with its evidence, and errs nowhere.
var _ = Describe("the sonde-hub suite against the plain MCP reference server", func() {
	It("reports exactly the hub's rules it does not meet, with the evidence", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		s := testrun.Server{Protocol: "sonde-hub", Command: target.Target{
			Argv: []string{bin, "serve", "mcp", "--http", "127.0.0.1:{port}"}, Transport: "http",
			Headers: []string{"Authorization: Bearer " + refmcp.DemoToken()}}}
		// Generous bounds: the verdicts, not the machine's load, are
		// under test.
		rep, err := testrun.Run(s, runner.Config{Timeout: 5 * time.Second, StartupTimeout: time.Minute})
		Expect(err).NotTo(HaveOccurred())
		var hub []string
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(Equal(verdict.Error), "rule %s errs in %s: %s", f.Rule, f.Scenario, f.Message)
			if f.Verdict != verdict.Fail {
				continue
			}
			if !strings.HasPrefix(f.Rule, "SONDE-HUB-") {
				// MCP-AUTH-1 is MCP's word for SONDE-HUB-AUTH-1's breach:
				// the run carries the hub's token, the server serves
				// without it.
				if f.Rule != "MCP-AUTH-1" {
					Expect(f.Level).To(Equal(verdict.May), "the MCP server breaks MCP rule %s:\n%s", f.Rule, evidence(rep, f.Rule))
				}
				continue
			}
			hub = append(hub, f.Rule)
			Expect(f.Message).NotTo(BeEmpty())
			Expect(f.Actual).NotTo(BeEmpty(), "%s shows what the server did", f.Rule)
			Expect(f.Transcript).NotTo(BeEmpty(), "%s carries its transcript", f.Rule)
		}
		// It serves without a token, lists none of the hub's tools and
		// has no REST API; its session flow is the hub's.
		Expect(hub).To(ConsistOf("SONDE-HUB-AUTH-1", "SONDE-HUB-AUTH-2", "SONDE-HUB-TOOLS-1", "SONDE-HUB-REST-1", "SONDE-HUB-REST-2"))
		v := testrun.Verdicts(rep)
		for _, r := range []string{"SONDE-HUB-TRANSPORT-1", "SONDE-HUB-FLOW-1", "SONDE-HUB-FLOW-2"} {
			Expect(v[r]).To(Equal(verdict.Pass), r)
		}
		Expect(findings(rep, "SONDE-HUB-TOOLS-1", verdict.Fail)).To(ContainSubstring("health_check, list_capabilities, diagnose, probe, list_agents, agent_overview, query_logs"))
		Expect(findings(rep, "SONDE-HUB-REST-1", verdict.Fail)).To(ContainSubstring("HTTP 404"))
	})
})
