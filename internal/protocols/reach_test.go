package protocols_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("reaching a server (Reach)", func() {
	b, err := protocols.Load("sonde-serve")

	It("accepts stdio, the one transport of the built-in protocols", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(protocols.Reach{Transport: "stdio"}.Check(b)).To(Succeed())
	})

	It("refuses a URL, another transport and headers, naming the flag", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(protocols.Reach{Transport: "stdio", URL: "http://127.0.0.1:1/"}.Check(b)).To(MatchError(
			"--url: protocol sonde-serve is reached over stdio only; launch the server with '-- CMD [ARGS…]'"))
		Expect(protocols.Reach{Transport: "http"}.Check(b)).To(MatchError(`--transport "http": protocol sonde-serve supports stdio`))
		Expect(protocols.Reach{Transport: "stdio", Headers: []string{"A: b"}}.Check(b)).To(MatchError(
			"--header applies to HTTP transports only; this run uses stdio"))
	})
})

var _ = Describe("reaching an MCP server (Reach)", func() {
	b, err := protocols.Load("mcp")

	It("accepts a URL, the HTTP transports and headers", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Protocol.Transports).To(ContainElements("stdio", "http", "sse"), "specs/mcp.yaml declares them")
		Expect(protocols.Reach{URL: "http://127.0.0.1:1/mcp", Headers: []string{"A: b"}}.Check(b)).To(Succeed())
		Expect(protocols.Reach{Transport: "sse", URL: "http://127.0.0.1:1/sse"}.Check(b)).To(Succeed())
		Expect(protocols.Reach{Transport: "http"}.Check(b)).To(Succeed())
		Expect(protocols.Reach{}.Check(b)).To(Succeed())
	})

	It("refuses another transport, and headers over stdio", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(protocols.Reach{Transport: "ws"}.Check(b)).To(MatchError(`--transport "ws": protocol mcp supports stdio, http, sse`))
		Expect(protocols.Reach{Headers: []string{"A: b"}}.Check(b)).To(MatchError("--header applies to HTTP transports only; this run uses stdio"))
	})
})

var _ = Describe("reaching a server of a protocol with one transport (Reach.Default)", func() {
	It("takes that transport when none is named, by URL or launched, so the server is not asked which it speaks", func() {
		b, err := protocols.Load("mcp-authorization")
		Expect(err).NotTo(HaveOccurred())
		Expect(protocols.Reach{URL: "https://as.example/"}.Default(b)).To(Equal("http"))
		Expect(protocols.Reach{}.Default(b)).To(Equal("http"))
		Expect(protocols.Reach{URL: "https://as.example/"}.Check(b)).To(Succeed())
		Expect(protocols.Reach{}.Check(b)).To(Succeed(), "launched with -- CMD, no --transport")
		Expect(protocols.Reach{Transport: "stdio"}.Check(b)).To(MatchError(`--transport "stdio": protocol mcp-authorization supports http`))
	})

	It("leaves the choice to the target where the protocol offers several", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(protocols.Reach{URL: "http://127.0.0.1:1/mcp"}.Default(b)).To(BeEmpty())
	})
})
