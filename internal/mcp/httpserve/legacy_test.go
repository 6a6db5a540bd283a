package httpserve_test

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

var _ = Describe("the legacy HTTP+SSE transport served to a client", func() {
	It("names the POST endpoint in its first event and sends every message as a message event", func() {
		s, _ := listen(true, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		resp := cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream"}, "")
		c := accept(s)
		responder(c, nil)
		r := sse.NewReader(resp.Body, 1<<20, 1<<20)
		ev, err := r.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Type).To(Equal("endpoint"))
		base, _ := url.Parse(s.Endpoint())
		post, err := base.Parse(ev.Data)
		Expect(err).NotTo(HaveOccurred())

		Expect(cl.do(http.MethodPost, post.String(), goodPost, initBody).StatusCode).To(Equal(http.StatusAccepted))
		ev, err = r.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Type).To(Equal("message"))
		Expect(ev.Data).To(ContainSubstring(`"protocolVersion":"2025-06-18"`))

		Expect(c.Close()).To(Succeed())
		Eventually(c.Done()).Should(BeClosed())
		Expect(cl.do(http.MethodPost, post.String(), goodPost, initBody).StatusCode).To(Equal(http.StatusNotFound))
	})

	It("ends the session when the client's stream goes", func() {
		s, _ := listen(true, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		resp := cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream"}, "")
		c := accept(s)
		Expect(resp.Body.Close()).To(Succeed())
		cl.hc.CloseIdleConnections()
		Eventually(c.Done()).Should(BeClosed())
		Eventually(c.Recv()).Should(BeClosed())
	})
})
