package interop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// BenchmarkServerEverything is `make bench`'s figure for MCP: the whole
// suite against @modelcontextprotocol/server-everything over stdio, every
// server start included. The baseline, timed in the same loop, is the
// least any stdio harness pays: one server start and its answer to
// initialize. Metrics: checks (observations) and findings per run, the
// wall time of a run, the ratio to the baseline, and the memory wirecheck
// took from the OS (the whole benchmark process: an upper bound).
//
// server-everything never exits when its stdin closes, so the whole suite
// includes the 2 s wirecheck (like the SDKs' own clients) gives a server to
// exit; the second figure leaves the shutdown scenario out, for comparison
// with suites that do not check shutdown.
func BenchmarkServerEverything(b *testing.B) {
	node, err := exec.LookPath("node")
	entry := filepath.Join(interop.Root(), "test", "interop", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if err != nil {
		b.Skip("node is not installed")
	}
	if _, err := os.Stat(entry); err != nil {
		b.Skip("server-everything is not installed (run .ci/run, or npm ci in test/interop)")
	}
	argv := []string{node, entry, "stdio"}
	b.Run("whole-suite", func(b *testing.B) { benchSuite(b, argv, "") })
	b.Run("without-shutdown", func(b *testing.B) { benchSuite(b, argv, "shutdown") })
}

// BenchmarkGoSDKEverything is the same against the Go SDK's example,
// which exits when its stdin closes (server-everything does not, so its
// run includes the 2 s wirecheck gives a server to exit).
func BenchmarkGoSDKEverything(b *testing.B) {
	bin := filepath.Join(interop.Root(), "test", "interop", "bin", "everything")
	if _, err := os.Stat(bin); err != nil {
		b.Skip("the Go SDK example is not installed (run .ci/run)")
	}
	benchSuite(b, []string{bin}, "")
}

// benchSuite times the MCP suite without the scenario named leave ("":
// the whole suite).
func benchSuite(b *testing.B, argv []string, leave string) {
	bundle, err := protocols.Load("mcp")
	if err != nil {
		b.Fatal(err)
	}
	var scs []*scenario.Scenario
	for _, s := range bundle.Scenarios {
		if s.Name != leave {
			scs = append(scs, s)
		}
	}
	var findings, checks int
	var suite, floor time.Duration
	for b.Loop() {
		start := time.Now()
		if err := oneStart(argv); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(start)
		start = time.Now()
		rep, err := runner.Run(context.Background(), runner.Config{
			Protocol: bundle.Protocol, Schemas: bundle.Schemas, Scenarios: scs, Handler: bundle.Handler,
			Target: target.Target{Argv: argv},
			Seed:   1,
		})
		suite += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		findings = len(rep.Findings)
		checks = 0
		for _, f := range rep.Findings {
			checks += f.Count
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := float64(b.N)
	b.ReportMetric(float64(findings), "findings/run")
	b.ReportMetric(float64(checks), "checks/run")
	b.ReportMetric(suite.Seconds()/n, "s/run")
	b.ReportMetric(floor.Seconds()/n, "s/one-start")
	b.ReportMetric(float64(suite)/float64(floor), "x-one-start")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MiB-sys")
}

// oneStart is the baseline: start the server, send initialize, wait for
// its answer, kill it.
func oneStart(argv []string) error {
	t, err := transport.Launch(transport.Options{Command: argv})
	if err != nil {
		return err
	}
	defer t.Close()
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	if err := t.Send(init); err != nil {
		return err
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case f, ok := <-t.Recv():
			if !ok {
				return fmt.Errorf("the server ended before answering initialize")
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(f.Raw, &m) == nil && string(m.ID) == "1" {
				return nil
			}
		case <-deadline:
			return fmt.Errorf("no answer to initialize within 10s")
		}
	}
}
