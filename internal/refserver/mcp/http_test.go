package mcp_test

import (
	"net/http"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("the reference server over Streamable HTTP", func() {
	It("opens a session at initialize and answers tools/list and tools/call with JSON", func() {
		c := serve(false, nil, nil).client()
		r := c.initialize("2025-06-18")
		Expect(r.header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(c.sid).To(MatchRegexp(`^[0-9a-f]{32}$`))
		Expect(r.last()["result"]).To(HaveKeyWithValue("protocolVersion", "2025-06-18"))
		r = c.post(call(1, "tools/list", ""))
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(r.last()["result"]).To(HaveKey("tools"))
		r = c.post(call(2, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(r.last()["id"]).To(BeNumerically("==", 2))
		Expect(r.last()["result"]).To(HaveKeyWithValue("structuredContent", HaveKeyWithValue("text", "hi")))
	})

	It("streams a call whose progress comes before its answer, primed in 2025-11-25, X-Accel-Buffering off", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-11-25")
		r := c.post(call(3, "tools/call", `{"name":"countdown","arguments":{"steps":2},"_meta":{"progressToken":"t1"}}`))
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		Expect(r.header.Get("X-Accel-Buffering")).To(Equal("no"))
		Expect(r.events).To(HaveLen(4))
		Expect(r.events[0].hasID).To(BeTrue())
		Expect(r.events[0].data).To(BeEmpty())
		Expect(r.events[0].retry).To(BeNumerically(">", 0))
		ms := r.msgs()
		Expect(ms).To(HaveLen(3))
		Expect(ms[0]).To(HaveKeyWithValue("method", "notifications/progress"))
		Expect(ms[0]["params"]).To(HaveKeyWithValue("progressToken", "t1"))
		Expect(ms[2]["id"]).To(BeNumerically("==", 3))
	})

	It("does not prime streams before 2025-11-25", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		r := c.post(call(3, "tools/call", `{"name":"countdown","_meta":{"progressToken":1}}`))
		Expect(r.events).NotTo(BeEmpty())
		Expect(r.events[0].hasID).To(BeFalse())
		Expect(r.events[0].data).NotTo(BeEmpty())
	})

	It("sends the client's requests of a call on that call's stream and takes their answers with 202", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		st := c.open(http.MethodPost, call(4, "tools/call", `{"name":"ask-client"}`))
		Expect(st.resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		res, asked := c.answerAll(st)
		Expect(asked).To(Equal([]string{"sampling/createMessage", "roots/list", "ping"}))
		Expect(res["result"]).To(HaveKeyWithValue("content", ContainElement(HaveKeyWithValue("text", "the client answered sampling, roots, ping"))))
	})

	It("answers notifications 202 with no body", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-03-26")
		r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		Expect(r.status).To(Equal(http.StatusAccepted))
		Expect(r.body).To(BeEmpty())
		r = c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		Expect(r.status).To(Equal(http.StatusAccepted))
		Expect(r.body).To(BeEmpty())
	})

	It("refuses requests without a session id (400) and with an unknown one (404)", func() {
		c := serve(false, nil, nil).client()
		Expect(c.post(call(1, "tools/list", "")).status).To(Equal(http.StatusBadRequest))
		c.sid = "0123456789abcdef0123456789abcdef"
		Expect(c.post(call(1, "tools/list", "")).status).To(Equal(http.StatusNotFound))
	})

	It("delivers list_changed on the GET stream", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		st := c.open(http.MethodGet, "")
		Expect(st.resp.StatusCode).To(Equal(http.StatusOK))
		Expect(st.resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		r := c.post(call(5, "tools/call", `{"name":"grow"}`))
		Expect(r.last()["id"]).To(BeNumerically("==", 5))
		Expect(r.msgs()).To(HaveLen(1), "list_changed goes to the GET stream, not the call's")
		st.next(method("notifications/tools/list_changed"))
	})

	It("ends a session on DELETE, its GET stream with it: its id is answered 404 from then on", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		st := c.open(http.MethodGet, "")
		Expect(st.resp.StatusCode).To(Equal(http.StatusOK))
		Expect(c.do(http.MethodDelete, "").status).To(Equal(http.StatusNoContent))
		Eventually(st.evs, wait).Should(BeClosed(), "the session's GET stream ends with it")
		Expect(c.post(call(1, "tools/list", "")).status).To(Equal(http.StatusNotFound))
		Expect(c.do(http.MethodDelete, "").status).To(Equal(http.StatusNotFound))
	})

	It("refuses an unsupported MCP-Protocol-Version with 400 and serves a request without one", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		Expect(c.post(call(1, "tools/list", ""), "MCP-Protocol-Version: 1999-01-01").status).To(Equal(http.StatusBadRequest))
		Expect(c.post(call(1, "tools/list", ""), "MCP-Protocol-Version:").status).To(Equal(http.StatusOK))
	})

	It("refuses a foreign Origin with 403 and serves a local one", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-11-25")
		r := c.post(call(1, "ping", ""), "Origin: http://dns-rebinding.wirecheck.invalid")
		Expect(r.status).To(Equal(http.StatusForbidden))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/plain"))
		Expect(c.post(call(1, "ping", ""), "Origin: http://localhost:3000").status).To(Equal(http.StatusOK))
	})

	It("survives bodies that are no message, answering each with a 4xx", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		for _, b := range []string{"nope", "{", `{"jsonrpc":"2.0","method":42}`, "\x00\xff\xfe", `[]`, `{"jsonrpc":"2.0","id":1,"method":"ping"} {"x":1}`, "{\n\"jsonrpc\": \"2.0\",\n\"id\": {}, \"method\": \"ping\"}"} {
			r := c.post(b)
			Expect(r.status).To(BeNumerically(">=", 400), "%q", b)
			Expect(r.status).To(BeNumerically("<", 500), "%q", b)
		}
		Expect(c.post(call(9, "ping", "")).last()["id"]).To(BeNumerically("==", 9))
	})

	It("answers a parse error with a JSON-RPC error of null id (400)", func() {
		c := serve(false, nil, nil).client()
		c.initialize("2025-06-18")
		r := c.post("{")
		Expect(r.status).To(Equal(http.StatusBadRequest))
		Expect(r.last()).To(HaveKeyWithValue("id", BeNil()))
		Expect(r.last()["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32700)))
	})

	It("serves 2026-07-28 requests without a session", func() {
		c := serve(false, nil, nil).client()
		r := c.post(call(1, "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), "MCP-Protocol-Version: 2026-07-28")
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(r.header.Get("Mcp-Session-Id")).To(BeEmpty())
		Expect(r.last()["result"]).To(HaveKeyWithValue("supportedVersions", ContainElement("2026-07-28")))
	})

	It("routes a request without _meta by its MCP-Protocol-Version 2026-07-28 to the sessionless core", func() {
		c := serve(false, nil, nil).client()
		r := c.post(call(1, "wirecheck/no-such-method", ""), "MCP-Protocol-Version: 2026-07-28")
		// The core's -32601 with 404, not 400 for a missing session.
		Expect(r.status).To(Equal(http.StatusNotFound))
		Expect(r.last()["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32601)))
	})

	It("takes a 2026-07-28 client closing a call's stream as its cancellation", func() {
		s := serve(false, nil, nil)
		c := s.client()
		st := c.open(http.MethodPost, call(1, "tools/call", `{"name":"slow","arguments":{"durationMs":1000},"_meta":{"progressToken":"m","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), "MCP-Protocol-Version: 2026-07-28")
		st.next(method("notifications/progress"))
		st.resp.Body.Close()
		Eventually(s.log, wait).Should(gbytes.Say(`tools/call 1 cancelled: no answer`))
	})

	It("leaves no goroutine behind once closed, streams open and calls running", func() {
		before := runtime.NumGoroutine()
		s := serve(false, nil, nil)
		c := s.client()
		c.initialize("2025-06-18")
		st := c.open(http.MethodGet, "")
		Expect(st.resp.StatusCode).To(Equal(http.StatusOK))
		slow := c.open(http.MethodPost, call(2, "tools/call", `{"name":"slow","arguments":{"durationMs":1000},"_meta":{"progressToken":"s"}}`))
		slow.next(method("notifications/progress"))
		d := s.client()
		d.initialize("2025-03-26")
		l := serve(true, nil, nil)
		lc := l.connect()
		Expect(lc.post(call(1, "tools/call", `{"name":"slow","arguments":{"durationMs":1000}}`)).status).To(Equal(http.StatusAccepted))
		s.front.Close()
		l.front.Close()
		l.ts.CloseClientConnections()
		l.ts.Close()
		s.ts.CloseClientConnections()
		s.ts.Close()
		Eventually(runtime.NumGoroutine, wait).Should(BeNumerically("<=", before))
	})
})
