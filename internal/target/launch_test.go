package target_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("launching a target over HTTP", func() {
	var (
		got   []target.DialOptions
		self  string
		bound = target.Bounds{Timeout: time.Second, Startup: 20 * time.Second}
	)
	BeforeEach(func() {
		got = nil
		self = os.Args[0]
		// The HTTP transport's part is its own package's: here it is
		// handed what it would dial, and returns the launched process.
		DeferCleanup(target.SetDial(func(o target.DialOptions) (transport.Transport, error) {
			got = append(got, o)
			if o.Process == nil {
				return nil, errors.New("no process to stand in")
			}
			return o.Process, nil
		}))
	})

	// dialled checks that the URL handed on names the port the launched
	// process listens on, and returns it.
	dialled := func(tr transport.Transport, path string) *url.URL {
		DeferCleanup(tr.Close)
		Expect(got).To(HaveLen(1))
		u, err := url.Parse(got[0].URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Hostname()).To(Equal("127.0.0.1"))
		Expect(u.Path).To(Equal(path))
		c, err := net.Dial("tcp", u.Host)
		Expect(err).NotTo(HaveOccurred(), "the server listens on the port in the URL")
		c.Close()
		Expect(got[0].Process).To(BeIdenticalTo(tr))
		return u
	}

	It("puts a free port in place of {port} in the arguments and waits until it accepts, /mcp for http", func() {
		tr, err := target.Target{Argv: []string{self, "listen", "127.0.0.1:{port}"}, Transport: "http"}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		dialled(tr, "/mcp")
		Expect(got[0].Kind).To(Equal("http"))
	})

	It("substitutes {port} in --env values too, /sse for sse", func() {
		tr, err := target.Target{Argv: []string{self, "listen"}, Env: []string{"LISTEN_ADDR=127.0.0.1:{port}"}, Transport: "sse"}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		dialled(tr, "/sse")
		Expect(got[0].Kind).To(Equal("sse"))
	})

	It("takes the endpoint's path from a --url template", func() {
		tr, err := target.Target{Argv: []string{self, "listen", "127.0.0.1:{port}"}, Transport: "http",
			URL: "http://127.0.0.1:{port}/v1/mcp?x=1"}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		u := dialled(tr, "/v1/mcp")
		Expect(u.RawQuery).To(Equal("x=1"))
	})

	It("takes the endpoint's path from the protocol's endpoints (a profile's), the usual one for a transport it leaves out", func() {
		paths := map[string]string{"http": "/mcp/http"}
		tr, err := target.Target{Argv: []string{self, "listen", "127.0.0.1:{port}"}, Transport: "http", Paths: paths}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		dialled(tr, "/mcp/http")
		got = nil
		tr, err = target.Target{Argv: []string{self, "listen", "127.0.0.1:{port}"}, Transport: "sse", Paths: paths}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		dialled(tr, "/sse")
	})

	It("gives each launch its own port", func() {
		t := target.Target{Argv: []string{self, "listen", "127.0.0.1:{port}"}, Transport: "http"}
		a, err := t.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(a.Close)
		b, err := t.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(b.Close)
		Expect(got).To(HaveLen(2))
		Expect(got[0].URL).NotTo(Equal(got[1].URL))
	})

	It("reports a server that exits before it listens, with what it wrote on stderr", func() {
		_, err := target.Target{Argv: []string{self, "fail", "cannot bind {port}: address in use"}, Transport: "http",
			URL: "http://127.0.0.1:{port}/mcp"}.Launch(bound)
		var nr *target.NotReady
		Expect(errors.As(err, &nr)).To(BeTrue(), "%v", err)
		Expect(nr.Cause).To(ContainSubstring("the server exited (exit 3) before 127.0.0.1:"))
		Expect(nr.Stderr).To(ConsistOf(MatchRegexp(`^cannot bind \d+: address in use$`)))
		Expect(got).To(BeEmpty())
	})

	It("gives up on a server that never listens after --startup-timeout", func() {
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: 300 * time.Millisecond})
		var nr *target.NotReady
		Expect(errors.As(err, &nr)).To(BeTrue(), "%v", err)
		Expect(nr.Cause).To(MatchRegexp(`nothing accepted a connection on 127\.0\.0\.1:\d+ within 300ms \(--startup-timeout\); the server is still running`))
	})

	It("does not take a listener that accepts and is gone at the next poll (another process's port probe) for the server", func() {
		polls := 0
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			if polls++; polls == 1 {
				return dropping(), nil
			}
			return nil, errors.New("connection refused")
		}))
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: 300 * time.Millisecond})
		var nr *target.NotReady
		Expect(errors.As(err, &nr)).To(BeTrue(), "%v", err)
		Expect(nr.Cause).To(ContainSubstring("accepted a connection once within 300ms (--startup-timeout) but closed or reset it before any answer"))
		Expect(polls).To(BeNumerically(">", 2))
	})

	It("waits through connections accepted and reset before any answer (a listener the server lets go of) until the server answers", func() {
		// Two accepted connections in a row were the server: a listener
		// bound only to be closed again passed for it, and the run's first
		// request was reset.
		polls := 0
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			if polls++; polls <= 3 {
				return dropping(), nil
			}
			return answering(), nil
		}))
		tr, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		Expect(polls).To(Equal(4))
		Expect(got).To(HaveLen(1))
	})

	It("says what happened when every connection accepted was reset until --startup-timeout", func() {
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			return dropping(), nil
		}))
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: 300 * time.Millisecond})
		var nr *target.NotReady
		Expect(errors.As(err, &nr)).To(BeTrue(), "%v", err)
		Expect(nr.Cause).To(MatchRegexp(`^127\.0\.0\.1:\d+ accepted a connection \d+ times within 300ms \(--startup-timeout\) but closed or reset it before any answer .*; the server is still running$`))
	})

	It("takes a connection that holds without a word for the server (one that does not answer OPTIONS *)", func() {
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			a, b := net.Pipe()
			go func() {
				_, _ = io.Copy(io.Discard, b)
			}()
			DeferCleanup(b.Close)
			return a, nil
		}))
		tr, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: 100 * time.Millisecond, Startup: 20 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
	})

	It("asks a launched server OPTIONS *, which reaches no endpoint, and takes any answer", func() {
		seen := make(chan string, 1)
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			a, b := net.Pipe()
			go func() {
				defer b.Close()
				line, _ := bufio.NewReader(b).ReadString('\n')
				seen <- line
				_, _ = b.Write([]byte("HTTP/1.1 404 Not Found\r\n\r\n"))
			}()
			return a, nil
		}))
		tr, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(bound)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		Expect(seen).To(Receive(Equal("OPTIONS * HTTP/1.1\r\n")))
		Expect(seen).NotTo(Receive(), "one answer is enough")
	})

	It("ends the wait when aborted", func() {
		abort := make(chan struct{})
		close(abort)
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: time.Minute, Abort: abort})
		Expect(err).To(MatchError(target.ErrAborted))
	})

	It("takes a TLS handshake as the answer of a server launched behind https", func() {
		ts := httptest.NewTLSServer(http.NotFoundHandler())
		DeferCleanup(ts.Close)
		u, err := url.Parse(ts.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(target.Knock(u.Host, u.Hostname(), time.Second)).To(Equal(target.Answered), "its certificate is not trusted here, but it answered")
	})

	It("dials a URL alone, with the headers' ${VAR} read from the environment", func() {
		GinkgoT().Setenv("WC_TEST_TOKEN", "s3cret")
		_, err := target.Target{URL: "https://example.test/mcp", Headers: []string{"Authorization: Bearer ${WC_TEST_TOKEN}", "X-A: b"}}.Launch(bound)
		Expect(err).To(MatchError("no process to stand in"))
		Expect(got).To(HaveLen(1))
		Expect(got[0]).To(Equal(target.DialOptions{URL: "https://example.test/mcp", Kind: "http",
			Headers: []string{"Authorization: Bearer s3cret", "X-A: b"}, Timeout: time.Second}))
	})
})

// dropping is a connection the server accepted and closed at once, with
// nothing sent back.
func dropping() net.Conn {
	a, b := net.Pipe()
	b.Close()
	return a
}

// answering is a connection to a server that answers what it is sent.
func answering() net.Conn {
	a, b := net.Pipe()
	go func() {
		defer b.Close()
		_, _ = bufio.NewReader(b).ReadString('\n')
		_, _ = b.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	}()
	return a
}
