package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

var _ = Describe("the reference server over HTTP, the era and statuses of 2026-07-28", func() {
	v26 := "MCP-Protocol-Version: 2026-07-28"
	lookWith := func(faults, variants []string) []string {
		c := serve(false, faults, variants).client()
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
	look := func(faults ...string) []string { return lookWith(faults, nil) }
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

	It("answers GET and DELETE 405, serves a request carrying an Mcp-Session-Id without issuing one, and ignores Last-Event-ID", func() {
		Expect(look()).To(Equal([]string{"405", "405", "200", "", "200"}))
	})

	It("is dual-era: it serves an older client's initialize on the same endpoint, though server/discover lists 2026-07-28 alone", func() {
		c := serve(false, nil, nil).client()
		r := c.post(initialize)
		Expect(status(r) + " " + show(r.last()["result"].(map[string]any)["protocolVersion"])).To(Equal(`200 "2025-11-25"`))
		Expect(r.header.Get("Mcp-Session-Id")).NotTo(BeEmpty())
		d := c.post(modern(1, "server/discover", ""), v26)
		Expect(d.last()["result"].(map[string]any)["supportedVersions"]).To(Equal([]any{"2026-07-28"}))
	})

	It("as a server of 2026-07-28 only (variant modern-only) refuses initialize 400 with -32022 naming that revision, issuing no session, and answers every GET and DELETE 405", func() {
		c := serve(false, nil, []string{"modern-only"}).client()
		r := c.post(initialize)
		Expect(status(r) + " " + code(r) + " " + r.header.Get("Mcp-Session-Id")).To(Equal("400 -32022 "))
		Expect(r.last()["error"].(map[string]any)["data"]).To(Equal(map[string]any{"supported": []any{"2026-07-28"}, "requested": "2025-11-25"}))
		get := c.send(http.MethodGet, "", "MCP-Protocol-Version: 2025-11-25", "Accept: text/event-stream")
		get.Body.Close()
		Expect(get.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		Expect(lookWith(nil, []string{"modern-only"})).To(Equal([]string{"405", "405", "200", "", "200"}))
	})

	It("as a server of 2026-07-28 only refuses initialize over stdio too, with -32022 naming that revision", func() {
		var out bytes.Buffer
		mcp.Serve(refserver.Options{Variants: []string{"modern-only"}, In: strings.NewReader(initialize + "\n"), Out: &out, Log: io.Discard})
		var m map[string]any
		Expect(json.Unmarshal(out.Bytes(), &m)).To(Succeed(), "%s", out.String())
		Expect(m["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32022)))
		Expect(m["error"]).To(HaveKeyWithValue("data", Equal(map[string]any{"supported": []any{"2026-07-28"}, "requested": "2025-11-25"})))
	})

	It("as a dual-era server answering by its 2025 leg (variant dual-era-legacy-verbs) refuses a GET and a DELETE naming 2026-07-28 without a session 400", func() {
		Expect(lookWith(nil, []string{"dual-era-legacy-verbs"})).To(Equal([]string{"400", "400", "200", "", "200"}))
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

	DescribeTable("its faults each break one of them, as a server of 2026-07-28 only",
		func(fault string, want []string) {
			Expect(look(fault)).To(Equal(want))
			r := serve(false, []string{fault}, nil).client().post(initialize)
			Expect(status(r) + " " + code(r)).To(Equal("400 -32022"))
		},
		Entry(nil, "modern-get-stream", []string{"200", "400", "200", "", "200"}),
		Entry(nil, "modern-session-checked", []string{"405", "405", "404", "", "200"}),
		Entry(nil, "modern-last-event-id-refused", []string{"405", "405", "200", "", "400"}),
	)
})
