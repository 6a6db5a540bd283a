package httpmcp_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("sessions open at once", func() {
	It("share their idle connections, and the last to close closes them", func() {
		var opened, closed atomic.Int32
		s := httptest.NewUnstartedServer(&mcpServer{})
		s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				opened.Add(1)
			case http.StateClosed:
				closed.Add(1)
			}
		}
		s.Start()
		DeferCleanup(s.Close)

		// Five sessions open at once, each sending after the one before
		// was answered: each finds the connection the one before left
		// idle (net/http may still dial one while that connection goes
		// back to the pool, so not "exactly one"; a transport of each
		// session's own opens five).
		var ts []transport.Transport
		for range 5 {
			t, _ := dial(s.URL, "http", 2*time.Second)
			Expect(t.Send([]byte(initReq))).To(Succeed())
			next(t)
			ts = append(ts, t)
		}
		Expect(opened.Load()).To(BeNumerically("<", 5))

		for _, t := range ts[:4] {
			Expect(t.Close()).To(Succeed())
		}
		Consistently(closed.Load).WithTimeout(200 * time.Millisecond).Should(BeZero())
		Expect(ts[4].Close()).To(Succeed())
		Eventually(closed.Load).Should(Equal(opened.Load()))
	})

	It("but one with a server it launched keeps a transport of its own", func() {
		var opened atomic.Int32
		s := httptest.NewUnstartedServer(&mcpServer{})
		s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				opened.Add(1)
			}
		}
		s.Start()
		DeferCleanup(s.Close)

		a, _ := dial(s.URL, "http", 2*time.Second)
		Expect(a.Send([]byte(initReq))).To(Succeed())
		next(a)
		// Three launched sessions after it, each left its connection
		// idle: none is taken by the next.
		for range 3 {
			p, err := transport.Launch(transport.Options{Command: []string{"sh", "-c", "exec sleep 30"}})
			Expect(err).NotTo(HaveOccurred())
			t, err := httpmcp.Dial(httpmcp.Options{URL: s.URL, Process: p, Timeout: 2 * time.Second})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(t.Close)
			Expect(t.Send([]byte(initReq))).To(Succeed())
			next(t)
		}
		Expect(opened.Load()).To(Equal(int32(4)))
	})
})
