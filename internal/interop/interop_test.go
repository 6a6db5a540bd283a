package interop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// run runs the whole MCP suite against a server, as `wirecheck run
// --protocol mcp [--transport …] -- argv…` does.
func run(t target.Target) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t}, runner.Config{
		Timeout:        runner.DefaultTimeout,
		StartupTimeout: runner.DefaultStartupTimeout,
		Seed:           1,
	})
	Expect(err).NotTo(HaveOccurred(), "the run must complete without a harness error")
	return rep
}

// compare asserts that the run found exactly the recorded findings, and
// that the record explains itself (UPDATE_INTEROP=1 rewrites it instead,
// for a maintainer who has examined every change). A harness error
// (verdict error) fails the test unless it is recorded, and then
// docs/mcp-interop.md says which limit of wirecheck it is.
func compare(name string, rep *report.Report) {
	got := interop.Failures(rep)
	if os.Getenv("UPDATE_INTEROP") != "" {
		exp, _ := interop.Load(name)
		if exp == nil {
			exp = &interop.Expected{Server: name}
		}
		exp.Findings = interop.Rerecord(exp.Findings, got)
		b, _ := json.MarshalIndent(exp, "", "  ")
		Expect(os.WriteFile(filepath.Join(interop.Root(), "internal", "interop", "testdata", name+".json"), append(b, '\n'), 0o644)).To(Succeed())
	}
	exp, err := interop.Load(name)
	Expect(err).NotTo(HaveOccurred())
	want := append([]interop.Finding{}, exp.Findings...)
	interop.Sort(want)
	for _, f := range got {
		if f.Verdict != string(verdict.Fail) && !interop.Covered(want, f) {
			Fail(fmt.Sprintf("harness error in %s, not recorded as a limit of wirecheck: %s", f.Scenario, message(rep, f)))
		}
	}
	var extra, missing []string
	for _, f := range got {
		if !interop.Covered(want, f) {
			extra = append(extra, f.String()+": "+message(rep, f))
		}
	}
	for _, f := range want {
		if !f.Intermittent && !slices.ContainsFunc(got, f.Covers) {
			missing = append(missing, f.String())
		}
	}
	Expect(extra).To(BeEmpty(), "new findings against %s: examine each, then fix wirecheck or record it in testdata and docs/mcp-interop.md", name)
	Expect(missing).To(BeEmpty(), "recorded findings against %s that vanished", name)
}

func message(rep *report.Report, f interop.Finding) string {
	for _, x := range rep.Findings {
		if x.Rule == f.Rule && x.Scenario == f.Scenario && x.Revision == f.Revision {
			return x.Message
		}
	}
	return ""
}

// serverEverything is the entry point of the pinned npm server, installed
// on first use where npm is, with node to run it; it skips the test where
// neither can be had.
func serverEverything() (node, entry string) {
	dir := filepath.Join(interop.Root(), "test", "interop")
	entry = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	node, err := exec.LookPath("node")
	if err != nil {
		Skip("node is not installed: the npm server @modelcontextprotocol/server-everything cannot run (.ci/run installs it)")
	}
	if _, err := os.Stat(entry); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			Skip("npm is not installed: cannot install @modelcontextprotocol/server-everything (.ci/run installs it)")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "npm ci in test/interop:\n%s", out)
	}
	return node, entry
}

// goSDKEverything is the pinned Go SDK example, installed on first use.
func goSDKEverything() string {
	bin := filepath.Join(interop.Root(), "test", "interop", "bin", "everything")
	if _, err := os.Stat(bin); err != nil {
		gobin, err := exec.LookPath("go")
		if err != nil {
			Skip("go is not on PATH: cannot install " + interop.GoSDKEverything)
		}
		cmd := exec.Command(gobin, "install", interop.GoSDKEverything)
		cmd.Env = append(os.Environ(), "GOBIN="+filepath.Dir(bin), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "go install %s:\n%s", interop.GoSDKEverything, out)
	}
	return bin
}

var _ = Describe("real MCP servers over stdio", func() {
	It("@modelcontextprotocol/server-everything "+interop.ServerEverythingVersion+" has exactly the recorded findings", func() {
		node, entry := serverEverything()
		compare("server-everything", run(target.Target{Argv: []string{node, entry, "stdio"}}))
	})

	It("the Go SDK's examples/server/everything "+interop.GoSDKVersion+" has exactly the recorded findings", func() {
		compare("go-sdk-everything", run(target.Target{Argv: []string{goSDKEverything()}}))
	})
})

// Over HTTP wirecheck launches each server as a user would: `wirecheck run
// --protocol mcp --transport http|sse -- SERVER …{port}`, the port in the
// server's own way of taking one (server-everything reads PORT, the Go
// example takes -http ADDR), the endpoint at the default path (/mcp, or
// /sse for the legacy transport).
var _ = Describe("real MCP servers over HTTP", func() {
	It("@modelcontextprotocol/server-everything "+interop.ServerEverythingVersion+" in streamableHttp mode has exactly the recorded findings", func() {
		node, entry := serverEverything()
		compare("server-everything-http", run(target.Target{
			Transport: "http", Argv: []string{node, entry, "streamableHttp"}, Env: []string{"PORT=" + target.Port},
		}))
	})

	It("@modelcontextprotocol/server-everything "+interop.ServerEverythingVersion+" in sse mode (the legacy HTTP+SSE transport) has exactly the recorded findings", func() {
		node, entry := serverEverything()
		compare("server-everything-sse", run(target.Target{
			Transport: "sse", Argv: []string{node, entry, "sse"}, Env: []string{"PORT=" + target.Port},
		}))
	})

	It("the Go SDK's examples/server/everything "+interop.GoSDKVersion+" with -http has exactly the recorded findings", func() {
		compare("go-sdk-everything-http", run(target.Target{
			Transport: "http", Argv: []string{goSDKEverything(), "-http", "127.0.0.1:" + target.Port},
		}))
	})
})
