package mcp

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/schemas"
)

// frame decodes a frame as the peer does.
func frame(s string) *peer.Inbound {
	v, err := schema.Decode([]byte(s))
	Expect(err).NotTo(HaveOccurred())
	return &peer.Inbound{Raw: []byte(s), Value: v}
}

var _ = Describe("the retry of a multi round-trip request (2026-07-28)", func() {
	const asked = `{"jsonrpc":"2.0","id":"a","result":{"resultType":"input_required","requestState":"opaque \u00e9 state==",
		"inputRequests":{
			"who":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}},
			"llm":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":5}},
			"dirs":{"method":"roots/list"},
			"odd":{"method":"ping"}}}}`

	It("answers every inputRequests entry it can, by key, with results the 2026-07-28 schema accepts, and echoes requestState exactly", func() {
		orig := map[string]any{"name": "t", "arguments": map[string]any{"x": 1.0}, "requestState": "stale", "inputResponses": map[string]any{"old": 1}}
		p := retryParams(orig, frame(asked), true)
		Expect(p["requestState"]).To(Equal("opaque é state=="))
		Expect(p["name"]).To(Equal("t"))
		Expect(orig["requestState"]).To(Equal("stale"), "the original params are left as they were")
		rs, _ := p["inputResponses"].(map[string]any)
		Expect(rs).To(HaveKey("who"))
		Expect(rs).To(HaveKey("llm"))
		Expect(rs).To(HaveKey("dirs"))
		Expect(rs).NotTo(HaveKey("odd"))
		Expect(rs).NotTo(HaveKey("old"))
		Expect(rs["who"]).To(HaveKeyWithValue("action", "accept"))

		reg, err := schema.Compile(schemas.FS, "mcp")
		Expect(err).NotTo(HaveOccurred())
		s := reg.Get("2026-07-28/schema.json#/$defs/InputResponses")
		Expect(s).NotTo(BeNil())
		raw, _ := json.Marshal(rs)
		v, _ := schema.Decode(raw)
		Expect(s.Validate(v)).To(Succeed())
	})

	It("leaves requestState out when the server sent none, and inputResponses out when asked not to answer", func() {
		p := retryParams(map[string]any{"uri": "x://y", "requestState": "stale"},
			frame(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}`), true)
		Expect(p).NotTo(HaveKey("requestState"))
		Expect(p).To(HaveKey("inputResponses"))
		p = retryParams(map[string]any{"uri": "x://y"}, frame(asked), false)
		Expect(p).NotTo(HaveKey("inputResponses"))
		Expect(p).To(HaveKey("requestState"))
	})
})

var _ = Describe("the era of a server that answered server/discover (stdio backward compatibility)", func() {
	It("is legacy after no answer or any error but one the 2026-07-28 specification reserves", func() {
		_, legacy := legacyEra(nil)
		Expect(legacy).To(BeTrue())
		for _, code := range []string{"-32601", "-32602", "-32600", "-32000"} {
			_, legacy = legacyEra(frame(`{"jsonrpc":"2.0","id":1,"error":{"code":` + code + `,"message":"no"}}`))
			Expect(legacy).To(BeTrue(), code)
		}
		_, legacy = legacyEra(frame(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"]}}}`))
		Expect(legacy).To(BeFalse())
	})

	It("escapes _meta keys as JSON pointer tokens", func() {
		Expect(escape("io.modelcontextprotocol/subscriptionId")).To(Equal("io.modelcontextprotocol~1subscriptionId"))
		Expect(escape("a~b")).To(Equal("a~0b"))
	})
})
