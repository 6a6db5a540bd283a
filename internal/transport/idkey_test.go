package transport_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("the key of a JSON-RPC id (IDKey)", func() {
	It("is the id's JSON text, so a number and a string of the same digits differ", func() {
		Expect(transport.IDKey(json.Number("1"))).To(Equal("1"))
		Expect(transport.IDKey("1")).To(Equal(`"1"`))
		Expect(transport.IDKey(nil)).To(Equal("null"))
		Expect(transport.IDKey(json.Number("1.50"))).To(Equal("1.50"), "a decoded number keeps its text")
	})
})
