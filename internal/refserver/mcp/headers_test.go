package mcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
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

// look is a reply's status and JSON-RPC error code.
func look(r reply) string { return status(r) + " " + code(r) }

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

	It("refuses a request missing a required header, and judges geo's Mcp-Param headers: missing, different, raw non-ASCII refused; encoded, numerically equal, or absent with their argument served", func() {
		c := serve(false, nil, nil).client()
		list := modern(1, "tools/list", "")
		for _, drop := range []string{"MCP-Protocol-Version:", "Mcp-Method:"} {
			Expect(look(c.post(list, drop))).To(Equal("400 -32020"), drop)
		}
		Expect(look(c.post(modern(2, "prompts/get", `{"name":"plain"}`), "Mcp-Name:"))).To(Equal("400 -32020"))
		geo := modern(3, "tools/call", `{"name":"geo","arguments":{"region":"us-wést","zone":42.0}}`)
		Expect(look(c.post(geo))).To(Equal("200 "))
		Expect(look(c.post(geo, "Mcp-Param-Zone: 42"))).To(Equal("200 "), "42 and 42.0 compare equal")
		for _, h := range []string{"Mcp-Param-Zone: 43", "Mcp-Param-Zone:", "Mcp-Param-Region: us-west", "Mcp-Param-Region: us-wést", "Mcp-Param-Note: x"} {
			Expect(look(c.post(geo, h))).To(Equal("400 -32020"), h)
		}
	})

	It("lists geo with x-mcp-header annotations in 2026-07-28 only, and scale (a number annotated) with the fault x-mcp-header-number", func() {
		// tools lists every page.
		tools := func(c *client, list func(cursor string) string) []any {
			var names []any
			cursor := ""
			for range 10 {
				res, _ := c.post(list(cursor)).last()["result"].(map[string]any)
				ts, _ := res["tools"].([]any)
				for _, t := range ts {
					names = append(names, t.(map[string]any)["name"])
				}
				next, ok := res["nextCursor"].(string)
				if !ok {
					break
				}
				cursor = `{"cursor":` + show(next) + `}`
			}
			return names
		}
		list26 := func(cursor string) string { return modern(1, "tools/list", cursor) }
		Expect(tools(serve(false, nil, nil).client(), list26)).To(ContainElement("geo"))
		Expect(tools(serve(false, nil, nil).client(), list26)).NotTo(ContainElement("scale"))
		Expect(tools(serve(false, []string{"x-mcp-header-number"}, nil).client(), list26)).To(ContainElement("scale"))
		c := serve(false, nil, nil).client()
		c.initialize("2025-11-25")
		Expect(tools(c, func(cursor string) string { return call(1, "tools/list", cursor) })).NotTo(ContainElement("geo"))
	})

	It("fault header-names-exact takes a header name in another case for a missing one; without it, or without the names recorded, any case serves", func() {
		post := func(record bool, faults ...string) string {
			f := mcp.NewFront(refserver.Options{Faults: faults, Log: io.Discard, Out: io.Discard}, false)
			ts := httptest.NewUnstartedServer(f)
			if record {
				ts.Listener = mcp.RecordHeaderNames(ts.Config, ts.Listener)
			}
			ts.Start()
			defer func() { f.Close(); ts.CloseClientConnections(); ts.Close() }()
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(modern(1, "tools/list", "")))
			Expect(err).NotTo(HaveOccurred())
			req.Header = http.Header{"content-type": {"application/json"}, "accept": {"application/json, text/event-stream"},
				"mcp-protocol-version": {"2026-07-28"}, "MCP-METHOD": {"tools/list"}}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return look(reply{status: resp.StatusCode, header: resp.Header, body: b})
		}
		Expect(post(true)).To(Equal("200 "))
		Expect(post(true, "header-names-exact")).To(Equal("400 -32020"))
		Expect(post(false, "header-names-exact")).To(Equal("200 "))
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
			with := func(faults []string) string { return look(serve(false, faults, nil).client().post(probe, set...)) }
			Expect(with(nil)).To(Equal(right))
			Expect(with([]string{fault})).To(Equal(wrong))
		},
		Entry(nil, "header-meta-mismatch-served", modern(1, "tools/list", ""), []string{"MCP-Protocol-Version: 2025-11-25"}, "400 -32020", "200 "),
		Entry(nil, "mcp-method-unchecked", modern(1, "tools/list", ""), []string{v26, "Mcp-Method: prompts/list"}, "400 -32020", "200 "),
		Entry(nil, "mcp-name-unchecked", modern(1, "prompts/get", `{"name":"plain"}`), []string{v26, "Mcp-Name: greet"}, "400 -32020", "200 "),
		Entry(nil, "base64-not-decoded", modern(1, "prompts/get", `{"name":"plain"}`), []string{v26, "Mcp-Name: =?base64?cGxhaW4=?="}, "200 ", "400 -32020"),
		Entry(nil, "unsupported-version-200", strings.ReplaceAll(modern(1, "tools/list", ""), "2026-07-28", "2099-01-01"), []string{"MCP-Protocol-Version: 2099-01-01"}, "400 -32022", "200 -32022"),
		Entry(nil, "unknown-method-200", modern(1, "wirecheck/unknown", ""), []string{v26}, "404 -32601", "200 -32601"),
		Entry(nil, "meta-error-200", call(1, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), []string{v26}, "400 -32602", "200 -32602"),
		Entry(nil, "no-version-header-served", modern(1, "tools/list", ""), []string{"MCP-Protocol-Version:"}, "400 -32020", "200 "),
		Entry(nil, "base64-not-decoded", modern(1, "tools/call", `{"name":"geo","arguments":{"region":"é","zone":1}}`), []string{"Mcp-Param-Region: =?base64?w6k=?="}, "200 ", "400 -32020"),
		Entry(nil, "param-unchecked", modern(1, "tools/call", `{"name":"geo","arguments":{"region":"eu","zone":1}}`), []string{"Mcp-Param-Region: us"}, "400 -32020", "200 "),
		Entry(nil, "param-bad-chars-served", modern(1, "tools/call", `{"name":"geo","arguments":{"region":"é","zone":1}}`), []string{"Mcp-Param-Region: é"}, "400 -32020", "200 "),
		Entry(nil, "param-header-required", modern(1, "tools/call", `{"name":"geo","arguments":{"region":"eu","zone":1}}`), nil, "200 ", "400 -32020"),
		Entry(nil, "capability-error-200", modern(1, "prompts/get", `{"name":"ask"}`), []string{v26}, "400 -32021", "200 -32021"),
	)

	It("variant version-header-optional-unlisted serves a request without the header and a 2025-03-26 client's initialize, listing 2026-07-28 alone", func() {
		c := serve(false, nil, []string{"version-header-optional-unlisted"}).client()
		Expect(look(c.post(modern(1, "tools/list", ""), "MCP-Protocol-Version:"))).To(Equal("200 "))
		d := c.post(modern(2, "server/discover", ""), v26)
		Expect(d.last()["result"]).To(HaveKeyWithValue("supportedVersions", Equal([]any{"2026-07-28"})))
		r := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		Expect(r.last()["result"]).To(HaveKeyWithValue("protocolVersion", "2025-03-26"))
	})

	It("fault no-version-header-served is a server of 2026-07-28 only: it refuses a 2025-03-26 client's initialize", func() {
		r := serve(false, []string{"no-version-header-served"}, nil).client().post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		Expect(look(r)).To(Equal("400 -32022"))
	})

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
