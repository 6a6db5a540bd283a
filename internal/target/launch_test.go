package target_test

import (
	"errors"
	"net"
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

	It("does not take a listener that answers one poll and is gone at the next (another process's port probe) for the server", func() {
		polls := 0
		DeferCleanup(target.SetConnect(func(network, addr string, d time.Duration) (net.Conn, error) {
			if polls++; polls == 1 {
				a, b := net.Pipe()
				b.Close()
				return a, nil
			}
			return nil, errors.New("connection refused")
		}))
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: 300 * time.Millisecond})
		var nr *target.NotReady
		Expect(errors.As(err, &nr)).To(BeTrue(), "%v", err)
		Expect(nr.Cause).To(ContainSubstring("nothing accepted a connection"))
		Expect(polls).To(BeNumerically(">", 2))
	})

	It("ends the wait when aborted", func() {
		abort := make(chan struct{})
		close(abort)
		_, err := target.Target{Argv: []string{self, "idle", "{port}"}, Transport: "http"}.Launch(
			target.Bounds{Timeout: time.Second, Startup: time.Minute, Abort: abort})
		Expect(err).To(MatchError(target.ErrAborted))
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
