package runner_test

import (
	"errors"
	"net"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a running server (--url alone) the run cannot reach", func() {
	It("ends the run as not started: every scenario not run, none judged, the URL and the cause in the error", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		scs := []*scenario.Scenario{pinged("a", false, false, nil), pinged("b", false, false, nil), pinged("c", true, false, nil)}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: target.Target{URL: "http://" + addr + "/mcp", Transport: "http"}},
			runner.Config{Scenarios: scs, Jobs: 4, Timeout: 2 * time.Second})
		Expect(err).To(MatchError(testrun.ErrNotStarted))
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue())
		Expect(ns.URL).To(Equal("http://" + addr + "/mcp"))
		Expect(ns.Cause).To(Equal("nothing is listening on " + addr + " (connection refused)"))
		Expect(ns.Check).NotTo(BeEmpty())
		notRun := map[string]bool{}
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(Equal(verdict.Fail), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
			if f.Verdict == verdict.Error {
				Expect(f.Message).To(Equal("not run: the target could not be reached: nothing is listening on " + addr + " (connection refused)"))
				notRun[f.Scenario] = true
			}
		}
		Expect(notRun).To(HaveLen(3))
		Expect(strings.Join(rep.Notes, "\n")).To(ContainSubstring("the target could not be reached: nothing is listening on " + addr + " (connection refused); 3 scenario(s) not run"))
	})

	It("is judged as before once the first connection reached it: a server gone since is the scenarios' finding", func() {
		// The listener takes the first connection, the run's reach, and
		// is gone before any session.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		go func() {
			if c, err := l.Accept(); err == nil {
				_ = c.Close()
			}
			_ = l.Close()
		}()
		DeferCleanup(func() { _ = l.Close() })
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: target.Target{URL: "http://" + addr + "/mcp", Transport: "http"}},
			runner.Config{Scenarios: []*scenario.Scenario{pinged("a", false, false, nil)}, Timeout: time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(findings(rep, "a", verdict.Fail)).NotTo(BeEmpty(), "the server's failure to answer is judged")
	})
})
