package mcpheader_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
)

func schema(s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	Expect(d.Decode(&v)).To(Succeed())
	return v
}

var _ = Describe("x-mcp-header annotations", func() {
	It("reads valid annotations with their property paths, nested objects included", func() {
		ps, err := mcpheader.Params(schema(`{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"query":{"type":"string"},
			"opts":{"type":"object","properties":{"dry":{"type":["boolean","null"],"x-mcp-header":"Dry-Run"}}}}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(ps).To(ConsistOf(
			mcpheader.Param{Name: "Region", Path: []string{"region"}},
			mcpheader.Param{Name: "Dry-Run", Path: []string{"opts", "dry"}}))
		Expect(ps[0].Header()).To(HavePrefix("Mcp-Param-"))
	})

	DescribeTable("rejects a tool definition the text forbids",
		func(s, why string) {
			_, err := mcpheader.Params(schema(s))
			Expect(err).To(MatchError(ContainSubstring(why)))
		},
		Entry("empty", `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, "is empty"),
		Entry("not a token", `{"properties":{"a":{"type":"string","x-mcp-header":"a b"}}}`, "not an HTTP field-name token"),
		Entry("a control character", `{"properties":{"a":{"type":"string","x-mcp-header":"a\r\nX-Evil: 1"}}}`, "not an HTTP field-name token"),
		Entry("not a string", `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`, "not a string"),
		Entry("repeated in another case", `{"properties":{"a":{"type":"string","x-mcp-header":"Zone"},"b":{"type":"string","x-mcp-header":"zone"}}}`, "repeats"),
		Entry("a number", `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, `type "number"`),
		Entry("an object", `{"properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, `type "object"`),
		Entry("under items", `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "statically reachable"),
		Entry("under anyOf", `{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "statically reachable"),
		Entry("under $defs", `{"$defs":{"a":{"type":"string","x-mcp-header":"A"}}}`, "statically reachable"),
		Entry("on the root", `{"type":"object","x-mcp-header":"A"}`, "statically reachable"),
	)

	It("takes a tool without annotations as valid, with none", func() {
		ps, err := mcpheader.Params(schema(`{"type":"object","properties":{"a":{"type":"string"}}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(ps).To(BeEmpty())
	})
})

var _ = Describe("header values", func() {
	// The examples of streamable-http.mdx § Value Encoding.
	DescribeTable("encode as Value Encoding's table says, and decode back",
		func(v, header string) {
			Expect(mcpheader.Encode(v)).To(Equal(header))
			d, ok := mcpheader.Decode(header)
			Expect(ok).To(BeTrue())
			Expect(d).To(Equal(v))
		},
		Entry("plain ASCII", "us-west1", "us-west1"),
		Entry("non-ASCII", "Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
		Entry("leading and trailing spaces", " padded ", "=?base64?IHBhZGRlZCA=?="),
		Entry("a newline", "line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
		Entry("the sentinel pattern", "=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
	)

	DescribeTable("a value a header with no encoding (Mcp-Method) carries as it is",
		func(v string, literal bool) { Expect(mcpheader.Literal(v)).To(Equal(literal)) },
		Entry("a method", "tools/call", true),
		Entry("inner space and tab", "a b\tc", true),
		Entry("the sentinel pattern: literal text there", "=?base64?x?=", true),
		Entry("a newline", "fa2a\nkh", false),
		Entry("a control character", "x\x01", false),
		Entry("DEL", "x\x7f", false),
		Entry("non-ASCII", "tööls", false),
		Entry("a leading space", " x", false),
		Entry("a trailing tab", "x\t", false),
	)

	It("says a sentinel whose Base64 is broken does not decode", func() {
		_, ok := mcpheader.Decode("=?base64?***?=")
		Expect(ok).To(BeFalse())
	})

	It("takes an argument's value at its path: strings, integers in decimal, booleans in lower case; null or absent: no header", func() {
		args := schema(`{"s":"x","n":42.0,"big":1e2,"b":false,"nil":null,"o":{"d":true}}`)
		value := func(path ...string) any {
			v, ok := mcpheader.Param{Name: "X", Path: path}.Value(args)
			if !ok {
				return nil
			}
			return v
		}
		Expect(value("s")).To(Equal("x"))
		Expect(value("n")).To(Equal("42"))
		Expect(value("big")).To(Equal("100"))
		Expect(value("b")).To(Equal("false"))
		Expect(value("o", "d")).To(Equal("true"))
		Expect(value("nil")).To(BeNil())
		Expect(value("missing")).To(BeNil())
		Expect(value("s", "deeper")).To(BeNil())
	})
})

var _ = Describe("the request a header mirrors", func() {
	It("takes Mcp-Name from params.taskId on the tasks extension's methods, from params.name or params.uri elsewhere", func() {
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			r, ok := mcpheader.Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":{"taskId":"task-7"}}`))
			Expect(ok).To(BeTrue())
			Expect(r.NameRequired()).To(BeTrue(), m)
			Expect(r.HasName).To(BeTrue(), m)
			Expect(r.Name).To(Equal("task-7"), m)
		}
		r, _ := mcpheader.Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a","taskId":"x"}}`))
		Expect(r.Name).To(Equal("file:///a"))
		r, _ = mcpheader.Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		Expect(r.NameRequired()).To(BeFalse())
	})
})
