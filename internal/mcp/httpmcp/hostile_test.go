package httpmcp_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// endless is n bytes of x, written as they are asked for.
func endless(w http.ResponseWriter, r *http.Request, n int64) {
	chunk := []byte(strings.Repeat("x", 64<<10))
	for sent := int64(0); sent < n; sent += int64(len(chunk)) {
		if _, err := w.Write(chunk); err != nil || r.Context().Err() != nil {
			return
		}
	}
}

// hijack takes the connection of a request to write raw bytes.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	c, rw, err := w.(http.Hijacker).Hijack()
	Expect(err).NotTo(HaveOccurred())
	return c, rw
}

// ended sends listReq and expects its End frame, whose reason it returns.
func ended(t transport.Transport) transport.Frame {
	Expect(t.Send([]byte(listReq))).To(Succeed())
	for {
		f := next(t)
		if f.Raw == nil {
			Expect(f.HTTP.For).To(Equal("2"))
			return f
		}
	}
}

var _ = Describe("hostile servers", func() {
	const short = 300 * time.Millisecond

	It("ends a request whose SSE stream never ends", func() {
		q := make(chan struct{})
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			for {
				flush(w, ": still here\n\n")
				select {
				case <-time.After(20 * time.Millisecond):
				case <-r.Context().Done():
					return
				case <-q:
					return
				}
			}
		})
		t, _ := dial(server(h, q).URL, "http", short)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("stayed open 1.2s without the response"))
	})

	It("ends a stream flooding comments at the idle cap", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			endless(w, r, 1<<40)
		})
		t, _ := dial(server(h).URL, "http", 5*time.Second)
		handshake(t)
		f := ended(t)
		Expect(f.HTTP.End).To(Or(ContainSubstring("without an event"), ContainSubstring("--max-frame")))
	})

	It("reads at most the cap of a body of gigabytes", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\"")
			endless(w, r, 1<<40)
		})
		t, _ := dial(server(h).URL, "http", 10*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Oversize).To(BeTrue())
		Expect(f.Raw).To(HaveLen(transport.OversizeEvidence), "the evidence kept of it, not the MaxFrame bytes read")
		Expect(f.Limit).To(Equal(transport.DefaultMaxFrame))
		end := next(t).HTTP
		Expect(end.End).To(Equal("a body over wirecheck's --max-frame 64MiB"))
		Expect(end.OverCap).To(BeTrue(), "wirecheck's limit: the request is not judged")
	})

	It("ends a request whose SSE event goes over --max-frame as wirecheck's limit, not the stream's fault", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "%s", "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"pad\":\""+strings.Repeat("x", 200<<10)+"\"}}\n\n")
		})
		t, hk := dialCapped(server(h).URL, "http", 5*time.Second, 100<<10)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Oversize).To(BeTrue())
		Expect(f.Limit).To(Equal(100 << 10))
		end := next(t).HTTP
		Expect(end.End).To(Equal("an SSE event over wirecheck's --max-frame 100KiB"))
		Expect(end.OverCap).To(BeTrue())
		Expect(hk.Verdicts(httpmcp.CheckHTTPStreamHasResponse)).NotTo(ContainElement(verdict.Fail))
	})

	It("refuses a Content-Length over the cap before reading", func() {
		q := make(chan struct{})
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1073741824")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-q:
			}
		})
		t, _ := dial(server(h, q).URL, "http", 10*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Oversize).To(BeTrue())
		Expect(f.Raw).To(BeEmpty())
		Expect(next(t).HTTP.End).To(ContainSubstring("a body of 1073741824 bytes"))
	})

	It("gives up on headers trickled a byte a second", func() {
		q := make(chan struct{})
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			c, _ := hijack(w)
			defer c.Close()
			for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n") {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				select {
				case <-time.After(time.Second):
				case <-q:
					return
				}
			}
		})
		t, _ := dial(server(h, q).URL, "http", short)
		handshake(t)
		Expect(ended(t).HTTP.End).To(Equal("no response headers within 300ms (--timeout)"))
	})

	It("refuses more than 64 KiB of response headers", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			for i := range 100 {
				w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("p", 1024))
			}
			w.WriteHeader(200)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("exceeded 65536 bytes"))
	})

	It("ends a redirect loop after three hops", func() {
		var hops atomic.Int32
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			hops.Add(1)
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("redirect loop: more than 3 hops"))
		Expect(hops.Load()).To(BeEquivalentTo(4))
	})

	It("follows a same-origin 307 keeping the method and body, and uses the new endpoint after", func() {
		var posts atomic.Int32
		inner := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, "{}"))
		})
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/mcp" {
				http.Redirect(w, r, "/mcp/", http.StatusTemporaryRedirect)
				return
			}
			if r.Method == http.MethodPost {
				posts.Add(1)
			}
			inner.ServeHTTP(w, r)
		})
		t, _ := dial(server(h).URL+"/mcp", "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		Expect(next(t).HTTP.For).To(Equal("2"))
		Expect(t.(httpmcp.Exchanger).Endpoint().Path).To(Equal("/mcp/"))
		Expect(posts.Load()).To(BeEquivalentTo(3))
	})

	It("never follows a redirect to another origin", func() {
		var reached atomic.Int32
		other := server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("redirected to another origin"))
		Expect(reached.Load()).To(BeZero())
	})

	It("ends the exchange on a connection reset mid-stream", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			c, rw := hijack(w)
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"jsonrpc\":")
			rw.Flush()
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(ContainSubstring("broke before the response"))
	})

	It("delivers a JSON body cut off mid-way as partial and ends the exchange", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			c, rw := hijack(w)
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
			rw.Flush()
			c.Close()
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Partial).To(BeTrue())
		Expect(string(f.Raw)).To(Equal(`{"jsonrpc":`))
		Expect(next(t).HTTP.End).To(ContainSubstring("cut off after 11 bytes"))
	})

	It("delivers a response nobody asked for, and nothing of a body that is no message", func() {
		var n atomic.Int32
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			if n.Add(1) == 1 {
				fmt.Fprint(w, `{"ok":true}`)
				return
			}
			fmt.Fprint(w, result([]byte("99"), "{}"))
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(note))).To(Succeed())
		Expect(t.Send([]byte(note))).To(Succeed())
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring(`"id":99`))
	})

	It("closes promptly with requests in flight whatever the server does", func() {
		q := make(chan struct{})
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			select {
			case <-r.Context().Done():
			case <-q:
			}
		})
		t, _ := dial(server(h, q).URL, "http", time.Minute)
		handshake(t)
		for i := range 5 {
			Expect(t.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i))).To(Succeed())
		}
		done := make(chan struct{})
		go func() { _ = t.Close(); close(done) }()
		Eventually(done).WithTimeout(3 * time.Second).Should(BeClosed())
		Expect(t.Send([]byte(listReq))).To(MatchError(ContainSubstring("closed")))
	})
})
