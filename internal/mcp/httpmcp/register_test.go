package httpmcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the HTTP transports, as they register with the engine", func() {
	It("are http and sse after stdio, with their report names and endpoint paths, http the one a URL alone is reached over", func() {
		Expect(transport.Names()).To(Equal([]string{"stdio", "http", "sse"}))
		h, ok := transport.Lookup("http")
		Expect(ok).To(BeTrue())
		Expect([]string{h.Title, h.Path}).To(Equal([]string{"HTTP", "/mcp"}))
		s, _ := transport.Lookup("sse")
		Expect([]string{s.Title, s.Path}).To(Equal([]string{"legacy HTTP+SSE", "/sse"}))
		Expect(s.Detect).To(BeNil())
		k, ok := transport.ByURL()
		Expect(ok).To(BeTrue())
		Expect(k.Name).To(Equal("http"))
		Expect(transport.URLNames()).To(Equal([]string{"http", "sse"}))
	})

	It("register their checks with verdict, the per-stream ones counted", func() {
		Expect(verdict.Checks).To(HaveKey(httpmcp.CheckHTTPAccepted))
		Expect(verdict.Checks).To(HaveKey(httpmcp.CheckSSEEndpoint))
		Expect(verdict.Counted).To(HaveKeyWithValue(httpmcp.CheckHTTPPriming, "SSE streams"))
		Expect(verdict.Counted).NotTo(HaveKey(httpmcp.CheckHTTPAccepted))
	})

	It("answer apart from the POSTs over sse only, and say what a legacy session waits for", func() {
		for kind, apart := range map[string]bool{"http": false, "sse": true} {
			t, err := transport.DialKind(transport.DialOptions{URL: "http://127.0.0.1:1/x", Kind: kind})
			Expect(err).NotTo(HaveOccurred())
			Expect(t.(transport.Apart).AnswersApart()).To(Equal(apart), kind)
			Expect(t.(transport.Starter).Awaits()).To(ContainSubstring("endpoint event"))
			Expect(t.Close()).To(Succeed())
		}
	})

	It("detect with the first revision that has Streamable HTTP when the run names none", func() {
		bodies := make(chan string, 4)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if r.Method == http.MethodPost {
				bodies <- string(b)
			}
			w.WriteHeader(http.StatusNotFound)
		}))
		DeferCleanup(ts.Close)
		h, _ := transport.Lookup("http")
		name, _ := h.Detect(transport.DialOptions{URL: ts.URL + "/mcp"}, "")
		Expect(name).To(Equal("http"))
		Expect(<-bodies).To(ContainSubstring(`"protocolVersion":"2025-03-26"`))
		h.Detect(transport.DialOptions{URL: ts.URL + "/mcp"}, "2025-06-18")
		Expect(strings.Contains(<-bodies, `"protocolVersion":"2025-06-18"`)).To(BeTrue())
	})
})
