package mcp_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a request before initialize whose exchange the server cuts at once (Streamable HTTP)", func() {
	It("fails MCP-LIFECYCLE-5 saying how soon the exchange ended, not that it waited its bound", func() {
		t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(testrun.Body(r)), `"tools/list"`) {
				return w
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return nil
		})
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Command: t},
			runner.Config{Scenarios: named("before-initialize"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-LIFECYCLE-5")
		Expect(v).To(Equal(verdict.Fail), msg)
		Expect(msg).To(MatchRegexp(`^a request sent before initialize got no answer: its exchange ended without one after [0-9.]+m?s \(transcript line \d+ says how\)$`))
	})
})
