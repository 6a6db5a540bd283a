package mcp_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/suite/mcp"
)

// answer runs the handler on a request frame and decodes its answer.
func answer(frame string) map[string]any {
	v, err := schema.Decode([]byte(frame))
	Expect(err).NotTo(HaveOccurred())
	out := mcp.Handler(&peer.Inbound{Raw: []byte(frame), Value: v})
	var m map[string]any
	Expect(json.Unmarshal(out, &m)).To(Succeed())
	return m
}

var _ = Describe("the handler of requests an MCP server sends", func() {
	b, err := protocols.Load("mcp")

	// valid checks a result against the official schema of every revision
	// that defines it.
	valid := func(def string, v any) {
		Expect(err).NotTo(HaveOccurred())
		for _, ver := range []string{"2025-06-18/schema.json#/definitions/", "2025-11-25/schema.json#/$defs/"} {
			s := b.Schemas.Get(ver + def)
			Expect(s).NotTo(BeNil(), ver+def)
			raw, _ := json.Marshal(v)
			dv, _ := schema.Decode(raw)
			Expect(s.Validate(dv)).To(Succeed(), ver+def)
		}
	}

	It("answers ping with an empty result, echoing the id and its type", func() {
		m := answer(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		Expect(m["id"]).To(BeEquivalentTo(7))
		Expect(m["result"]).To(Equal(map[string]any{}))
	})

	It("lists one root", func() {
		m := answer(`{"jsonrpc":"2.0","id":"r","method":"roots/list"}`)
		valid("ListRootsResult", m["result"])
	})

	It("answers sampling with a valid CreateMessageResult", func() {
		m := answer(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`)
		valid("CreateMessageResult", m["result"])
	})

	It("accepts a form elicitation with a value for every property, defaults first", func() {
		m := answer(`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object",
			"properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":1},"ok":{"type":"boolean","default":true}}}}}`)
		r := m["result"].(map[string]any)
		Expect(r["action"]).To(Equal("accept"))
		c := r["content"].(map[string]any)
		Expect(c).To(HaveKey("name"))
		Expect(c).To(HaveKey("age"))
		Expect(c["ok"]).To(BeTrue())
		valid("ElicitResult", r)
	})

	It("declines a URL elicitation and a form it cannot read", func() {
		Expect(answer(`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"mode":"url","url":"https://x","message":"?"}}`)["result"]).
			To(Equal(map[string]any{"action": "decline"}))
		Expect(answer(`{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"message":"?"}}`)["result"]).
			To(Equal(map[string]any{"action": "decline"}))
	})

	It("answers any other method -32601", func() {
		m := answer(`{"jsonrpc":"2.0","id":5,"method":"tasks/get"}`)
		Expect(m["error"].(map[string]any)["code"]).To(BeEquivalentTo(-32601))
	})
})
