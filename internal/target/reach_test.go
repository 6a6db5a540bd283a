package target_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/target"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	return addr
}

// unreachable is Reach's error for t, which must be an *Unreachable.
func unreachable(t target.Target, timeout time.Duration) *target.Unreachable {
	err := t.Reach(context.Background(), timeout)
	un, ok := err.(*target.Unreachable)
	Expect(ok).To(BeTrue(), "want *Unreachable, got %v", err)
	return un
}

var _ = Describe("Reach, the first connection to a running server (--url alone)", func() {
	BeforeEach(func() {
		// A proxy the environment names would take the connection.
		DeferCleanup(target.SetReachProxy(func(*http.Request) (*url.URL, error) { return nil, nil }))
	})

	It("says nothing is listening when the connection is refused, and what to check", func() {
		addr := closedAddr()
		un := unreachable(target.Target{URL: "http://" + addr + "/mcp"}, time.Second)
		Expect(un.Cause).To(Equal("nothing is listening on " + addr + " (connection refused)"))
		Expect(un.Check).To(ContainSubstring("that the server is running and listening on " + addr))
		Expect(un.URL).To(Equal("http://" + addr + "/mcp"))
		Expect(un.Within).To(BeZero(), "nothing was waited for")
	})

	It("says a host under .invalid does not resolve, without asking any DNS server (RFC 6761)", func() {
		asked := false
		DeferCleanup(target.SetReachDial(func(context.Context, string, string) (net.Conn, error) {
			asked = true
			return nil, &net.DNSError{Err: "server misbehaving", Name: "x"}
		}))
		un := unreachable(target.Target{URL: "http://nosuch.invalid/mcp"}, time.Second)
		Expect(un.Cause).To(Equal("the host nosuch.invalid does not resolve (no such host)"))
		Expect(un.Check).To(ContainSubstring("the host name in --url"))
		Expect(asked).To(BeFalse())
	})

	It("says what a resolver answered for any other name it does not know", func() {
		DeferCleanup(target.SetReachDial(func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nosuch.example", IsNotFound: true}}
		}))
		un := unreachable(target.Target{URL: "https://nosuch.example/mcp"}, time.Second)
		Expect(un.Cause).To(Equal("the host nosuch.example does not resolve (no such host)"))
	})

	It("says no connection came within the bound when the connection neither opens nor fails", func() {
		DeferCleanup(target.SetReachDial(func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ctx.Err()}
		}))
		un := unreachable(target.Target{URL: "http://10.0.0.1:8080/mcp"}, 50*time.Millisecond)
		Expect(un.Cause).To(Equal("no connection to 10.0.0.1:8080 within 50ms (--timeout): nothing answered it"))
		Expect(un.Within).To(Equal(50 * time.Millisecond))
	})

	It("says nothing when an interrupt ends the try first: that is no verdict on the server", func() {
		DeferCleanup(target.SetReachDial(func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ctx.Err()}
		}))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		Expect(target.Target{URL: "http://10.0.0.1:8080/mcp"}.Reach(ctx, time.Minute)).To(Succeed())
	})

	It("says the TLS handshake failed when an https URL reaches a server that does not speak TLS", func() {
		srv := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(srv.Close)
		addr := strings.TrimPrefix(srv.URL, "http://")
		un := unreachable(target.Target{URL: "https://" + addr + "/mcp"}, 2*time.Second)
		Expect(un.Cause).To(Equal("the TLS handshake with " + addr + " failed: what answered there does not speak TLS"))
		Expect(un.Check).To(ContainSubstring("--url begins http://"))
	})

	It("says the certificate is not trusted when it is signed by an unknown authority", func() {
		srv := httptest.NewTLSServer(http.NotFoundHandler())
		DeferCleanup(srv.Close)
		addr := strings.TrimPrefix(srv.URL, "https://")
		un := unreachable(target.Target{URL: srv.URL + "/mcp"}, 2*time.Second)
		Expect(un.Cause).To(HavePrefix("the TLS handshake with " + addr + " failed: its certificate"))
	})

	It("passes a server that accepts the connection, sending it no request", func() {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
		DeferCleanup(srv.Close)
		Expect(target.Target{URL: srv.URL + "/mcp"}.Reach(context.Background(), time.Second)).To(Succeed())
		srv.Close()
		Expect(requests.Load()).To(BeZero())
	})

	It("connects to the proxy the environment names, and says so when nothing listens there", func() {
		addr := closedAddr()
		DeferCleanup(target.SetReachProxy(func(*http.Request) (*url.URL, error) { return url.Parse("http://" + addr) }))
		un := unreachable(target.Target{URL: "https://example.test/mcp"}, time.Second)
		Expect(un.Cause).To(Equal("nothing is listening on " + addr + " (the proxy the environment names for example.test) (connection refused)"))
	})

	It("leaves alone any target it does not reach by URL alone: a launched server's wait is its own", func() {
		addr := closedAddr()
		Expect(target.Target{Argv: []string{"srv", "{port}"}, Transport: "http", URL: "http://" + addr + "/mcp"}.Reach(context.Background(), time.Second)).To(Succeed())
		Expect(target.Target{Argv: []string{"srv"}}.Reach(context.Background(), time.Second)).To(Succeed())
	})
})
