package httpmcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/refserver"
	mcpref "github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

var _ = Describe("Detect, for a URL given without --transport", func() {
	// front serves the reference server's Streamable HTTP or legacy front
	// and counts the requests by method.
	front := func(legacy bool) (string, func(string) int) {
		f := mcpref.NewFront(refserver.Options{Log: io.Discard, Out: io.Discard}, legacy)
		var mu sync.Mutex
		seen := map[string]int{}
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Method]++
			mu.Unlock()
			f.ServeHTTP(w, r)
		}))
		DeferCleanup(func() { f.Close(); ts.CloseClientConnections(); ts.Close() })
		path := "/mcp"
		if legacy {
			path = "/sse"
		}
		return ts.URL + path, func(m string) int { mu.Lock(); defer mu.Unlock(); return seen[m] }
	}

	It("names Streamable HTTP for a server that accepts the POSTed initialize, and ends the session it opened", func() {
		u, seen := front(false)
		kind, why := httpmcp.Detect(httpmcp.Options{URL: u, Timeout: 10 * time.Second}, "2025-06-18")
		Expect(kind).To(Equal(httpmcp.KindHTTP))
		Expect(why).To(ContainSubstring("POST initialize answered HTTP 200"))
		Expect(seen(http.MethodGet)).To(Equal(0))
		Expect(seen(http.MethodDelete)).To(Equal(1))
	})

	It("falls back to the legacy transport where the POST is refused 4xx and GET names the endpoint", func() {
		u, _ := front(true)
		kind, why := httpmcp.Detect(httpmcp.Options{URL: u, Timeout: 10 * time.Second}, "2024-11-05")
		Expect(kind).To(Equal(httpmcp.KindSSE))
		Expect(why).To(ContainSubstring("POST initialize answered HTTP 405"))
		Expect(why).To(ContainSubstring("endpoint"))
	})

	It("stays with Streamable HTTP where a 4xx POST is followed by no endpoint event", func() {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
			http.Error(w, "log in first", http.StatusUnauthorized)
		}))
		DeferCleanup(ts.Close)
		kind, why := httpmcp.Detect(httpmcp.Options{URL: ts.URL + "/mcp", Timeout: 10 * time.Second}, "2025-06-18")
		Expect(kind).To(Equal(httpmcp.KindHTTP))
		Expect(why).To(ContainSubstring("HTTP 401"))
		Expect(why).To(ContainSubstring("judged as Streamable HTTP"))
	})

	It("leaves a server that does not answer to the run, which reports it", func() {
		ts := httptest.NewServer(http.NotFoundHandler())
		u := ts.URL + "/mcp"
		ts.Close()
		kind, why := httpmcp.Detect(httpmcp.Options{URL: u, Timeout: 10 * time.Second}, "2025-06-18")
		Expect(kind).To(Equal(httpmcp.KindHTTP))
		Expect(why).To(BeEmpty())
	})
})
