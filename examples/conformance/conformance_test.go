// Package example is what a Go server team writes to get MCP conformance
// in its own `go test`: one test, one call. Here the server is
// wirecheck's reference server run in the test's process
// (conformance.Reference); yours is your server's serve function
// (Options.Serve), its binary (Options.Command), or its http.Handler
// (Options.Handler).
//
//	go test ./examples/conformance -run 'TestConformance/MCP-LIFECYCLE' -v
package example

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/conformance"
)

// options is the suite and the server, shared by the test and the test
// of the test below.
func options(faults ...string) conformance.Options {
	return conformance.Options{
		Protocol: "mcp",
		Revision: "2025-06-18",
		Serve:    conformance.Reference("mcp", faults, nil),
		Level:    "must",
	}
}

// TestConformance runs the MCP suite; every rule is a subtest.
func TestConformance(t *testing.T) {
	conformance.Run(t, options())
}

// TestAFaultyServerFailsIt proves TestConformance can fail: the same
// test against a reference server that leaves serverInfo out of its
// initialize result (fault init-no-serverinfo) fails MCP-LIFECYCLE-2,
// with the evidence. It runs the test on a recording testing.TB.
func TestAFaultyServerFailsIt(t *testing.T) {
	rec := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conformance.Run(rec, options("init-no-serverinfo"))
	}()
	<-done
	all := strings.Join(rec.errors, "\n")
	if !strings.Contains(all, "MCP-LIFECYCLE-2 (MUST)") || !strings.Contains(all, "Expected: ") {
		t.Fatalf("the faulty server passed, or failed without evidence; recorded errors:\n%s", all)
	}
	if strings.Contains(all, "MCP-LIFECYCLE-1 (MUST)") {
		t.Errorf("a rule the fault does not break failed too:\n%s", all)
	}
}

// recorder is a testing.TB that records what would be printed. Its
// embedded TB is nil: Run calls only the methods below.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Name() string        { return "TestConformance" }
func (r *recorder) Log(args ...any)     {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Error(args ...any)   { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) { r.Errorf(f, args...); runtime.Goexit() }
