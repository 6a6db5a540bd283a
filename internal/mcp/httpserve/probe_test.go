package httpserve_test

import (
	"encoding/json"
	"io"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
)

const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

var probeHeaders = with(goodPost, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")

// A client of 2026-07-28 and earlier revisions probes with server/discover
// before anything else; wirecheck playing a server of an earlier revision
// refuses it as such a server may, and the client's initialize goes on in
// the connection its probe began.
var _ = Describe("a server/discover probe served to a client", func() {
	// probe POSTs the probe at once and returns its response, and the
	// session it began with the probe's key read from it.
	probe := func(s *httpserve.Server, cl *client) (<-chan *http.Response, *httpserve.Session, string) {
		got := make(chan *http.Response, 1)
		go func() {
			defer GinkgoRecover()
			got <- cl.post(probeHeaders, discover)
		}()
		c := accept(s)
		f := <-c.Recv()
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		Expect(json.Unmarshal(f.Raw, &m)).To(Succeed())
		return got, c, string(m.ID)
	}

	It("holds the probe's status until it is refused: the refusal's status and body, then initialize goes on in the same session under an id", func() {
		s, _ := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		got, c, key := probe(s, cl)
		Expect(c.Refuse(key, httpserve.Refusal{Status: http.StatusBadRequest, ContentType: "text/plain", Body: []byte("Bad Request\n")})).To(BeTrue())
		resp := <-got
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/plain"))
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("Bad Request\n"))
		Expect(c.Refuse(key, httpserve.Refusal{Status: http.StatusBadRequest})).To(BeFalse(), "answered once")

		responder(c, nil)
		resp = cl.post(goodPost, initBody)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"protocolVersion":"2025-06-18"`)))
		sid := resp.Header.Get("Mcp-Session-Id")
		Expect(sid).NotTo(BeEmpty())
		Expect(c.ID()).To(Equal(sid), "the probe's session goes on")
		resp = cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), toolsList)
		Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"echo"`)))
	})

	It("adopts the probe's session for initialize after -32601 in a 200 too", func() {
		s, _ := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		got, c, key := probe(s, cl)
		Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":` + key + `,"error":{"code":-32601,"message":"Method not found"}}`))).To(Succeed())
		resp := <-got
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(messages(resp)).To(ConsistOf(ContainSubstring(`-32601`)))
		responder(c, nil)
		resp = cl.post(goodPost, initBody)
		Expect(resp.Header.Get("Mcp-Session-Id")).To(Equal(c.ID()))
		Expect(c.ID()).NotTo(BeEmpty())
	})

	DescribeTable("answers a probe it is not told to refuse as the settings say",
		func(set httpserve.Settings, contentType string) {
			s, _ := listen(false, set)
			cl := newClient(s.Endpoint())
			got, c, _ := probe(s, cl)
			responder(c, nil)
			// The frame read, the responder answers what follows; the
			// probe itself is answered here as the responder would.
			Expect(c.Send([]byte(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`))).To(Succeed())
			resp := <-got
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get("Content-Type")).To(Equal(contentType))
			Expect(resp.Header.Get("Mcp-Session-Id")).To(BeEmpty())
			Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"supportedVersions"`)))
		},
		Entry("an SSE stream", httpserve.Settings{}, "text/event-stream"),
		Entry("application/json", httpserve.Settings{JSON: true}, "application/json"),
	)

	It("holds no other first request: a tools/call's stream opens at once", func() {
		s, _ := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		resp := cl.post(with(goodPost, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"), call)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		c := accept(s)
		Expect(c.Refuse("1", httpserve.Refusal{Status: http.StatusBadRequest})).To(BeFalse())
		responder(c, nil)
		Expect(messages(resp)).To(ConsistOf(ContainSubstring("echoed")))
	})
})
