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
		Expect(protocols.Transports(b)).To(ContainElements("stdio", "http", "sse"))
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
