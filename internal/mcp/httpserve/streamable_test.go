package httpserve_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

const toolsList = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

var _ = Describe("Streamable HTTP served to a client", func() {
	It("answers a request on an SSE stream, a notification 202, and judges the headers after initialize", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		_, sid := initialize(cl, s)
		resp := cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), toolsList)
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(resp.Header.Get("X-Accel-Buffering")).To(Equal("no"))
		Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"echo"`)))
		for _, c := range []string{httpserve.CheckAcceptPost, httpserve.CheckSessionID, httpserve.CheckVersionHeader, httpserve.CheckVersionNegotiated} {
			Expect(rec.PassedOnly(c)).To(BeTrue(), c)
		}
	})

	It("answers application/json when the settings say so, a batch as an array", func() {
		s, _ := listen(false, httpserve.Settings{JSON: true})
		cl := newClient(s.Endpoint())
		_, sid := initialize(cl, s)
		h := with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		resp := cl.post(h, toolsList)
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(messages(resp)).To(ConsistOf(HavePrefix(`{"jsonrpc":"2.0","id":2,"result":{"tools"`)))
		resp = cl.post(h, `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
		Expect(messages(resp)).To(ConsistOf(SatisfyAll(HavePrefix("["), ContainSubstring(`"id":3`), ContainSubstring(`"id":4`))))
	})

	It("fails a client that drops the session id, the version header, or lists one Accept type", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		_, sid := initialize(cl, s)
		Expect(cl.post(with(goodPost, "MCP-Protocol-Version", "2025-06-18"), toolsList).StatusCode).To(Equal(http.StatusBadRequest))
		Expect(rec.Failed(httpserve.CheckSessionID)).To(BeTrue())
		Expect(rec.Failed(httpserve.CheckVersionHeader)).To(BeFalse())
		messages(cl.post(with(goodPost, "Mcp-Session-Id", sid), toolsList))
		Expect(rec.Failed(httpserve.CheckVersionHeader)).To(BeTrue())
		messages(cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-03-26"), `{"jsonrpc":"2.0","id":5,"method":"ping"}`))
		Expect(rec.Failed(httpserve.CheckVersionNegotiated)).To(BeTrue())
		Expect(rec.Failed(httpserve.CheckAcceptPost)).To(BeFalse())
		messages(cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18", "Accept", "application/json"), `{"jsonrpc":"2.0","id":6,"method":"ping"}`))
		Expect(rec.Failed(httpserve.CheckAcceptPost)).To(BeTrue())
	})

	It("owes no session id before it assigned one: a GET first is refused 400 and judged nothing", func() {
		s, rec := listen(false, httpserve.Settings{})
		serve(s, nil)
		req, err := http.NewRequest(http.MethodGet, s.Endpoint(), nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(rec.Verdicts(httpserve.CheckSessionID)).To(BeEmpty())
	})

	It("answers 404 once wirecheck ends the session, and judges the client's new initialize", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		Expect(c.Close()).To(Succeed())
		Eventually(c.Done()).Should(BeClosed())
		Expect(cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), toolsList).StatusCode).To(Equal(http.StatusNotFound))
		Expect(cl.post(with(goodPost, "Mcp-Session-Id", sid), initBody).StatusCode).To(Equal(http.StatusNotFound))
		Expect(rec.Verdicts(httpserve.CheckReinitialize)).To(HaveExactElements(BeEquivalentTo("fail")))
		Expect(cl.post(goodPost, toolsList).StatusCode).To(Equal(http.StatusBadRequest))
		Expect(rec.Verdicts(httpserve.CheckReinitialize)).To(HaveExactElements(BeEquivalentTo("fail"), BeEquivalentTo("fail")), "a request without the id, but no initialize")
		_, sid2 := initialize(cl, s)
		Expect(sid2).NotTo(Equal(sid))
		Expect(rec.Verdicts(httpserve.CheckReinitialize)).To(HaveLen(3))
		Expect(rec.Verdicts(httpserve.CheckReinitialize)[2]).To(BeEquivalentTo("pass"))
	})

	It("owes no session id before it returned one: a session ended before its initialize was answered, the client's legacy probe is no breach", func() {
		// As a scenario that does not apply at the run's revision closes
		// the session at once, maybe before its initialize is answered:
		// a JSON answer waits for the response, so the 404 is certain.
		s, rec := listen(false, httpserve.Settings{JSON: true})
		cl := newClient(s.Endpoint())
		go func() {
			defer GinkgoRecover()
			Expect(accept(s).Close()).To(Succeed())
		}()
		resp := cl.post(goodPost, initBody)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(resp.Header.Get("Mcp-Session-Id")).To(BeEmpty())
		// Refused 4xx, a client of both transports GETs the URL for the
		// legacy stream, with no session id to carry.
		Expect(cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream"}, "").StatusCode).To(Equal(http.StatusBadRequest))
		Expect(rec.Verdicts(httpserve.CheckSessionID)).To(BeEmpty())
		Expect(rec.Notes()).To(ContainElement(ContainSubstring("400: GET without Mcp-Session-Id, before wirecheck returned the client one")))

		// Once an initialize returned one, a GET without it is a breach.
		s.Set(httpserve.Settings{})
		_, _ = initialize(cl, s)
		Expect(cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-06-18"}, "").StatusCode).To(Equal(http.StatusBadRequest))
		Expect(rec.Failed(httpserve.CheckSessionID)).To(BeTrue())
	})

	It("carries wirecheck's requests on the GET stream, and answers GET 405 when the settings say so", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		resp := cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}, "")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":"w1","method":"roots/list"}`))).To(Succeed())
		ev, err := nextData(sse.NewReader(resp.Body, 1<<20, 1<<20))
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Data).To(ContainSubstring(`"roots/list"`))
		Expect(ev.ID).To(HavePrefix("s"))
		Expect(rec.PassedOnly(httpserve.CheckAcceptGet)).To(BeTrue())

		c.Set(httpserve.Settings{NoGet: true})
		Expect(cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "application/json", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}, "").StatusCode).To(Equal(http.StatusMethodNotAllowed))
		Expect(rec.Failed(httpserve.CheckAcceptGet)).To(BeTrue())
	})

	It("holds wirecheck's messages until a stream opens", func() {
		s, _ := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))).To(Succeed())
		resp := cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}, "")
		ev, err := nextData(sse.NewReader(resp.Body, 1<<20, 1<<20))
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Data).To(ContainSubstring("list_changed"))
	})

	It("ends the session on DELETE, and fails a client that never sends one", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		Expect(cl.do(http.MethodDelete, s.Endpoint(), map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}, "").StatusCode).To(Equal(http.StatusOK))
		Eventually(c.Done()).Should(BeClosed())
		Expect(rec.PassedOnly(httpserve.CheckDelete)).To(BeTrue())
		Expect(cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), toolsList).StatusCode).To(Equal(http.StatusNotFound))

		s2, rec2 := listen(false, httpserve.Settings{})
		c2, _ := initialize(newClient(s2.Endpoint()), s2)
		Expect(s2.Close()).To(Succeed())
		Expect(rec2.Verdicts(httpserve.CheckDelete)).To(BeEmpty(), "the listener's end is not the client's")
		c2.Finish()
		Expect(rec2.Verdicts(httpserve.CheckDelete)).To(BeEmpty(), "closing the listener ended the session: nothing is owed")

		s3, rec3 := listen(false, httpserve.Settings{})
		c3, _ := initialize(newClient(s3.Endpoint()), s3)
		c3.Finish()
		Expect(rec3.Verdicts(httpserve.CheckDelete)).To(HaveExactElements(BeEquivalentTo("fail")))
	})

	It("breaks a stream before its response and replays it to a GET with Last-Event-ID, judging the wait against retry", func() {
		s, rec := listen(false, httpserve.Settings{Retry: 40 * time.Millisecond})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		h := with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		resp := cl.post(h, `{"jsonrpc":"2.0","id":9,"method":"slow"}`)
		r := sse.NewReader(resp.Body, 1<<20, 1<<20)
		Expect(c.Drop("9")).To(BeTrue())
		_, err := nextData(r)
		Expect(err).To(HaveOccurred(), "the stream ends without its response")
		Expect(r.Retry()).To(Equal(40))
		last := r.LastID()
		Expect(last).NotTo(BeEmpty())
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":9,"result":{}}`))).To(Succeed())

		// Too soon: resumes, but before retry.
		get := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18", "Last-Event-ID": last}
		resp = cl.do(http.MethodGet, s.Endpoint(), get, "")
		Expect(messages(resp)).To(ConsistOf(`{"jsonrpc":"2.0","id":9,"result":{}}`))
		Expect(rec.Verdicts(httpserve.CheckResumes)).To(HaveExactElements(BeEquivalentTo("pass")))
		Expect(rec.Verdicts(httpserve.CheckRetry)).To(HaveExactElements(BeEquivalentTo("fail")))

		// Waiting it out passes.
		resp = cl.post(h, `{"jsonrpc":"2.0","id":10,"method":"slow"}`)
		r = sse.NewReader(resp.Body, 1<<20, 1<<20)
		Expect(c.Drop("10")).To(BeTrue())
		_, _ = nextData(r)
		time.Sleep(45 * time.Millisecond) // the retry the test set: what is judged is the wait
		resp = cl.do(http.MethodGet, s.Endpoint(), with(get, "Last-Event-ID", r.LastID()), "")
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":10,"result":{}}`))).To(Succeed())
		Expect(messages(resp)).To(ConsistOf(`{"jsonrpc":"2.0","id":10,"result":{}}`))
		Expect(rec.Verdicts(httpserve.CheckRetry)).To(HaveExactElements(BeEquivalentTo("fail"), BeEquivalentTo("pass")))
	})

	It("breaks the stream of the first call of DropCall's method itself, and ends the session after EndAfter's", func() {
		s, rec := listen(false, httpserve.Settings{DropCall: "tools/call", EndAfter: "tools/list"})
		cl := newClient(s.Endpoint())
		_, sid := initialize(cl, s)
		h := with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		resp := cl.post(h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
		r := sse.NewReader(resp.Body, 1<<20, 1<<20)
		_, err := nextData(r)
		Expect(err).To(HaveOccurred(), "broken before the response")
		resp = cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18", "Last-Event-ID": r.LastID()}, "")
		Expect(messages(resp)).To(ConsistOf(ContainSubstring("echoed")))
		Expect(rec.PassedOnly(httpserve.CheckResumes)).To(BeTrue())
		Expect(messages(cl.post(h, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}`))).To(ConsistOf(ContainSubstring("echoed")), "only the first call's stream breaks")

		Expect(messages(cl.post(h, toolsList))).To(ConsistOf(ContainSubstring(`"echo"`)))
		Expect(cl.post(h, toolsList).StatusCode).To(Equal(http.StatusNotFound))

		// The client's new session goes on in the same connection (the
		// responder of the first one answers), under a new id.
		resp = cl.post(goodPost, initBody)
		Expect(resp.Header.Get("Mcp-Session-Id")).NotTo(BeEmpty())
		Expect(resp.Header.Get("Mcp-Session-Id")).NotTo(Equal(sid))
		Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"protocolVersion"`)))
		Expect(rec.PassedOnly(httpserve.CheckReinitialize)).To(BeTrue())
	})

	It("fails a client that never resumes a broken stream", func() {
		s, rec := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		resp := cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), `{"jsonrpc":"2.0","id":9,"method":"slow"}`)
		r := sse.NewReader(resp.Body, 1<<20, 1<<20)
		Expect(c.Drop("9")).To(BeTrue())
		_, _ = nextData(r)
		Expect(s.Close()).To(Succeed())
		Expect(rec.Verdicts(httpserve.CheckResumes)).To(HaveExactElements(BeEquivalentTo("fail")))
	})

	It("serves sessionless 2026-07-28 and judges its request metadata headers", func() {
		s, rec := listen(false, httpserve.Settings{Sessionless: true, NoGet: true})
		cl := newClient(s.Endpoint())
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		h := with(goodPost, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
		resp := cl.post(h, call)
		c := accept(s)
		responder(c, nil)
		Expect(resp.Header.Get("Mcp-Session-Id")).To(BeEmpty())
		Expect(messages(resp)).To(ConsistOf(ContainSubstring("echoed")))
		Expect(rec.PassedOnly(httpserve.CheckMetadataHeaders)).To(BeTrue())
		Expect(rec.PassedOnly(httpserve.CheckVersionHeader)).To(BeTrue())
		messages(cl.post(with(h, "Mcp-Name", "=?base64?ZWNobw==?="), strings.Replace(call, `"id":1`, `"id":2`, 1)))
		Expect(rec.PassedOnly(httpserve.CheckMetadataHeaders)).To(BeTrue(), "a Base64 sentinel decodes to the name")
		messages(cl.post(with(h, "Mcp-Name", ""), strings.Replace(call, `"id":1`, `"id":3`, 1)))
		Expect(rec.Failed(httpserve.CheckMetadataHeaders)).To(BeTrue())
		Expect(cl.do(http.MethodGet, s.Endpoint(), map[string]string{"Accept": "text/event-stream"}, "").StatusCode).To(Equal(http.StatusMethodNotAllowed))
	})

	It("refuses what is no JSON-RPC message 400 and still hands it to the peer", func() {
		s, _ := listen(false, httpserve.Settings{Sessionless: true})
		cl := newClient(s.Endpoint())
		resp := cl.post(goodPost, `{"jsonrpc":`)
		c := accept(s)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(string((<-c.Recv()).Raw)).To(Equal(`{"jsonrpc":`))
	})
})

// nextData is the next event with data.
func nextData(r *sse.Reader) (sse.Event, error) {
	for {
		ev, err := r.Next()
		if err != nil || ev.Data != "" {
			return ev, err
		}
	}
}
