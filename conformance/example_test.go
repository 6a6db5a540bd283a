package conformance_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/conformance"
)

// A Go server team's whole conformance test: the MCP suite against the
// server's binary, one subtest per rule.
func ExampleRun() {
	TestMCPConformance := func(t *testing.T) {
		conformance.Run(t, conformance.Options{Protocol: "mcp", Command: []string{"./bin/server", "--stdio"}})
	}
	_ = TestMCPConformance
}

// The reference server with a planted fault, judged outside a test: the
// rules it breaks, and where.
func ExampleCheck() {
	found, err := conformance.Check(conformance.Options{
		Protocol: "sonde-serve",
		Serve:    conformance.Reference("sonde-serve", []string{"runtime-null-id"}, nil),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range found {
		if f.Verdict == "fail" {
			fmt.Println(f.Rule, f.Level, "in", f.Scenario)
		}
	}
	// Output:
	// SONDE-ID-1 MUST in tools-call-every
	// SONDE-RUNTIME-1 MUST in tools-call-every
}

// A client's conformance, judged outside a test: Role "client" makes
// wirecheck the MCP server, and the client's command names it {server}
// where it takes its server's command. This client is a shell line that
// writes its session at once and quits, so its initialized notification
// comes before it could have read the initialize result: a finding. A
// real client is, e.g., []string{"./bin/agent", "--mcp-server", "{server}",
// "--list-tools"}.
func ExampleCheck_client() {
	const session = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"shell-client","version":"1.0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}`
	found, err := conformance.Check(conformance.Options{
		Protocol: "mcp",
		Role:     "client",
		Command:  []string{"sh", "-c", `printf '%s\n' "$1" | "$0"`, "{server}", session},
		Rules:    []string{"MCP-CLIENT-LIFECYCLE-1", "MCP-CLIENT-LIFECYCLE-2"},
		Timeout:  time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range found {
		if f.Verdict != "skip" {
			fmt.Println(f.Rule, f.Verdict, "in", f.Scenario)
		}
	}
	// Output:
	// MCP-CLIENT-LIFECYCLE-1 pass in client-session
	// MCP-CLIENT-LIFECYCLE-2 fail in client-session
}
