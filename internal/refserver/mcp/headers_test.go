package mcp_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// modern is a 2026-07-28 request of method with params: the revision and
// capabilities join the params' _meta (made when there is none).
func modern(id int, method, params string) string {
	fields := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	switch {
	case params == "":
		params = `{"_meta":{` + fields + `}}`
	case strings.Contains(params, `"_meta":{`):
		params = strings.Replace(params, `"_meta":{`, `"_meta":{`+fields+",", 1)
	default:
		params = strings.TrimSuffix(params, "}") + `,"_meta":{` + fields + "}}"
	}
	return call(id, method, params)
}

// code is the JSON-RPC error code of a reply, "" when none.
func code(r reply) string {
	e, _ := r.last()["error"].(map[string]any)
	if e == nil {
		return ""
	}
	return show(e["code"])
}

var _ = Describe("the reference server over HTTP in 2026-07-28", func() {
	v26 := "MCP-Protocol-Version: 2026-07-28"

	It("refuses headers that disagree with the body with 400 and HeaderMismatch, and serves those that agree", func() {
		c := serve(false, nil, nil).client()
		list := modern(1, "tools/list", "")
		Expect(status(c.post(list, v26, "Mcp-Method: tools/list"))).To(Equal("200"))
		for _, h := range [][]string{{"MCP-Protocol-Version: 2025-11-25"}, {v26, "Mcp-Method: prompts/list"}, {v26, "Mcp-Method: Tools/List"}} {
			r := c.post(list, h...)
			Expect(status(r)+" "+code(r)).To(Equal("400 -32020"), "%v", h)
			Expect(r.last()["id"]).To(BeNumerically("==", 1))
		}
		echo := modern(2, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
		Expect(status(c.post(echo, v26, "Mcp-Method: tools/call", "Mcp-Name: echo"))).To(Equal("200"))
		Expect(status(c.post(echo, v26, "Mcp-Method: tools/call", "Mcp-Name: =?base64?ZWNobw==?="))).To(Equal("200"))
		Expect(code(c.post(echo, v26, "Mcp-Method: tools/call", "Mcp-Name: add"))).To(Equal("-32020"))
		read := modern(3, "resources/read", `{"uri":"wirecheck://docs/readme"}`)
		Expect(status(c.post(read, v26, "Mcp-Name: wirecheck://docs/readme"))).To(Equal("200"))
		Expect(code(c.post(read, v26, "Mcp-Name: wirecheck://docs/logo"))).To(Equal("-32020"))
	})

	It("answers an unsupported revision 400, an unknown method 404, a request missing _meta fields or a capability 400", func() {
		c := serve(false, nil, nil).client()
		r := c.post(strings.ReplaceAll(modern(1, "tools/list", ""), "2026-07-28", "2099-01-01"), "MCP-Protocol-Version: 2099-01-01")
		Expect(status(r) + " " + code(r)).To(Equal("400 -32022"))
		r = c.post(modern(2, "wirecheck/unknown", ""), v26)
		Expect(status(r) + " " + code(r)).To(Equal("404 -32601"))
		r = c.post(call(3, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), v26)
		Expect(status(r) + " " + code(r)).To(Equal("400 -32602"))
		r = c.post(modern(4, "prompts/get", `{"name":"ask"}`), v26)
		Expect(status(r) + " " + code(r)).To(Equal("400 -32021"))
	})

	DescribeTable("its faults each change what they name",
		func(fault, probe string, set []string, right, wrong string) {
			look := func(faults []string) string {
				r := serve(false, faults, nil).client().post(probe, set...)
				return status(r) + " " + code(r)
			}
			Expect(look(nil)).To(Equal(right))
			Expect(look([]string{fault})).To(Equal(wrong))
		},
		Entry(nil, "header-meta-mismatch-served", modern(1, "tools/list", ""), []string{"MCP-Protocol-Version: 2025-11-25"}, "400 -32020", "200 "),
		Entry(nil, "mcp-method-unchecked", modern(1, "tools/list", ""), []string{v26, "Mcp-Method: prompts/list"}, "400 -32020", "200 "),
		Entry(nil, "mcp-name-unchecked", modern(1, "prompts/get", `{"name":"plain"}`), []string{v26, "Mcp-Name: greet"}, "400 -32020", "200 "),
		Entry(nil, "base64-not-decoded", modern(1, "prompts/get", `{"name":"plain"}`), []string{v26, "Mcp-Name: =?base64?cGxhaW4=?="}, "200 ", "400 -32020"),
		Entry(nil, "unsupported-version-200", strings.ReplaceAll(modern(1, "tools/list", ""), "2026-07-28", "2099-01-01"), []string{"MCP-Protocol-Version: 2099-01-01"}, "400 -32022", "200 -32022"),
		Entry(nil, "unknown-method-200", modern(1, "wirecheck/unknown", ""), []string{v26}, "404 -32601", "200 -32601"),
		Entry(nil, "meta-error-200", call(1, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), []string{v26}, "400 -32602", "200 -32602"),
		Entry(nil, "capability-error-200", modern(1, "prompts/get", `{"name":"ask"}`), []string{v26}, "400 -32021", "200 -32021"),
	)

	It("variant version-header-optional lists 2025-03-26 among its revisions", func() {
		r := serve(false, nil, []string{"version-header-optional"}).client().post(modern(1, "server/discover", ""))
		Expect(r.last()["result"]).To(HaveKeyWithValue("supportedVersions", ContainElements("2025-03-26", "2026-07-28")))
	})

	It("fault cancel-ignored sends a closed call's remaining progress on the open listen stream", func() {
		c := serve(false, []string{"cancel-ignored"}, nil).client()
		listen := c.open(http.MethodPost, modern(1, "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`), v26)
		listen.next(method("notifications/subscriptions/acknowledged"))
		st := c.open(http.MethodPost, modern(2, "tools/call", `{"name":"slow","arguments":{"durationMs":300},"_meta":{"progressToken":"k"}}`), v26)
		st.next(method("notifications/progress"))
		st.resp.Body.Close()
		p := listen.next(method("notifications/progress"))
		Expect(p["params"]).To(HaveKeyWithValue("progressToken", "k"))
	})
})
