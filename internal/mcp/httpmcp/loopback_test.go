package httpmcp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// dials stands in for the transport's dialer: it records every address a
// connection is asked for, before any name is resolved, and connects
// only to the local test server (the host "named.invalid" too, as the
// address a user's --url template may name); any other address is
// refused here, so nothing leaves the machine even when a guard fails.
type dials struct {
	mu    sync.Mutex
	addrs []string
	to    string // the test server's 127.0.0.1:port
}

func (d *dials) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	host, port, _ := net.SplitHostPort(addr)
	if _, p, _ := net.SplitHostPort(d.to); port == p && (host == "127.0.0.1" || host == "localhost" || host == "named.invalid") {
		return (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, d.to)
	}
	return nil, errors.New("the test's dialer connects nowhere but the test server")
}

func (d *dials) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

var _ = Describe("a request beyond loopback", func() {
	const elsewhere = "https://auth.example.invalid/.well-known/oauth-protected-resource/mcp"
	var (
		d   *dials
		srv string // the test server's URL
	)
	BeforeEach(func() {
		s := server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"resource":"here"}`))
		}))
		srv = s.URL
		d = &dials{to: s.Listener.Addr().String()}
		DeferCleanup(httpmcp.StandInDialer(d.dial))
	})
	// launched dials u as the transport of a server wirecheck launched
	// (a process standing for it).
	launched := func(u string) httpmcp.Exchanger {
		p, err := transport.Launch(transport.Options{Command: []string{"sh", "-c", "exec sleep 30"}})
		Expect(err).NotTo(HaveOccurred())
		t, err := httpmcp.Dial(httpmcp.Options{URL: u, Process: p, Timeout: 2 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(t.Close)
		return t.(httpmcp.Exchanger)
	}
	get := func(x httpmcp.Exchanger, u string) (*httpmcp.Result, error) {
		return x.Exchange(context.Background(), httpmcp.Exchange{Method: http.MethodGet, URL: u})
	}

	It("is not sent for a launched server: no address but loopback is even looked up, and the error names the URL", func() {
		x := launched(srv + "/mcp")
		res, err := get(x, elsewhere)
		Expect(res).To(BeNil())
		var off *transport.OffLoopback
		Expect(errors.As(err, &off)).To(BeTrue(), "%v", err)
		Expect(off.URL).To(Equal(elsewhere))
		Expect(off.Named()).To(Equal("the server names " + elsewhere + ", off this machine: wirecheck sends nothing beyond loopback to a server it launched; run the server yourself and name it with --url to follow it"))
		Expect(d.seen()).To(BeEmpty())
		// Loopback by any name is the launched server's machine.
		u, _ := url.Parse(srv)
		for _, local := range []string{srv, "http://localhost:" + u.Port()} {
			res, err = get(x, local+"/.well-known/oauth-protected-resource")
			Expect(err).NotTo(HaveOccurred(), local)
			Expect(res.Status).To(Equal(http.StatusOK))
		}
		for _, a := range d.seen() {
			host, _, _ := net.SplitHostPort(a)
			Expect(httpmcp.Loopback(host)).To(BeTrue(), a)
		}
	})

	It("goes to the host a user's --url names for a launched server, and no further", func() {
		u, _ := url.Parse(srv)
		x := launched("http://named.invalid:" + u.Port() + "/mcp")
		res, err := get(x, "/.well-known/oauth-protected-resource")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status).To(Equal(http.StatusOK))
		_, err = get(x, elsewhere)
		Expect(err).To(BeAssignableToTypeOf(&transport.OffLoopback{}))
		Expect(d.seen()).To(Equal([]string{"named.invalid:" + u.Port()}))
	})

	It("is followed for a server the user named with --url: a real deployment's documents live elsewhere", func() {
		t, _ := dial(srv+"/mcp", "http", 2*time.Second)
		_, err := get(t.(httpmcp.Exchanger), elsewhere)
		Expect(err).To(HaveOccurred(), "the test's dialer refused it")
		Expect(err).NotTo(BeAssignableToTypeOf(&transport.OffLoopback{}))
		Expect(d.seen()).To(Equal([]string{"auth.example.invalid:443"}))
	})

	DescribeTable("loopback is",
		func(host string, want bool) { Expect(httpmcp.Loopback(host)).To(Equal(want)) },
		Entry(nil, "127.0.0.1", true),
		Entry(nil, "127.8.9.10", true),
		Entry(nil, "::1", true),
		Entry(nil, "::ffff:127.0.0.1", true),
		Entry(nil, "localhost", true),
		Entry(nil, "LocalHost.", true),
		Entry(nil, "10.0.0.1", false),
		Entry(nil, "0.0.0.0", false),
		Entry(nil, "127.0.0.1.nip.io", false),
		Entry(nil, "auth.example.invalid", false),
		Entry(nil, "", false),
	)
})
