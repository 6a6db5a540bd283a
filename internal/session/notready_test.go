package session_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the not-ready block of a run that never began", func() {
	b, err := protocols.Load("sonde-serve")

	It("is nil for a run that began, or ended by another error", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(session.NotReady(nil, &report.Report{}, b.Protocol, "srv", time.Second, 3)).To(BeNil())
		Expect(session.NotReady(errors.New("boom"), &report.Report{}, b.Protocol, "srv", time.Second, 3)).To(BeNil())
	})

	It("carries the evidence of the not-started error, the ready line awaited and the startup timeout", func() {
		Expect(err).NotTo(HaveOccurred())
		ns := &session.NotStarted{Cause: "no line in 1s", Launched: true, Stderr: []string{"oops"}}
		rep := &report.Report{Findings: []report.Finding{
			{Rule: b.Protocol.Startup.Rule, Scenario: "startup", Verdict: verdict.Fail, Message: "no ready frame"},
			{Rule: "X-1", Scenario: "a", Verdict: verdict.Error, Message: "not run: the server never became ready"},
		}}
		n := session.NotReady(fmt.Errorf("scenario a: %w", ns), rep, b.Protocol, "srv --json", time.Second, 3)
		Expect(n).NotTo(BeNil())
		Expect(n.Command).To(Equal("srv --json"))
		Expect(n.Code).To(Equal(3))
		Expect(n.Within).To(Equal(time.Second))
		Expect(n.Flag).To(Equal("--startup-timeout"))
		Expect(n.Awaited).To(ContainSubstring(b.Protocol.Startup.Kind))
		Expect(n.Cause).To(Equal("no ready frame"))
		Expect(n.Stderr).To(Equal([]string{"oops"}))
		Expect(n.NotRun).To(Equal(1))
	})

	It("awaits the process itself for a server that did not start", func() {
		Expect(err).NotTo(HaveOccurred())
		n := session.NotReady(&session.NotStarted{Cause: "not found"}, &report.Report{}, b.Protocol, "srv", time.Second, 3)
		Expect(n.Awaited).To(Equal("the process to start"))
		Expect(n.Cause).To(Equal("not found"))
		Expect(n.Within).To(BeZero())
	})
	It("awaits the port of a launched HTTP server, for the startup timeout", func() {
		m, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		ns := &session.NotStarted{Cause: "the server exited (exit 3) before 127.0.0.1:1 accepted a connection", Launched: true,
			Awaited: "an answer on its port (OPTIONS *, or a TLS handshake)"}
		n := session.NotReady(ns, &report.Report{}, m.Protocol, "srv {port}", 2*time.Second, 3)
		Expect(n.Awaited).To(Equal("an answer on its port (OPTIONS *, or a TLS handshake)"))
		Expect(n.Within).To(Equal(2 * time.Second))
		Expect(n.Flag).To(Equal("--startup-timeout"))
		Expect(n.Cause).To(Equal(ns.Cause))
	})
})

var _ = Describe("a running server (--url alone) no connection reaches", func() {
	It("is a NotStarted naming the URL, the cause and what to check, before any session", func() {
		err := session.Reach(context.Background(), target.Target{URL: "http://nosuch.invalid:8080/mcp", Transport: "http"}, time.Second)
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(session.ErrNotStarted))
		Expect(ns.URL).To(Equal("http://nosuch.invalid:8080/mcp"))
		Expect(ns.Cause).To(Equal("the host nosuch.invalid does not resolve (no such host)"))
		Expect(ns.Error()).To(Equal("the target could not be reached: the host nosuch.invalid does not resolve (no such host)"))
		Expect(ns.Launched).To(BeFalse())
		Expect(ns.Within).To(BeZero(), "nothing was waited for")
	})

	It("leaves a launched server to its own wait", func() {
		Expect(session.Reach(context.Background(), target.Target{Argv: []string{"srv", "{port}"}, URL: "http://nosuch.invalid:{port}/mcp", Transport: "http"}, time.Second)).To(Succeed())
	})

	It("gives the block the URL in place of a command, and no startup timeout", func() {
		m, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		ns := &session.NotStarted{Cause: "nothing is listening on 127.0.0.1:9 (connection refused)", URL: "http://127.0.0.1:9/mcp",
			Check: "that the server is running", Awaited: "a connection to the host and port --url names"}
		n := session.NotReady(ns, &report.Report{}, m.Protocol, "http://127.0.0.1:9/mcp", 10*time.Second, 3)
		Expect(n.URL).To(Equal(ns.URL))
		Expect(n.Command).To(BeEmpty())
		Expect(n.Check).To(Equal(ns.Check))
		Expect(n.Awaited).To(Equal(ns.Awaited))
		Expect(n.Within).To(BeZero())
		Expect(n.Record().State).To(Equal("unreachable"))
	})
})
