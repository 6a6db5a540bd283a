package mcp_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the reference server over HTTP, the era and statuses of 2026-07-28", func() {
	v26 := "MCP-Protocol-Version: 2026-07-28"
	look := func(faults ...string) []string {
		c := serve(false, faults, nil).client()
		get := c.send(http.MethodGet, "", v26, "Accept: text/event-stream")
		get.Body.Close()
		del := c.send(http.MethodDelete, "", v26)
		del.Body.Close()
		list := modern(1, "tools/list", "")
		withSession := c.post(list, v26, "Mcp-Session-Id: never-issued")
		withLast := c.post(list, v26, "Last-Event-ID: 7")
		return []string{status(reply{status: get.StatusCode}), status(reply{status: del.StatusCode}),
			status(withSession), withSession.header.Get("Mcp-Session-Id"), status(withLast)}
	}

	It("answers GET and DELETE 405, serves a request carrying an Mcp-Session-Id without issuing one, and ignores Last-Event-ID", func() {
		Expect(look()).To(Equal([]string{"405", "405", "200", "", "200"}))
	})

	It("answers ask-client without a capability -32021 alone, with 400, not after progress on a stream opened 200", func() {
		r := serve(false, nil, nil).client().post(modern(1, "tools/call", `{"name":"ask-client","arguments":{},"_meta":{"progressToken":"p"}}`), v26)
		Expect(status(r) + " " + code(r) + " " + r.header.Get("Content-Type")).To(Equal("400 -32021 application/json"))
	})

	It("answers a request naming a revision it does not implement -32022 with 400, and under the fault version-refused-plain 400 with no JSON-RPC body", func() {
		bogus := strings.Replace(modern(1, "tools/list", ""), "2026-07-28", "1999-01-01", 1)
		v99 := "MCP-Protocol-Version: 1999-01-01"
		r := serve(false, nil, nil).client().post(bogus, v99)
		Expect(status(r) + " " + code(r)).To(Equal("400 -32022"))
		r = serve(false, []string{"version-refused-plain"}, nil).client().post(bogus, v99)
		Expect(statusBody(r)).To(Equal("400 Unsupported protocol version"))
	})

	DescribeTable("its faults each break one of them",
		func(fault string, want []string) { Expect(look(fault)).To(Equal(want)) },
		Entry(nil, "modern-get-stream", []string{"200", "400", "200", "", "200"}),
		Entry(nil, "modern-session-checked", []string{"405", "405", "404", "", "200"}),
		Entry(nil, "modern-last-event-id-refused", []string{"405", "405", "200", "", "400"}),
	)
})
