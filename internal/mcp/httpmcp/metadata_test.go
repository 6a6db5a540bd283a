package httpmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
)

// modernTools answers 2026-07-28 requests: tools/list lists géo (three
// x-mcp-header arguments, a name that needs the Base64 sentinel) and
// scale (a number annotated: a tool a client MUST reject); every other
// request gets an empty result. It keeps each request's headers by
// method.
type modernTools struct {
	mu   sync.Mutex
	seen map[string]http.Header
}

const modernList = `{"jsonrpc":"2.0","id":%s,"result":{"tools":[` +
	`{"name":"géo","inputSchema":{"type":"object","properties":{` +
	`"region":{"type":"string","x-mcp-header":"Region"},"zone":{"type":"integer","x-mcp-header":"Zone"},` +
	`"note":{"type":["string","null"],"x-mcp-header":"Note"},"deep":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}}}}},` +
	`{"name":"scale","inputSchema":{"type":"object","properties":{"factor":{"type":"number","x-mcp-header":"Factor"}}}}]}}`

func (m *modernTools) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &msg)
	m.mu.Lock()
	if m.seen == nil {
		m.seen = map[string]http.Header{}
	}
	m.seen[msg.Method+" "+string(msg.ID)] = r.Header.Clone()
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if msg.Method == "tools/list" {
		fmt.Fprintf(w, modernList, msg.ID)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
}

func (m *modernTools) header(key string) http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[key]
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

func modernReq(id int, method, params string) []byte {
	if params != "" {
		params += ","
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, modernMeta)
}

var _ = Describe("2026-07-28 request metadata headers", func() {
	It("sends Mcp-Method, Mcp-Name and the Mcp-Param headers of a listed tool's x-mcp-header arguments, encoded, and none for a rejected tool", func() {
		m := &modernTools{}
		t, _ := dial(server(m).URL, "http", 5*time.Second)
		send := func(b []byte) {
			Expect(t.Send(b)).To(Succeed())
			next(t)
		}
		send(modernReq(1, "tools/list", ""))
		h := m.header("tools/list 1")
		Expect(h.Get("Mcp-Method")).To(Equal("tools/list"))
		Expect(h.Get("MCP-Protocol-Version")).To(Equal("2026-07-28"))
		Expect(h.Values("Mcp-Name")).To(BeEmpty())

		send(modernReq(2, "tools/call", `"name":"géo","arguments":{"region":"us-wést","zone":42.0,"note":null,"deep":{"flag":true}}`))
		h = m.header("tools/call 2")
		Expect(h.Get("Mcp-Method")).To(Equal("tools/call"))
		Expect(h.Get("Mcp-Name")).To(Equal("=?base64?Z8Opbw==?="))
		Expect(h.Get("Mcp-Param-Region")).To(Equal("=?base64?dXMtd8Opc3Q=?="))
		Expect(h.Get("Mcp-Param-Zone")).To(Equal("42"))
		Expect(h.Get("Mcp-Param-Flag")).To(Equal("true"))
		Expect(h.Values("Mcp-Param-Note")).To(BeEmpty(), "a null argument: the client MUST omit the header")

		send(modernReq(3, "tools/call", `"name":"géo","arguments":{"region":"eu-west1"}`))
		h = m.header("tools/call 3")
		Expect(h.Get("Mcp-Param-Region")).To(Equal("eu-west1"))
		Expect(h.Values("Mcp-Param-Zone")).To(BeEmpty(), "an argument not given: no header")

		send(modernReq(4, "tools/call", `"name":"scale","arguments":{"factor":1.5}`))
		h = m.header("tools/call 4")
		Expect(h.Get("Mcp-Name")).To(Equal("scale"))
		Expect(h.Values("Mcp-Param-Factor")).To(BeEmpty(), "scale's annotation is invalid: the tool is rejected")

		send(modernReq(5, "resources/read", `"uri":"file:///a b.txt"`))
		Expect(m.header("resources/read 5").Get("Mcp-Name")).To(Equal("file:///a b.txt"))
		send(modernReq(6, "prompts/get", `"name":"=?base64?x?="`))
		Expect(m.header("prompts/get 6").Get("Mcp-Name")).To(Equal("=?base64?PT9iYXNlNjQ/eD89?="), "a plain value that looks like the sentinel is encoded")

		// A request without _meta, once the revision was served, still
		// names its method.
		send([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
		h = m.header("ping 7")
		Expect(h.Get("Mcp-Method")).To(Equal("ping"))
		Expect(h.Get("MCP-Protocol-Version")).To(Equal("2026-07-28"))
		Expect(t.Close()).To(Succeed())
	})

	It("sends Mcp-Method with a first request naming an unknown revision in _meta: only 2026-07-28 and later name it there", func() {
		m := &modernTools{}
		t, _ := dial(server(m).URL, "http", 5*time.Second)
		Expect(t.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}}`))).To(Succeed())
		next(t)
		h := m.header("tools/list 1")
		Expect(h.Get("Mcp-Method")).To(Equal("tools/list"))
		Expect(h.Get("MCP-Protocol-Version")).To(Equal("1999-01-01"))
		Expect(t.Close()).To(Succeed())
	})

	It("sends the headers with a probe, where the probe's own headers override them", func() {
		m := &modernTools{}
		t, _ := dial(server(m).URL, "http", 5*time.Second)
		x := t.(httpmcp.Exchanger)
		res, err := x.Exchange(context.Background(), httpmcp.Exchange{Method: http.MethodPost, Body: modernReq(1, "prompts/get", `"name":"greet"`),
			Set: map[string]string{"mcp-name": "other"}, Drop: []string{"Mcp-Method"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Status).To(Equal(200))
		h := m.header("prompts/get 1")
		Expect(h.Get("Mcp-Name")).To(Equal("other"))
		Expect(h.Values("Mcp-Method")).To(BeEmpty())
		Expect(h.Get("MCP-Protocol-Version")).To(Equal("2026-07-28"))
		Expect(t.Close()).To(Succeed())
	})

	It("sends no request whose method or revision no header can carry (Mcp-Method and MCP-Protocol-Version have no encoding), and says so; a name is Base64-encoded and sent", func() {
		m := &modernTools{}
		t, h := dial(server(m).URL, "http", 5*time.Second)
		for i, b := range [][]byte{
			modernReq(1, "fa2a\nkh", ""),
			modernReq(2, " tools/list", ""),
			modernReq(3, "tööls/list", ""),
			[]byte(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\t07-28 "}}}`),
		} {
			Expect(t.Send(b)).To(Succeed())
			f := next(t)
			Expect(f.HTTP).NotTo(BeNil())
			Expect(f.HTTP.Unsent).To(BeTrue(), string(b))
			Expect(f.HTTP.For).To(Equal(fmt.Sprint(i + 1)))
			Expect(f.HTTP.End).To(MatchRegexp(`cannot be a (Mcp-Method|MCP-Protocol-Version) header value`))
		}
		// A notification is not sent either, and the transcript says so.
		Expect(t.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/x\u0001","params":{` + modernMeta + `}}`))).To(Succeed())
		Eventually(h.Notes).Should(ContainElement(ContainSubstring("a notification not sent: its method")))
		m.mu.Lock()
		Expect(m.seen).To(BeEmpty(), "none of them reached the server")
		m.mu.Unlock()
		Expect(t.Send(modernReq(5, "prompts/get", `"name":"line1\nline2"`))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.Unsent).To(BeFalse())
		Expect(m.header("prompts/get 5").Get("Mcp-Name")).To(Equal("=?base64?bGluZTEKbGluZTI=?="))
	})

	It("sends none of them before 2026-07-28", func() {
		m := &mcpServer{}
		t, _ := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		next(t)
		for _, h := range m.headers() {
			Expect(h.Values("Mcp-Method")).To(BeEmpty())
			Expect(h.Values("Mcp-Name")).To(BeEmpty())
		}
		Expect(t.Close()).To(Succeed())
	})
})
