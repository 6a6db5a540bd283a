package httpmcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("Streamable HTTP", func() {
	It("delivers JSON answers as frames, captures the session id and sends it with the version header", func() {
		m := &mcpServer{}
		s := server(m)
		t, h := dial(s.URL, "http", 2*time.Second)
		f := handshake(t)
		Expect(string(f.Raw)).To(ContainSubstring(`"protocolVersion":"2025-06-18"`))
		Expect(f.HTTP).NotTo(BeNil())
		Expect(f.HTTP.Status).To(Equal(200))
		Expect(f.HTTP.For).To(Equal("1"))
		Expect(f.HTTP.Verb).To(Equal("POST"))
		Expect(t.(httpmcp.Exchanger).Session()).To(Equal("session-1"))

		Expect(t.Send([]byte(listReq))).To(Succeed())
		f = next(t)
		Expect(f.HTTP.For).To(Equal("2"))
		hs := m.headers()
		first, last := hs[0], hs[len(hs)-1]
		Expect(first.Get("Mcp-Session-Id")).To(BeEmpty())
		Expect(first.Get("MCP-Protocol-Version")).To(BeEmpty())
		Expect(first.Get("Accept")).To(Equal("application/json, text/event-stream"))
		Expect(first.Get("Content-Type")).To(Equal("application/json"))
		Expect(first.Get("X-Token")).To(Equal("secret"))
		Expect(last.Get("Mcp-Session-Id")).To(Equal("session-1"))
		Expect(last.Get("MCP-Protocol-Version")).To(Equal("2025-06-18"))

		Expect(h.Verdicts(httpmcp.CheckHTTPSessionID)).To(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckHTTPAccepted)).To(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckHTTPContentType)).To(ConsistOf(verdict.Pass, verdict.Pass))
		Eventually(func() []verdict.Verdict { return h.Verdicts(httpmcp.CheckHTTPGetStream) }).Should(ConsistOf(verdict.Pass))
	})

	It("sends no version header before 2025-06-18", func() {
		m := &mcpServer{version: "2025-03-26"}
		t, _ := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		next(t)
		hs := m.headers()
		Expect(hs[len(hs)-1].Get("MCP-Protocol-Version")).To(BeEmpty())
		Expect(hs[len(hs)-1].Get("Mcp-Session-Id")).To(Equal("session-1"))
	})

	It("sends MCP-Protocol-Version on every 2026-07-28 request: the revision its _meta names, and once served, on a request without _meta", func() {
		var mu sync.Mutex
		var seen []string
		s := server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("MCP-Protocol-Version"))
			mu.Unlock()
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Meta map[string]string `json:"_meta"`
				} `json:"params"`
			}
			b, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(b, &m)
			w.Header().Set("Content-Type", "application/json")
			if v := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; v != "" && v != "2026-07-28" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"unsupported"}}`, m.ID)
				return
			}
			fmt.Fprint(w, result(m.ID, `{}`))
		}))
		t, _ := dial(s.URL, "http", 2*time.Second)
		send := func(body string) {
			Expect(t.Send([]byte(body))).To(Succeed())
			next(t)
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"wirecheck/no-such-method"}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
		send(`{"jsonrpc":"2.0","id":3,"method":"wirecheck/no-such-method"}`)
		// A revision refused is not learned: the next request keeps the one served.
		send(`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`)
		send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
		mu.Lock()
		defer mu.Unlock()
		Expect(seen).To(Equal([]string{"", "2026-07-28", "2026-07-28", "2099-01-01", "2026-07-28"}))
	})

	It("reads SSE answers and passes a stream that closes after its response", func() {
		m := &mcpServer{sse: true}
		t, h := dial(server(m).URL, "http", 2*time.Second)
		f := handshake(t)
		Expect(f.HTTP.Stream).To(BeTrue())
		Expect(f.HTTP.For).To(Equal("1"))
		Eventually(func() []verdict.Verdict { return h.Verdicts(httpmcp.CheckHTTPStreamCloses) }).Should(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckHTTPStreamHasResponse)).To(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckHTTPXAccel)).To(ConsistOf(verdict.Pass))
	})

	It("opens the GET stream after initialized, delivers its messages, and DELETEs the session on CloseInput", func() {
		m := &mcpServer{get: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("X-Accel-Buffering", "no")
			w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}}
		t, h := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring("list_changed"))
		Expect(f.HTTP.Verb).To(Equal("GET"))
		Expect(f.HTTP.Stream).To(BeTrue())
		Expect(h.Verdicts(httpmcp.CheckHTTPGetStream)).To(ConsistOf(verdict.Pass))
		Expect(t.CloseInput()).To(Succeed())
		Expect(m.verbs()).To(ContainElement("DELETE"))
		hs := m.headers()
		Expect(hs[len(hs)-1].Get("Mcp-Session-Id")).To(Equal("session-1"))
		Eventually(func() []verdict.Verdict { return h.Verdicts(httpmcp.CheckHTTPGetNoResponse) }).Should(ConsistOf(verdict.Pass))
	})
})
