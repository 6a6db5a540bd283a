package mcp

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("what the HTTP scenarios read of an answer", func() {
	It("reads a challenge's auth-params quoted or as tokens, in any case and order, among several challenges", func() {
		ch := `Basic realm="x", Bearer error="invalid_token", Resource_Metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope=mcp`
		Expect(authParam(ch, "resource_metadata")).To(Equal("https://a.example/.well-known/oauth-protected-resource/mcp"))
		Expect(authParam(ch, "scope")).To(Equal("mcp"))
		Expect(authParam(`Bearer realm="say \"hi\""`, "realm")).To(Equal(`say "hi"`))
		Expect(authParam(`Bearer xscope="a"`, "scope")).To(BeEmpty(), "a parameter whose name only ends with the one asked for")
		Expect(hasScope("mcp offline_access", "offline_access")).To(BeTrue())
		Expect(hasScope("mcp offline_accessx", "offline_access")).To(BeFalse())
	})

	It("takes a resource naming the endpoint or its origin, slash and case aside, and nothing else", func() {
		ep, _ := url.Parse("http://127.0.0.1:8080/mcp")
		for _, ok := range []string{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp/", "HTTP://127.0.0.1:8080", "http://127.0.0.1:8080/"} {
			Expect(sameResource(ok, ep)).To(BeTrue(), ok)
		}
		for _, bad := range []string{"http://127.0.0.1:8081/mcp", "https://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/other", "http://evil.example/mcp"} {
			Expect(sameResource(bad, ep)).To(BeFalse(), bad)
		}
	})

	It("tells an origin by scheme, host and port, default ports included", func() {
		a, _ := url.Parse("http://Example.com/sse")
		b, _ := url.Parse("http://example.com:80/messages?sessionId=1")
		c, _ := url.Parse("https://example.com/messages")
		Expect(sameOrigin(a, b)).To(BeTrue())
		Expect(sameOrigin(a, c)).To(BeFalse())
	})

	It("reads an event stream's type with parameters and in any case", func() {
		Expect(isEventStream("Text/Event-Stream; charset=utf-8")).To(BeTrue())
		Expect(isEventStream("application/json")).To(BeFalse())
	})

	It("finds the JSON-RPC messages of a JSON body or of the events, and nothing in a text body", func() {
		Expect(messages(&httpmcp.Result{Status: 400, Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`)}, 3)).To(HaveLen(1))
		ms := messages(&httpmcp.Result{Status: 200, Frames: [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), []byte(`[{"jsonrpc":"2.0","id":2,"result":{}}]`)}}, 4)
		Expect(ms).To(HaveLen(2))
		Expect(ms[1].Seq).To(Equal(4))
		Expect(messages(&httpmcp.Result{Status: 400, Body: []byte("Bad Request")}, 1)).To(BeEmpty())
		Expect(messages(nil, 1)).To(BeEmpty())
	})

	It("finds a JSON-RPC error in a probe's answer, and none in an empty, text or result body (MCP-HTTP-ACCEPT-2)", func() {
		Expect(carriesError(&httpmcp.Result{Status: 200, Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)})).To(BeTrue())
		Expect(carriesError(&httpmcp.Result{Status: 200, Frames: [][]byte{[]byte(`{"jsonrpc":"2.0","error":{"code":"bad","message":"x"}}`)}})).To(BeTrue())
		Expect(carriesError(&httpmcp.Result{Status: 200, Body: []byte(`{}`)})).To(BeFalse())
		Expect(carriesError(&httpmcp.Result{Status: 202})).To(BeFalse())
		Expect(carriesError(&httpmcp.Result{Status: 200, Body: []byte("ok")})).To(BeFalse())
		Expect(carriesError(&httpmcp.Result{Status: 200, Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)})).To(BeFalse())
	})

	It("counts 2xx as served and 4xx as refused, a probe without an answer as neither", func() {
		Expect(served(&httpmcp.Result{Status: http.StatusAccepted})).To(BeTrue())
		Expect(refused(&httpmcp.Result{Status: http.StatusForbidden})).To(BeTrue())
		Expect(refused(&httpmcp.Result{Status: http.StatusInternalServerError})).To(BeFalse())
		Expect(served(nil) || refused(nil)).To(BeFalse())
	})
})

var _ = Describe("the answer to a POST body a server cannot parse (MCP-JSONRPC-7/8 over HTTP)", func() {
	judge := func(res *httpmcp.Result) []verdict.Observation {
		var got []verdict.Observation
		e := &scenario.Env{Observe: func(o verdict.Observation) { got = append(got, o) }}
		judgeBodyAnswer(e, "MCP-JSONRPC-7", "{", -32700, func(v any) bool { return v == nil }, res, 5)
		return got
	}
	It("passes a 4xx without a JSON-RPC body, saying on which reading", func() {
		got := judge(&httpmcp.Result{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("Bad Request")})
		Expect(got).To(HaveLen(1))
		Expect(got[0].Verdict).To(Equal(verdict.Pass))
		Expect(got[0].Message).To(ContainSubstring("MAY** comprise a JSON-RPC _error response_"))
	})
	It("passes the right JSON-RPC error in a 4xx", func() {
		got := judge(&httpmcp.Result{Status: 400, Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`)})
		Expect(got).To(ConsistOf(HaveField("Verdict", verdict.Pass)))
	})
	DescribeTable("fails",
		func(res *httpmcp.Result) {
			Expect(judge(res)).To(ConsistOf(HaveField("Verdict", verdict.Fail)))
		},
		Entry("a 2xx without a JSON-RPC body", &httpmcp.Result{Status: 202}),
		Entry("a 2xx with a text body", &httpmcp.Result{Status: 200, Body: []byte("ok")}),
		Entry("a JSON-RPC error with another code, in a 4xx", &httpmcp.Result{Status: 400, Body: []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)}),
		Entry("a 5xx without a JSON-RPC body", &httpmcp.Result{Status: 500, Body: []byte("oops")}),
		Entry("no answer", (*httpmcp.Result)(nil)),
	)
})
