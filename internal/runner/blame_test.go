package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runTestServer runs scenarios against the test server (testserver_test.go)
// speaking protocol which.
func runTestServer(which string, slow time.Duration, scs []*scenario.Scenario, cfg runner.Config) *report.Report {
	argv, env := testServer(which, slow)
	cfg.Scenarios = scs
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	rep, err := testrun.Run(testrun.Server{Protocol: which, Command: target.Target{Argv: argv, Env: env}}, cfg)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// listing is a sonde-serve scenario that lists the tools under each id,
// passing SONDE-ID-3 on each answer.
func listing(name string, ids ...string) *scenario.Scenario {
	return &scenario.Scenario{Name: name, Rules: []string{"SONDE-ID-3"}, Run: func(e *scenario.Env) error {
		for _, id := range ids {
			in, _, err := e.Call(map[string]any{"id": id, "method": "tools/list"})
			if err != nil {
				return err
			}
			e.Pass("SONDE-ID-3", in.Seq)
		}
		return nil
	}}
}

// findings returns the findings of one scenario with the given verdicts.
func findings(rep *report.Report, scen string, verdicts ...verdict.Verdict) []report.Finding {
	var out []report.Finding
	for _, f := range rep.Findings {
		if f.Scenario != scen {
			continue
		}
		for _, v := range verdicts {
			if f.Verdict == v {
				out = append(out, f)
			}
		}
	}
	return out
}

var _ = Describe("blame", func() {
	It("charges a death to the scenario during which the server broke, and gives the next scenario a fresh process", func() {
		// The process answers one tools/call and breaks: it never answered
		// the probe (tools/list) before it is sent.
		breaks := &scenario.Scenario{Name: "breaks", Rules: []string{"SONDE-ID-3"}, Run: func(e *scenario.Env) error {
			in, _, err := e.Call(map[string]any{"id": doomed + "-1", "method": "tools/call", "params": map[string]any{"name": "echo", "input": map[string]any{}}})
			if err != nil {
				return err
			}
			e.Pass("SONDE-ID-3", in.Seq)
			return nil
		}}
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{breaks, listing("after", "second")}, runner.Config{Jobs: 1})
		Expect(findings(rep, "after", verdict.Fail, verdict.Error, verdict.Skip)).To(BeEmpty(), "the next scenario is not charged")
		failed := findings(rep, "breaks", verdict.Fail)
		Expect(failed).To(HaveLen(1))
		Expect(failed[0].Rule).To(Equal("SONDE-GEN-SURVIVE"))
		Expect(failed[0].Message).To(ContainSubstring("died during this scenario"))
		Expect(failed[0].Message).To(ContainSubstring("exit"))
		Expect(findings(rep, "after", verdict.Pass)).NotTo(BeEmpty())
	})

	It("reports a death once: the rules the dead server kept the scenario from observing skip, saying it died", func() {
		// The process answers one tools/call and breaks; the scenario's
		// next request finds it gone.
		dies := &scenario.Scenario{Name: "dies", Rules: []string{"SONDE-ID-3", "SONDE-ID-1"}, Run: func(e *scenario.Env) error {
			if _, _, err := e.Call(map[string]any{"id": doomed + "-1", "method": "tools/call", "params": map[string]any{"name": "echo", "input": map[string]any{}}}); err != nil {
				return err
			}
			_, _, err := e.Call(map[string]any{"id": "next", "method": "tools/list"})
			return err
		}}
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{dies}, runner.Config{Jobs: 1})
		failed := findings(rep, "dies", verdict.Fail, verdict.Error)
		Expect(failed).To(HaveLen(1), "one finding for one cause")
		Expect(failed[0].Rule).To(Equal("SONDE-GEN-SURVIVE"))
		// SONDE-ID-1 was observed on the one answer; SONDE-ID-3 never was.
		skipped := findings(rep, "dies", verdict.Skip)
		Expect(skipped).To(HaveLen(1))
		Expect(skipped[0].Rule).To(Equal("SONDE-ID-3"))
		Expect(skipped[0].Message).To(ContainSubstring("the server died during the scenario"))
	})

	It("charges a hang to the scenario after which the server stopped answering the probe it answered before", func() {
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{
			listing("deafens", "first", deaf+"-1"),
			listing("after", "second"),
		}, runner.Config{Jobs: 1})
		Expect(findings(rep, "after", verdict.Fail, verdict.Error, verdict.Skip)).To(BeEmpty(), "the next scenario is not charged")
		failed := findings(rep, "deafens", verdict.Fail)
		Expect(failed).NotTo(BeEmpty())
		Expect(failed[0].Rule).To(Equal("SONDE-GEN-SURVIVE"))
		Expect(failed[0].Message).To(ContainSubstring("stopped answering"))
		Expect(failed[0].Message).To(ContainSubstring("1s (--timeout)"))
	})
})

var _ = Describe("deadlines", func() {
	It("measure the server's own step, not its start-up: a host that takes longer to start than --timeout and the exit deadline passes", func() {
		// 2.5s of start-up against --timeout 1s and an exit deadline of 2s:
		// a wait that counted start-up would fail the first request of each
		// process and the exit after EOF.
		rep := runTestServer("tool-host", 2500*time.Millisecond, nil, runner.Config{StartupTimeout: 10 * time.Second})
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
		}
		Expect(findings(rep, "eof", verdict.Pass)).NotTo(BeEmpty())
	})
})

// message returns the message of the first finding of rule in scen with
// verdict v ("" when there is none).
func message(rep *report.Report, scen, rule string, v verdict.Verdict) string {
	for _, f := range rep.Findings {
		if f.Scenario == scen && f.Rule == rule && f.Verdict == v {
			return f.Message
		}
	}
	return ""
}

var _ = Describe("messages", func() {
	It("tell a server alive and writing from a dead one: a timeout names --timeout and what the server wrote meanwhile", func() {
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{listing("busy", "first", babble+"-1")}, runner.Config{Jobs: 1})
		timely := message(rep, "busy", "SONDE-ONE-RESPONSE-1", verdict.Fail)
		Expect(timely).To(ContainSubstring("within 1s (--timeout)"))
		Expect(timely).To(MatchRegexp(`still running and wrote \d+ line\(s\) on stdout`))
		Expect(timely).To(ContainSubstring(`{"log":"busy"}`))
		stopped := message(rep, "busy", "SONDE-ID-3", verdict.Pass)
		Expect(stopped).To(BeEmpty())
		for _, f := range rep.Findings {
			Expect(f.Message).NotTo(ContainSubstring("gone"), "%s: a live server is not gone", f.Rule)
		}
	})

	It("name the exit status of a server that died", func() {
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{listing("dies", "first", doomed+"-1", "then")}, runner.Config{Jobs: 1})
		Expect(message(rep, "dies", "SONDE-GEN-SURVIVE", verdict.Fail)).To(MatchRegexp(`exited \(.*9`))
	})
})

var _ = Describe("a server that never becomes ready", func() {
	It("costs one startup timeout: the lanes still to start give up at once, reporting the same cause", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		// Each launch appends a line to a file before it becomes the server.
		launches := filepath.Join(GinkgoT().TempDir(), "launches")
		rep, err := runner.Run(context.Background(), runner.Config{
			Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
			Target: target.Target{Argv: []string{"sh", "-c", `echo >> "$0"; exec "$@"`, launches,
				bin, "serve", "sonde-serve", "--fault", "no-ready"}},
			Timeout: time.Second, StartupTimeout: time.Second, Starts: 1,
		})
		Expect(errors.Is(err, session.ErrNotStarted)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("no ready line within 1s (--startup-timeout)"))
		lines, err := os.ReadFile(launches)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(lines), "\n")).To(Equal(1), "one process was waited for; the lanes after it did not start theirs")
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Error {
				Expect(f.Message).To(ContainSubstring("no ready line"), "%s in %s", f.Rule, f.Scenario)
			}
		}
	})

	// The CLI's not-ready block reads this evidence from the error.
	DescribeTable("returns the evidence of why it never started",
		func(argv []string, launched bool, cause string, stderr []string) {
			b, err := protocols.Load("sonde-serve")
			Expect(err).NotTo(HaveOccurred())
			rep, err := runner.Run(context.Background(), runner.Config{
				Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
				Target: target.Target{Argv: argv}, Timeout: time.Second, StartupTimeout: 5 * time.Second,
			})
			var ns *session.NotStarted
			Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
			Expect(ns.Launched).To(Equal(launched))
			Expect(ns.Cause).To(ContainSubstring(cause))
			Expect(ns.Stderr).To(Equal(stderr))
			Expect(rep.Notes).To(ContainElement(ContainSubstring("scenario(s) not run")))
		},
		Entry("a command that cannot be run", []string{"/nonexistent/wirecheck-server"}, false, "/nonexistent/wirecheck-server", nil),
		Entry("a server that exits first", []string{"sh", "-c", "echo no manifest here >&2; exit 4"}, true, "the server exited (exit 4)", []string{"no manifest here"}),
	)
})
