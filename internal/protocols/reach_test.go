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
