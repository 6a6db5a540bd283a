package mcp_test

import (
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a subscriptions/listen whose stream never opens (2026-07-28, Streamable HTTP)", func() {
	// The fault listen-no-ack writes nothing for the listen request, so
	// its POST gets no response headers: the exchange ends at --timeout.
	// "A subscription ends when" the client or the server ends it, and
	// only the server's end is answered: a listen owes no response, and
	// the missing acknowledgement is MCP-SUBS-1's alone (MCP-JSONRPC-5
	// failed it before, "no JSON-RPC response").
	It("fails MCP-SUBS-1, and no rule that wants a response", func() {
		t, stop := testrun.Front(refserver.Options{Faults: []string{"listen-no-ack"}}, nil)
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t},
			runner.Config{Scenarios: named("subscriptions"), Partial: true, Timeout: time.Second})
		Expect(err).NotTo(HaveOccurred())
		subs1 := false
		for _, fd := range rep.Findings {
			if fd.Verdict != verdict.Fail {
				continue
			}
			Expect(fd.Rule).To(Equal("MCP-SUBS-1"), fd.Message)
			subs1 = true
		}
		Expect(subs1).To(BeTrue())
	})
})

var _ = Describe("a subscriptions/listen answered at once with a result and no acknowledgement (2026-07-28, Streamable HTTP)", func() {
	It("fails MCP-SUBS-1 saying the answer ended the wait, not that it lasted --timeout", func() {
		t, stop := testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			var req struct {
				ID     any    `json:"id"`
				Method string `json:"method"`
			}
			if r.Method != http.MethodPost || json.Unmarshal(testrun.Body(r), &req) != nil || req.Method != "subscriptions/listen" {
				return w
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return nil
		})
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t},
			runner.Config{Scenarios: named("subscriptions"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-SUBS-1")
		Expect(v).To(Equal(verdict.Fail), msg)
		Expect(msg).To(MatchRegexp(`^no notifications/subscriptions/acknowledged for subscriptions/listen "[^"]+" before subscriptions/listen was answered \(transcript line \d+\), [0-9.]+m?s after the wait began: the answer ends the subscription$`))
	})
})
