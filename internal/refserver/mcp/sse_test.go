package mcp_test

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// legacy is a client of the legacy HTTP+SSE transport: its stream, and
// the endpoint its first event named.
type legacy struct {
	c        *client
	st       *stream
	endpoint string
}

// connect opens the legacy stream and reads its endpoint event.
func (s *server) connect() *legacy {
	GinkgoHelper()
	c := s.client()
	c.url = s.ts.URL + "/sse"
	st := c.open(http.MethodGet, "", "Accept: text/event-stream")
	Expect(st.resp.StatusCode).To(Equal(http.StatusOK))
	Expect(st.resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
	var e ev
	Eventually(st.evs, wait).Should(Receive(&e))
	Expect(e.typ).To(Equal("endpoint"))
	return &legacy{c: c, st: st, endpoint: e.data}
}

func (l *legacy) post(body string) reply {
	GinkgoHelper()
	base, err := url.Parse(l.c.url)
	Expect(err).NotTo(HaveOccurred())
	to, err := base.Parse(l.endpoint)
	Expect(err).NotTo(HaveOccurred())
	p := *l.c
	p.url = to.String()
	return p.post(body)
}

var _ = Describe("the reference server over the legacy HTTP+SSE transport", func() {
	It("names a relative endpoint first, takes POSTs with 202 and answers as message events", func() {
		l := serve(true, nil, nil).connect()
		Expect(l.endpoint).To(MatchRegexp(`^/message\?sessionId=[0-9a-f]{32}$`))
		r := l.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		Expect(r.status).To(Equal(http.StatusAccepted))
		Expect(r.body).To(BeEmpty())
		init := l.st.next(func(m map[string]any) bool { return m["id"] != nil })
		Expect(init["result"]).To(HaveKeyWithValue("protocolVersion", "2024-11-05"))
		Expect(l.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).status).To(Equal(http.StatusAccepted))
		Expect(l.post(call(1, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)).status).To(Equal(http.StatusAccepted))
		var e ev
		Eventually(l.st.evs, wait).Should(Receive(&e))
		Expect(e.typ).To(Equal("message"))
		Expect(e.data).To(ContainSubstring(`"id":1`))
	})

	It("refuses a body that is no message with 400, the core's error on the stream, and goes on", func() {
		l := serve(true, nil, nil).connect()
		r := l.post("{")
		Expect(r.status).To(Equal(http.StatusBadRequest))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/plain"))
		e := l.st.next(func(m map[string]any) bool { return m["error"] != nil })
		Expect(e["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32700)))
		Expect(l.post(call(1, "ping", "")).status).To(Equal(http.StatusAccepted))
		l.st.next(func(m map[string]any) bool { return m["id"] == 1.0 })
	})

	It("answers a POST for an unknown session 404 and ends the session with its stream", func() {
		s := serve(true, nil, nil)
		l := s.connect()
		l.st.resp.Body.Close()
		Eventually(func() int { return l.post(call(1, "ping", "")).status }, wait).Should(Equal(http.StatusNotFound))
	})
})
