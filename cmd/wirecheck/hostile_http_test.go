package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// rpc is the one JSON-RPC message of a POST body, as far as a hostile
// server reads it.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

// read decodes a POST's message; ok is false for a notification, a
// response or what is no message.
func read(r *http.Request) (rpc, bool) {
	var m rpc
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return m, false
	}
	return m, true
}

// answer is a plain answer to m: initialize's result, an empty result for
// anything else, so a hostile server gets past the handshake and
// misbehaves where it hurts.
func answer(m rpc) []byte {
	var result any = map[string]any{}
	if m.Method == "initialize" {
		result = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{},
			"serverInfo": map[string]any{"name": "hostile", "version": "1"}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	return b
}

// hostile serves POST with misbehave for every request (a notification
// or a response is accepted with 202, GET has no stream: 405).
func hostile(misbehave func(w http.ResponseWriter, r *http.Request, m rpc)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m, ok := read(r)
		if !ok {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		misbehave(w, r, m)
	})
}

// flush sends what w holds so far.
func flush(w http.ResponseWriter) { w.(http.Flusher).Flush() }

// until writes chunk every pause until the client goes away.
func until(w http.ResponseWriter, r *http.Request, chunk []byte, pause time.Duration) {
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		flush(w)
		select {
		case <-r.Context().Done():
			return
		case <-time.After(pause):
		}
	}
}

var hostileServers = map[string]http.Handler{
	// An SSE stream that never ends and never carries the response.
	"endless-sse": hostile(func(w http.ResponseWriter, r *http.Request, _ rpc) {
		w.Header().Set("Content-Type", "text/event-stream")
		until(w, r, []byte(": still here\n\n"), 20*time.Millisecond)
	}),
	// A JSON body of a gigabyte, as fast as it goes.
	"gigabyte-body": hostile(func(w http.ResponseWriter, r *http.Request, _ rpc) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(`{"jsonrpc":"2.0","pad":"` + strings.Repeat("a", 64<<10))
		for sent := 0; sent < 1<<30; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}),
	// Headers trickled one byte a second.
	"trickled-headers": hostile(func(w http.ResponseWriter, r *http.Request, _ rpc) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n") {
			buf.WriteByte(b)
			if buf.Flush() != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}),
	// Every POST redirected to itself.
	"redirect-loop": hostile(func(w http.ResponseWriter, r *http.Request, _ rpc) {
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
	}),
	// The right answers under the wrong Content-Type.
	"wrong-content-type": hostile(func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(answer(m))
	}),
	// The connection reset in the middle of an SSE stream.
	"reset-mid-stream": hostile(func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\ndata: {\"jsonrpc\":\"2.0\",")
		flush(w)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // an RST, not a FIN
		}
		conn.Close()
	}),
	// Each answer preceded by a response to a request nobody sent.
	"unasked-response": hostile(func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"nobody-asked\",\"result\":{}}\n\ndata: %s\n\n", answer(m))
	}),
	// Markup in every error a report shows.
	"markup": hostile(func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"<script>alert(1)</script>"}}`, m.ID)
	}),
}

// hostileEnv makes the test binary serve a hostile server (TestMain).
const hostileEnv = "WIRECHECK_TEST_HOSTILE"

// serveHostile serves the named hostile server on addr until killed.
func serveHostile(name, addr string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	fmt.Fprintln(os.Stderr, (&http.Server{Handler: hostileServers[name]}).Serve(l))
	os.Exit(4)
}

// hostileURL serves the named hostile server in this process for the
// spec and returns its endpoint.
func hostileURL(name string) string {
	srv := httptest.NewUnstartedServer(hostileServers[name])
	srv.Config.ErrorLog = nil
	srv.Start()
	DeferCleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/mcp"
}

var _ = Describe("a hostile HTTP server never beats the harness", func() {
	type tc struct {
		server   string
		code     int
		within   time.Duration
		evidence []string
		// frame is what frames being read may cost on top of maxRSS:
		// one up to --max-frame is held whole to be judged, and the
		// readers of the process share transport.DefaultBudget.
		frame int64
	}
	DescribeTable("wirecheck ends in time, with the finding, bounded memory",
		func(c tc) {
			code, out, took, rss := measured("run", "--protocol", "mcp", "--url", hostileURL(c.server), "--timeout", "300ms")
			GinkgoWriter.Printf("peak memory %d KiB, %s\n", rss, took)
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "────") || strings.Contains(l, "message:") {
					GinkgoWriter.Println(l)
				}
			}
			Expect(code).To(Equal(c.code), out)
			Expect(took).To(BeNumerically("<", c.within), "took %s", took)
			Expect(rss).To(BeNumerically("<=", maxRSS+c.frame/1024), "peak memory %d MB", rss*1024/1_000_000)
			for _, e := range c.evidence {
				Expect(out).To(ContainSubstring(e))
			}
		},
		Entry("an SSE stream that never ends", tc{"endless-sse", 1, 40 * time.Second, []string{"MCP-JSONRPC-5"}, 0}),
		// Every request of every lane is answered so: they read it one at
		// a time past 1 MiB, each to the cap or to its --timeout, whichever
		// comes first (the verdict differs, the rule does not).
		Entry("a body of a gigabyte", tc{"gigabyte-body", 1, 40 * time.Second, []string{"MCP-JSONRPC-5"}, transport.DefaultBudget}),
		Entry("headers trickled a byte a second", tc{"trickled-headers", 1, 40 * time.Second, []string{"MCP-JSONRPC-5"}, 0}),
		Entry("a redirect loop", tc{"redirect-loop", 1, 40 * time.Second, []string{"MCP-JSONRPC-5", "redirect"}, 0}),
		Entry("the wrong Content-Type", tc{"wrong-content-type", 1, 40 * time.Second, []string{"text/plain"}, 0}),
		// A disconnection the text allows: the transport's SHOULD judges
		// it, not the response rule.
		Entry("a connection reset mid-stream", tc{"reset-mid-stream", 1, 40 * time.Second, []string{"the SSE stream broke before the response"}, 0}),
		Entry("a response nobody asked for", tc{"unasked-response", 1, 40 * time.Second, []string{"MCP-JSONRPC-5", `response with id "nobody-asked", but no request with that id was sent`}, 0}),
	)

	It("escapes a server's markup in the HTML report", func() {
		dir := GinkgoT().TempDir()
		code, out, _, _ := measured("run", "--protocol", "mcp", "--url", hostileURL("markup"), "--timeout", "300ms", "--report", "html="+dir+"/r.html")
		Expect(code).To(Equal(1), out)
		html, err := os.ReadFile(dir + "/r.html")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).NotTo(ContainSubstring("<script>alert(1)</script>"))
		Expect(string(html)).To(ContainSubstring("&lt;script&gt;"))
	})
	It("ends a launched hostile server, whatever it does", func() {
		marker := fmt.Sprintf("hostile-marker-%d", os.Getpid())
		code, out, took, rss := measured("run", "--protocol", "mcp", "--transport", "http", "--timeout", "300ms",
			"--env", hostileEnv+"=endless-sse", "--", os.Args[0], marker, "127.0.0.1:{port}")
		GinkgoWriter.Printf("peak memory %d KiB, %s\n", rss, took)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("MCP-JSONRPC-5"))
		Expect(rss).To(BeNumerically("<=", maxRSS))
		Eventually(func() string { return leftovers(marker) }, 3*time.Second, 100*time.Millisecond).Should(BeEmpty())
	})
})

var _ = Describe("a server reached by --url", func() {
	It("gets the --header values, ${VAR} read from the environment, and no report shows the secret", func() {
		GinkgoT().Setenv("WC_TEST_TOKEN", "s3cret-value")
		seen := make(chan string, 64)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case seen <- r.Header.Get("Authorization"):
			default:
			}
			hostileServers["wrong-content-type"].ServeHTTP(w, r)
		}))
		DeferCleanup(srv.Close)
		dir := GinkgoT().TempDir()
		_, out, errs := cli("", "run", "--protocol", "mcp", "--url", srv.URL+"/mcp?key=k3y", "--header", "Authorization: Bearer ${WC_TEST_TOKEN}",
			"--header", "X-Api-Key: plain-secret", "--scenario", "tools", "--timeout", "2s", "-v", "--report", "json="+dir+"/r.json", "--report", "html="+dir+"/r.html")
		Expect(seen).To(Receive(Equal("Bearer s3cret-value")), "%s\n%s", out, errs)
		Expect(out).To(ContainSubstring(`--header 'Authorization: Bearer ${WC_TEST_TOKEN}'`), "the rerun line names the variable")
		Expect(out).To(ContainSubstring(`--header 'X-Api-Key: [REDACTED]'`))
		for _, text := range []string{out, errs, fileText(dir + "/r.json"), fileText(dir + "/r.html")} {
			Expect(text).NotTo(ContainSubstring("s3cret-value"))
			Expect(text).NotTo(ContainSubstring("plain-secret"))
			Expect(text).NotTo(ContainSubstring("k3y"))
		}
	})
})

// fileText is a file's text.
func fileText(path string) string {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("the target the flags name", func() {
	DescribeTable("names its transport, given or implied, so what judges the run need not guess",
		func(c common, argv []string, want string) {
			c.protocol, c.level, c.timeout, c.startupTimeout = "mcp", "must", time.Second, time.Second
			s, err := c.prepare(argv, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(s.t.Transport).To(Equal(want))
		},
		Entry("a URL alone is Streamable HTTP", common{url: "http://127.0.0.1:1/mcp"}, nil, "http"),
		Entry("a command alone is stdio", common{}, []string{"srv"}, "stdio"),
		Entry("as given", common{transport: "sse"}, []string{"srv", "{port}"}, "sse"),
	)
})
