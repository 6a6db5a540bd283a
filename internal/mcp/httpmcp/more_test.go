package httpmcp_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("answers", func() {
	It("takes a non-2xx JSON-RPC response carrying the id as the response", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad"}}`, m.ID)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring("-32602"))
		Expect(f.HTTP.Status).To(Equal(400))
	})

	It("takes the response out of a non-2xx body of several JSON values, after the body as it came", func() {
		const extra = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad"}}`+"\n"+extra, m.ID)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		body := next(t)
		Expect(string(body.Raw)).To(HaveSuffix(extra), "the body as it came, MCP-HTTP-1's evidence")
		f := next(t)
		Expect(string(f.Raw)).To(Equal(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}`))
		Expect(f.HTTP.Status).To(Equal(400))
		Expect(f.HTTP.End).To(BeEmpty(), "answered, not ended without an answer")
	})

	It("ends a request refused with a body that is no answer, quoting it", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "<h1>oops</h1>")
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(Equal(`HTTP 500, text/html, body "<h1>oops</h1>"`))
	})

	DescribeTable("marks a request refused by authorization, and says what the user can do", func(status int, challenge bool, hint string) {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			if challenge {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:admin"`)
			}
			http.Error(w, http.StatusText(status), status)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		f := ended(t)
		Expect(f.HTTP.Authorization).To(Equal(hint != ""))
		if hint != "" {
			Expect(f.HTTP.End).To(ContainSubstring(hint))
		} else {
			Expect(f.HTTP.End).NotTo(ContainSubstring("token"))
		}
	},
		Entry("401 without a token", http.StatusUnauthorized, true, "the server requires a token and this run sent none"),
		Entry("403 with a challenge (insufficient scope)", http.StatusForbidden, true, "the server requires a token"),
		Entry("403 without one is no authorization answer", http.StatusForbidden, false, ""),
	)

	It("ends a request answered 202 with no body, failing http.content-type", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.WriteHeader(http.StatusAccepted)
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("held no response (HTTP 202"))
		Expect(hk.Failure(httpmcp.CheckHTTPContentType)).To(ContainSubstring("HTTP 202, no Content-Type, no body"))
	})

	It("delivers a JSON array answering a batch whole, as stdio does, and knows it answered", func() {
		h := answer("2025-03-26", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "["+result([]byte("5"), "{}")+","+result([]byte("6"), "{}")+"]")
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`))).To(Succeed())
		f := next(t)
		Expect(string(f.Raw)).To(HavePrefix(`[{"jsonrpc":"2.0","id":5`))
		Expect(string(f.Raw)).To(ContainSubstring(`"id":6`))
		Expect(hk.Verdicts(httpmcp.CheckHTTPContentType)).To(ConsistOf(verdict.Pass, verdict.Pass))
		Consistently(t.Recv(), 200*time.Millisecond).ShouldNot(Receive()) // no End frame
	})

	It("reads a batch's responses batched in SSE events, and waits for all of them", func() {
		h := answer("2025-03-26", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "data: [%s]\n\n", result([]byte("5"), "{}"))
			flush(w, "data: [%s]\n\n", result([]byte("6"), "{}"))
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`))).To(Succeed())
		Expect(string(next(t).Raw)).To(HavePrefix(`[{"jsonrpc":"2.0","id":5`))
		Expect(string(next(t).Raw)).To(HavePrefix(`[{"jsonrpc":"2.0","id":6`))
		Eventually(func() []verdict.Verdict { return hk.Verdicts(httpmcp.CheckHTTPStreamCloses) }).Should(ConsistOf(verdict.Pass))
		Expect(hk.Verdicts(httpmcp.CheckHTTPStreamHasResponse)).To(ConsistOf(verdict.Pass))
	})

	It("ends only the requests of a batch its stream left unanswered", func() {
		h := answer("2025-03-26", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "data: [%s]\n\n", result([]byte("5"), "{}"))
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`))).To(Succeed())
		Expect(next(t).Raw).NotTo(BeNil())
		f := next(t)
		Expect(f.Raw).To(BeNil())
		Expect(f.HTTP.For).To(Equal("6"))
		Consistently(t.Recv(), 200*time.Millisecond).ShouldNot(Receive()) // none for 5
	})

	It("POSTs WriteRaw's bytes as they are and delivers the answer before returning's next frame", func() {
		var got atomic.Value
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := make([]byte, 64)
			n, _ := r.Body.Read(b)
			got.Store(string(b[:n]))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		Expect(t.WriteRaw([]byte("{not json\n"))).To(Succeed())
		Expect(got.Load()).To(Equal("{not json\n"))
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring("-32700"))
		Expect(f.HTTP.For).To(BeEmpty())
	})

	It("ends a raw POST answered with plain text with an End frame for no request", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad json", http.StatusBadRequest)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		Expect(t.WriteRaw([]byte("{not json"))).To(Succeed())
		f := next(t)
		Expect(f.Raw).To(BeNil())
		Expect(f.HTTP.For).To(BeEmpty())
		Expect(f.HTTP.End).To(ContainSubstring("HTTP 400"))
	})

	It("opens the GET stream again at most three times", func() {
		var gets atomic.Int32
		m := &mcpServer{get: func(w http.ResponseWriter, r *http.Request) {
			gets.Add(1)
			sseHead(w)
		}}
		t, _ := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		Eventually(gets.Load).Should(BeEquivalentTo(4))
		Consistently(gets.Load, 500*time.Millisecond).Should(BeEquivalentTo(4))
	})
})

var _ = Describe("probes", func() {
	It("sends the session's headers with overrides kept in their case, and drops what it is told", func() {
		m := &mcpServer{}
		t, _ := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		x := t.(httpmcp.Exchanger)
		res, err := x.Exchange(context.Background(), httpmcp.Exchange{
			Method: "POST", Body: []byte(listReq),
			Set:  map[string]string{"mcp-method": "tools/list", "Origin": "http://evil.invalid"},
			Drop: []string{"mcp-session-id"},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status).To(Equal(200))
		Expect(res.Frames).To(HaveLen(1))
		var last http.Header // the probe's (the GET stream's may come after it)
		for _, h := range m.headers() {
			if h.Get("Origin") != "" {
				last = h
			}
		}
		Expect(last).NotTo(BeNil())
		Expect(last.Get("Mcp-Session-Id")).To(BeEmpty())
		Expect(last.Get("Origin")).To(Equal("http://evil.invalid"))
		Expect(last.Get("X-Token")).To(Equal("secret"))
		Expect(last.Get("MCP-Protocol-Version")).To(Equal("2025-06-18"))
		Expect(last).To(HaveKey("Mcp-Method")) // Go's server canonicalises; the wire had "mcp-method"
	})

	It("reads an SSE answer until the first response, or until Until says", func() {
		q := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHead(w)
			flush(w, "id: a\ndata:\n\ndata: %s\n\n", result([]byte("1"), "{}"))
			select {
			case <-r.Context().Done():
			case <-q:
			}
		})
		t, _ := dial(server(h, q).URL, "http", 5*time.Second)
		x := t.(httpmcp.Exchanger)
		res, err := x.Exchange(context.Background(), httpmcp.Exchange{Method: "POST", Body: []byte(initReq)})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Events).To(HaveLen(2))
		Expect(res.Frames).To(HaveLen(1))
		Expect(res.Closed).To(BeFalse())

		res, err = x.Exchange(context.Background(), httpmcp.Exchange{Method: "GET", Until: func(ev sse.Event) bool { return ev.ID == "a" }})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Events).To(HaveLen(1))
	})

	It("returns an SSE answer's headers alone when asked for headers only, closing a stream that sends no event", func(ctx SpecContext) {
		gone := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHead(w)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // never an event: only the client's close ends it
			close(gone)
		})
		// A timeout no spec waits out: without HeadersOnly the exchange
		// reads the stream until the SpecTimeout cancels it.
		t, _ := dial(server(h).URL, "http", time.Hour)
		x := t.(httpmcp.Exchanger)
		res, err := x.Exchange(ctx, httpmcp.Exchange{Method: "GET", Set: map[string]string{"Accept": "text/event-stream"}, HeadersOnly: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status).To(Equal(http.StatusOK))
		Expect(res.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(res.Events).To(BeEmpty())
		Expect(res.Closed).To(BeFalse(), "closed by the client, not ended by the server")
		Expect(ctx.Err()).NotTo(HaveOccurred(), "returned before the spec's guard ran out")
		Eventually(ctx, gone).Should(BeClosed(), "the stream is closed, not left open")
	}, SpecTimeout(time.Minute))

	It("reads an SSE answer to a batch until every request of it has its response", func() {
		q := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHead(w)
			flush(w, "data: %s\n\n", result([]byte("1"), "{}"))
			flush(w, "data: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
			flush(w, "data: %s\n\n", result([]byte("2"), "{}"))
			select {
			case <-r.Context().Done():
			case <-q:
			}
		})
		t, _ := dial(server(h, q).URL, "http", 5*time.Second)
		x := t.(httpmcp.Exchanger)
		batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
		res, err := x.Exchange(context.Background(), httpmcp.Exchange{Method: "POST", Body: []byte(batch)})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Frames).To(HaveLen(3))
		Expect(res.Closed).To(BeFalse(), "read up to the last response, not to the end of the stream")
	})

	It("sends credentials to the endpoint's origin only", func() {
		var token atomic.Value
		token.Store("unset")
		other := server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token.Store(r.Header.Get("X-Token"))
			fmt.Fprint(w, "{}")
		}))
		t, _ := dial(server(&mcpServer{}).URL, "http", 2*time.Second)
		res, err := t.(httpmcp.Exchanger).Exchange(context.Background(), httpmcp.Exchange{URL: other.URL + "/.well-known/oauth-protected-resource"})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(res.Body)).To(Equal("{}"))
		Expect(token.Load()).To(Equal(""))
	})

	It("is bounded by the timeout", func() {
		q := make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-q:
			}
		})
		t, _ := dial(server(h, q).URL, "http", 300*time.Millisecond)
		_, err := t.(httpmcp.Exchanger).Exchange(context.Background(), httpmcp.Exchange{Method: "POST", Body: []byte(initReq)})
		Expect(err).To(MatchError(ContainSubstring("within 300ms (--timeout)")))
	})
})

var _ = Describe("the launched process", func() {
	It("folds its stdout into Stderr and ends it on Close", func() {
		p, err := transport.Launch(transport.Options{Command: []string{"sh", "-c", "echo to-stdout; echo to-stderr >&2; exec sleep 30"}})
		Expect(err).NotTo(HaveOccurred())
		t, err := httpmcp.Dial(httpmcp.Options{URL: "http://127.0.0.1:1/mcp", Process: p})
		Expect(err).NotTo(HaveOccurred())
		var lines []string
		for len(lines) < 2 {
			var f transport.Frame
			Eventually(t.Stderr()).WithTimeout(10 * time.Second).Should(Receive(&f))
			lines = append(lines, string(f.Raw))
		}
		Expect(lines).To(ConsistOf("to-stdout", "to-stderr"))
		Expect(t.Close()).To(Succeed())
		Expect(t.Exited()).To(BeClosed())
		Expect(t.ExitStatus().KilledByUs).To(BeTrue())
	})

	It("without one, closes Stderr and Exited on Close", func() {
		t, err := httpmcp.Dial(httpmcp.Options{URL: "http://127.0.0.1:1/mcp"})
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Exited()).NotTo(BeClosed())
		Expect(t.Close()).To(Succeed())
		Expect(t.Exited()).To(BeClosed())
		Expect(t.Stderr()).To(BeClosed())
		Expect(t.Recv()).To(BeClosed())
	})

	It("refuses a URL that is not http", func() {
		_, err := httpmcp.Dial(httpmcp.Options{URL: "ftp://x/"})
		Expect(err).To(MatchError(ContainSubstring("not an http or https URL")))
		_, err = httpmcp.Dial(httpmcp.Options{URL: "http://x/", Kind: "ws"})
		Expect(err).To(MatchError(ContainSubstring(`unknown HTTP transport "ws"`)))
		_, err = httpmcp.Dial(httpmcp.Options{URL: "http://x/", Headers: []string{"nocolon"}})
		Expect(err).To(MatchError(ContainSubstring(`"Name: value"`)))
	})
})
