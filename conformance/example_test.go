package conformance_test

import (
	"fmt"
	"testing"

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
