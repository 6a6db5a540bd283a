package conformance_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/conformance"
	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// recorder is a testing.TB that keeps what a test would print: the test
// of a test. It runs no subtests (it is no *testing.T), so Run reports
// every rule on it directly. The embedded TB is nil: a method Run should
// not call panics.
type recorder struct {
	testing.TB
	errors, logs []string
	fatal        bool
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return "TestRecorded" }
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) Log(args ...any)            { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *recorder) Failed() bool               { return len(r.errors) > 0 || r.fatal }
func (r *recorder) Fatalf(f string, args ...any) {
	r.Errorf(f, args...)
	r.fatal = true
	runtime.Goexit()
}
func (r *recorder) Skipf(f string, args ...any) { r.Logf(f, args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)           { r.Error(args...); r.fatal = true; runtime.Goexit() }

// record runs f on a recorder in a goroutine of its own, as the testing
// package runs a test (Fatalf ends the goroutine).
func record(f func(t testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

var _ = Describe("conformance.Run", func() {
	It("passes the reference server run in this process, every rule reported", func() {
		var got []conformance.Finding
		r := record(func(t testing.TB) {
			got = conformance.Run(t, conformance.Options{Protocol: "sonde-serve", Serve: conformance.Reference("sonde-serve", nil, nil)})
		})
		Expect(r.errors).To(BeEmpty())
		Expect(got).NotTo(BeEmpty())
		for _, f := range got {
			Expect(f.Verdict).NotTo(BeElementOf("fail", "error"), "%+v", f)
		}
	})

	It("fails a faulty server on the rule its fault breaks, with Expected, Actual, the transcript and how to rerun it", func() {
		r := record(func(t testing.TB) {
			conformance.Run(t, conformance.Options{Protocol: "sonde-serve", Serve: conformance.Reference("sonde-serve", []string{"runtime-null-id"}, nil)})
		})
		all := strings.Join(r.errors, "\n---\n")
		Expect(all).To(ContainSubstring("SONDE-RUNTIME-1 (MUST)"))
		Expect(all).To(ContainSubstring("Expected: "))
		Expect(all).To(ContainSubstring("Actual:   "))
		Expect(all).To(ContainSubstring("Transcript:"))
		Expect(all).To(ContainSubstring("Reproduce: go test -run '^TestRecorded$'"))
	})

	It("launches a Command, whose failures carry the wirecheck line that reruns them, and writes the reports asked", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		out := filepath.Join(GinkgoT().TempDir(), "run.json")
		r := record(func(t testing.TB) {
			conformance.Run(t, conformance.Options{Protocol: "sonde-serve", Command: []string{bin, "serve", "sonde-serve", "--fault", "runtime-null-id"},
				Reports: []string{"json=" + out}})
		})
		Expect(strings.Join(r.errors, "\n")).To(ContainSubstring("Reproduce: wirecheck run --protocol sonde-serve --scenario "))
		data, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"rule": "SONDE-RUNTIME-1"`))
	})

	It("runs every revision with Revision \"all\", each failure naming its revision and the line that reruns it there", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		var got []conformance.Finding
		r := record(func(t testing.TB) {
			got = conformance.Run(t, conformance.Options{Protocol: "mcp", Revision: "all", Scenarios: []string{"version-negotiation"},
				Command: []string{bin, "serve", "mcp", "--fault", "version-echo-any"}})
		})
		revs := map[string]bool{}
		for _, f := range got {
			revs[f.Revision] = true
		}
		Expect(revs).To(HaveLen(5))
		all := strings.Join(r.errors, "\n---\n")
		Expect(all).To(ContainSubstring("in scenario version-negotiation @ 2025-03-26"))
		Expect(all).To(ContainSubstring("--revision 2025-03-26 "))
	})

	It("judges at the level asked and honours a baseline", func() {
		base := filepath.Join(GinkgoT().TempDir(), "known.txt")
		Expect(os.WriteFile(base, []byte("SONDE-RUNTIME-1\nSONDE-ID-1\n"), 0o644)).To(Succeed())
		r := record(func(t testing.TB) {
			conformance.Run(t, conformance.Options{Protocol: "sonde-serve", Serve: conformance.Reference("sonde-serve", []string{"runtime-null-id"}, nil), Baseline: base})
		})
		Expect(r.errors).To(BeEmpty())
		Expect(strings.Join(r.logs, "\n")).To(ContainSubstring("(known: in the baseline)"))
	})

	It("serves an http.Handler on a loopback port for the HTTP transport", func() {
		front := refmcp.NewFront(refserver.Options{Log: io.Discard}, false)
		DeferCleanup(front.Close)
		var got []conformance.Finding
		r := record(func(t testing.TB) {
			got = conformance.Run(t, conformance.Options{Protocol: "mcp", Handler: front, Rules: []string{"MCP-LIFECYCLE-*", "MCP-HTTP-*"}})
		})
		Expect(r.errors).To(BeEmpty())
		rules := map[string]bool{}
		for _, f := range got {
			rules[f.Rule] = true
		}
		Expect(rules).To(HaveKey("MCP-LIFECYCLE-1"))
	})

	// A handler that never returns and never reads its body: what ends
	// its exchanges is wirecheck's, and so is the wait at the end.
	It("ends a run whose Handler never returns, and reports the handler hung", func() {
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		hung := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release })
		type result struct {
			got []conformance.Finding
			err error
		}
		done := make(chan result, 1)
		go func() {
			got, err := conformance.Check(conformance.Options{Protocol: "mcp", Handler: hung, Rules: []string{"MCP-LIFECYCLE-1"},
				Timeout: 200 * time.Millisecond, StartupTimeout: 500 * time.Millisecond})
			done <- result{got, err}
		}()
		var res result
		Eventually(done).WithTimeout(10 * time.Second).Should(Receive(&res))
		Expect(res.err).To(HaveOccurred())
		Expect(res.err).To(MatchError(ContainSubstring("the Handler hung")), "the run ended; its handler did not")
	})

	DescribeTable("fails the test at once on a setup that cannot run, saying why",
		func(o conformance.Options, want string) {
			r := record(func(t testing.TB) { conformance.Run(t, o) })
			Expect(r.fatal).To(BeTrue())
			Expect(strings.Join(r.errors, "\n")).To(ContainSubstring(want))
		},
		Entry("an unknown protocol", conformance.Options{Protocol: "nope", Command: []string{"true"}}, `unknown protocol "nope"`),
		Entry("no server", conformance.Options{Protocol: "sonde-serve"}, "name the server once"),
		Entry("two servers", conformance.Options{Protocol: "sonde-serve", Command: []string{"true"}, URL: "http://127.0.0.1:1/"}, "name the server once"),
		Entry("a server that never starts", conformance.Options{Protocol: "sonde-serve", Command: []string{"/nonexistent/server"}}, "/nonexistent/server"),
	)
})
