package interop_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// BenchmarkServerEverything is `make bench`'s figure for MCP: the whole
// suite against @modelcontextprotocol/server-everything over stdio, every
// server start included (the suite starts several processes). It reports
// the findings and the observations (checks) behind them per run.
func BenchmarkServerEverything(b *testing.B) {
	node, err := exec.LookPath("node")
	entry := filepath.Join(interop.Root(), "test", "interop", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if err != nil {
		b.Skip("node is not installed")
	}
	if _, err := os.Stat(entry); err != nil {
		b.Skip("server-everything is not installed (run .ci/run, or npm ci in test/interop)")
	}
	bundle, err := protocols.Load("mcp")
	if err != nil {
		b.Fatal(err)
	}
	argv := []string{node, entry, "stdio"}
	var findings, checks int
	for b.Loop() {
		rep, err := runner.Run(context.Background(), runner.Config{
			Protocol: bundle.Protocol, Schemas: bundle.Schemas, Scenarios: bundle.Scenarios, Handler: bundle.Handler,
			Launch: func() (transport.Transport, error) { return transport.Launch(transport.Options{Command: argv}) },
			Seed:   1,
		})
		if err != nil {
			b.Fatal(err)
		}
		findings = len(rep.Findings)
		checks = 0
		for _, f := range rep.Findings {
			checks += f.Count
		}
	}
	b.ReportMetric(float64(findings), "findings/run")
	b.ReportMetric(float64(checks), "checks/run")
}
