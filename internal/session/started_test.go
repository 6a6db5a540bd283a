package session_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// A legacy HTTP+SSE server whose stream never names its endpoint never
// began a session: the run is not started (as a stdio server that never
// starts), not one whose every scenario errs.
var _ = Describe("a legacy HTTP+SSE server", func() {
	launch := func(h http.HandlerFunc) (*session.Session, error) {
		srv := httptest.NewServer(h)
		DeferCleanup(srv.Close)
		o := options("mcp", &observations{}, "unused")
		o.Target = target.Target{Transport: "sse", URL: srv.URL + "/sse"}
		s, err := session.Launch(o)
		if s != nil {
			DeferCleanup(s.Close)
		}
		return s, err
	}

	DescribeTable("whose stream names no endpoint did not start, saying why and what was awaited",
		func(h http.HandlerFunc, cause string) {
			_, err := launch(h)
			var ns *session.NotStarted
			Expect(err).To(BeAssignableToTypeOf(ns))
			ns = err.(*session.NotStarted)
			Expect(ns.Cause).To(ContainSubstring(cause))
			Expect(ns.Awaited).To(ContainSubstring("endpoint event"))
			Expect(ns.Flag).To(Equal("--timeout"))
		},
		Entry("a GET answered with JSON", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{}")
		}), "the SSE stream's GET was answered HTTP 200"),
		Entry("a stream without an endpoint event", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}), "no endpoint event"),
	)

	It("whose stream names its endpoint starts", func() {
		s, err := launch(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(s).NotTo(BeNil())
	})
})

var _ = Describe("a launched legacy HTTP+SSE server that never names its endpoint", func() {
	It("is not started, with what it wrote on stderr", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		o := options("mcp", &observations{}, bin, "serve", "mcp", "--sse", "127.0.0.1:{port}", "--fault", "sse-get-json")
		o.Target.Transport = "sse"
		s, err := session.Launch(o)
		if s != nil {
			s.Close()
		}
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(ns.Launched).To(BeTrue())
		Expect(ns.Stderr).To(ContainElement(MatchRegexp(`^listening on http://127\.0\.0\.1:\d+/sse$`)))
	})
})
