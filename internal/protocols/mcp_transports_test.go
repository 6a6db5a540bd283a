package protocols_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Over each transport a built-in check stands for the mcp rule of that
// transport (docs/plans/mcp-http.md §0.1), and for no rule of another.
var _ = Describe("the mcp checks per transport", func() {
	b, err := protocols.Load("mcp")
	It("loads", func() { Expect(err).NotTo(HaveOccurred()) })
	if err != nil {
		return
	}
	rules := func(tr, version, check string) []string {
		p, err := b.Protocol.ForVersion(version)
		Expect(err).NotTo(HaveOccurred())
		p, err = p.ForTransport(tr)
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, r := range p.RulesForCheck(check) {
			out = append(out, r.ID)
		}
		return out
	}
	DescribeTable("stand for",
		func(tr, version, check string, want []string) {
			Expect(rules(tr, version, check)).To(ConsistOf(want))
		},
		Entry("ndjson.json on stdio", "stdio", "", verdict.CheckJSON, []string{"MCP-STDIO-1"}),
		Entry("ndjson.json over http", "http", "", verdict.CheckJSON, []string{"MCP-HTTP-1"}),
		Entry("ndjson.json over sse", "sse", "", verdict.CheckJSON, []string{"MCP-SSE-4"}),
		Entry("frame.known on stdio", "stdio", "", verdict.CheckKnown, []string{"MCP-STDIO-2"}),
		Entry("proc.survives on stdio", "stdio", "", verdict.CheckSurvives, []string{"MCP-STDIO-3"}),
		Entry("proc.survives over http", "http", "", verdict.CheckSurvives, []string{"MCP-HTTP-BADBODY-1"}),
		Entry("proc.exit-on-eof over http: nothing", "http", "", verdict.CheckExitOnEOF, []string(nil)),
		// A foreign endpoint URI is still "an endpoint event containing a
		// URI": it fails the SHOULD, never the MUST.
		Entry("sse.endpoint over sse", "sse", "", httpmcp.CheckSSEEndpoint, []string{"MCP-SSE-2"}),
		Entry("sse.endpoint-origin over sse", "sse", "", httpmcp.CheckSSEEndpointOrigin, []string{"MCP-SSE-3"}),
		Entry("http.stream-has-response in 2025-06-18", "http", "2025-06-18", httpmcp.CheckHTTPStreamHasResponse, []string{"MCP-HTTP-STREAM-1", "MCP-HTTP-STREAM-2"}),
		Entry("http.stream-has-response in 2025-11-25", "http", "2025-11-25", httpmcp.CheckHTTPStreamHasResponse, []string{"MCP-HTTP-STREAM-1"}),
		Entry("http.no-request in 2026-07-28", "http", "2026-07-28", httpmcp.CheckHTTPNoRequest, []string{"MCP-HTTP-NOREQ-1"}),
		Entry("http.accepted over sse: nothing", "sse", "", httpmcp.CheckHTTPAccepted, []string(nil)),
	)

	It("claims every check of the HTTP transports", func() {
		claimed := map[string]bool{}
		for _, r := range b.Protocol.Rules {
			for _, c := range r.Checks {
				claimed[c] = true
			}
		}
		for c := range verdict.Checks {
			if strings.HasPrefix(c, "http.") || strings.HasPrefix(c, "sse.") {
				Expect(claimed).To(HaveKey(c), "no mcp rule claims the check %s", c)
			}
		}
	})

	It("leaves every check of the HTTP transports' client role to mcp-client, which claims each", func() {
		client, err := protocols.Load("mcp-client")
		Expect(err).NotTo(HaveOccurred())
		claimed := map[string]bool{}
		for _, r := range client.Protocol.Rules {
			for _, c := range r.Checks {
				claimed[c] = true
			}
		}
		n := 0
		for c := range verdict.Checks {
			if strings.HasPrefix(c, "client-http.") {
				n++
				Expect(claimed).To(HaveKey(c), "no mcp-client rule claims the check %s", c)
			}
		}
		Expect(n).To(BeNumerically(">", 0))
	})

	It("refuses a transport it does not offer", func() {
		_, err := b.Protocol.ForTransport("websocket")
		Expect(err).To(MatchError(ContainSubstring(`protocol mcp has no transport "websocket"`)))
	})

	It("holds every rule on a transport it lists", func() {
		for _, r := range b.Protocol.Rules {
			for _, tr := range r.Transports {
				Expect(b.Protocol.Transports).To(ContainElement(tr), "rule %s", r.ID)
			}
		}
	})
})
