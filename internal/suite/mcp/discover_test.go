package mcp_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/suite/mcp"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a legacy server over HTTP, run under 2026-07-28", func() {
	It("refusing server/discover 400 before initialize (as the TypeScript SDK's do) fails MCP-DISCOVER-1 only, and the run goes on in its revision", func() {
		// Found against server-everything with --revision 2026-07-28:
		// the refusal failed MCP-JSONRPC-5, and the scenario stopped with
		// "the server is gone".
		t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Method == http.MethodPost && bytes.Contains(testrun.Body(r), []byte(`"server/discover"`)) {
				return testrun.NotInitialized(w)
			}
			return w
		})
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t},
			runner.Config{Scenarios: named("tools"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		for _, f := range rep.Findings {
			if f.Rule != "MCP-DISCOVER-1" {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s: %s", f.Rule, f.Message)
			}
		}
		v, msg := finding(rep, "MCP-TOOLS-7")
		Expect(v).To(Equal(verdict.Pass), "the tools scenario ran, on the legacy session: %s", msg)
	})
})

var _ = Describe("a legacy server over HTTP that drops server/discover, run under 2026-07-28", func() {
	It("fails MCP-DISCOVER-1 only: neither the dropped request's exchange nor the ping behind it, refused 400 outside a session, is a missing response", func() {
		t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Method == http.MethodPost && bytes.Contains(testrun.Body(r), []byte(`"server/discover"`)) {
				// A stream opened and never answered: the wait for the
				// answer ends before the exchange does, and a ping goes
				// behind it.
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("X-Accel-Buffering", "no")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return nil
			}
			return w
		})
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t},
			runner.Config{Scenarios: named("tools"), Partial: true, Timeout: time.Second})
		Expect(err).NotTo(HaveOccurred())
		for _, f := range rep.Findings {
			if f.Rule != "MCP-DISCOVER-1" {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s: %s", f.Rule, f.Message)
			}
		}
		v, msg := finding(rep, "MCP-TOOLS-7")
		Expect(v).To(Equal(verdict.Pass), msg)
	})
})

var _ = Describe("MCP-BIND-1 against a server reached by --url alone", func() {
	It("is a skip: the port on this machine's other address may be anything's", func() {
		// Listening on every interface: judged, the rule would fail.
		l, err := net.Listen("tcp", ":0")
		Expect(err).NotTo(HaveOccurred())
		f := refmcp.NewFront(refserver.Options{}, false)
		srv := &http.Server{Handler: f}
		go func() { _ = srv.Serve(l) }()
		DeferCleanup(func() { f.Close(); _ = srv.Close() })
		url := fmt.Sprintf("http://127.0.0.1:%d/mcp", l.Addr().(*net.TCPAddr).Port)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Command: target.Target{URL: url, Transport: "http"}},
			runner.Config{Scenarios: named("http-origin"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-BIND-1")
		Expect(v).To(Equal(verdict.Skip), msg)
		Expect(msg).To(ContainSubstring("not launched by wirecheck"))
	})
})

var _ = Describe("a legacy server that drops server/discover, run under 2026-07-28", func() {
	It("is waited for once per lane: the lane's next process falls back at once, naming the wait that showed it", func() {
		var whys []string
		twice := &scenario.Scenario{Name: "twice", Rules: []string{"MCP-DISCOVER-1"}, Run: func(e *scenario.Env) error {
			for i := 0; i < 2; i++ {
				if i > 0 {
					if err := e.Restart(); err != nil {
						return err
					}
				}
				why, err := mcp.Fallback(e)
				if err != nil {
					return err
				}
				whys = append(whys, why)
			}
			e.Skip("MCP-DISCOVER-1", strings.Join(whys, " | "))
			return nil
		}}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Faults: []string{"discover-silent"}},
			runner.Config{Scenarios: []*scenario.Scenario{twice}, Partial: true, Timeout: time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(whys).To(HaveLen(2), "%v", rep.Findings)
		Expect(whys[0]).To(HavePrefix("server/discover was not answered in the "))
		Expect(whys[0]).To(ContainSubstring("waited for it: a ping sent behind it once 1s (--timeout) had passed was answered (transcript line "))
		Expect(whys[0]).NotTo(ContainSubstring("within 10s"), "the wait ended with the ping's answer, not at its bound")
		Expect(whys[1]).To(HavePrefix("not waited for the answer to server/discover: server/discover was not answered in the "))
		Expect(whys[1]).To(HaveSuffix("in scenario twice"))
	})
})

var _ = Describe("a server that exits while wirecheck waits for its server/discover, run under 2026-07-28", func() {
	It("is gone, and the silence recorded names the exit and the time waited, not the bound of the wait", func() {
		// It reads server/discover without answering, and exits on the
		// ping wirecheck sends behind it once --timeout has passed: the
		// wait ends by the exit, long before its bound.
		var why string
		var gone error
		probe := &scenario.Scenario{Name: "probe", Rules: []string{"MCP-DISCOVER-1"}, Run: func(e *scenario.Env) error {
			_, gone = mcp.Fallback(e)
			why = mcp.Silence(e)
			e.Skip("MCP-DISCOVER-1", why)
			return nil
		}}
		t := target.Target{Argv: []string{"sh", "-c", "read discover; read ping; exit 3"}}
		_, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t},
			runner.Config{Scenarios: []*scenario.Scenario{probe}, Partial: true, Timeout: 100 * time.Millisecond})
		Expect(err).NotTo(HaveOccurred())
		Expect(gone).To(MatchError(scenario.ErrGone), "a server that exited is gone, not a legacy server")
		Expect(why).To(HavePrefix("server/discover was not answered in the "))
		Expect(why).To(ContainSubstring("waited for it: the wait ended as the server exited (exit 3)"))
		Expect(why).NotTo(ContainSubstring("within"), "the wait ended at the exit, not at its bound")
	})
})
