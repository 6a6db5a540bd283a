package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
)

var _ = Describe("what a session of the HTTP front keeps", func() {
	// kept sends n pings in one session and says how many streams the
	// session remembers.
	kept := func(variants []string, n int) int {
		f := NewFront(refserver.Options{Variants: variants}, false)
		ts := httptest.NewServer(f)
		DeferCleanup(func() { f.Close(); ts.Close() })
		post := func(sid, body string) *http.Response {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+endpoint, strings.NewReader(body))
			req.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp
		}
		sid := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`).Header.Get("Mcp-Session-Id")
		for i := 1; i <= n; i++ {
			Expect(post(sid, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"ping"}`).StatusCode).To(Equal(http.StatusOK))
		}
		f.mu.Lock()
		s := f.sessions[sid]
		f.mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		Expect(s.byKey).To(BeEmpty())
		return len(s.streams)
	}

	It("forgets a request's stream once answered, unless it is resumable, and then only the last ones", func() {
		Expect(kept(nil, 300)).To(Equal(1), "the GET stream only")
		Expect(kept([]string{"resumable"}, 300)).To(Equal(keptStreams + 1))
	})
})
