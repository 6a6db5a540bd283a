package toolhost

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
)

var _ = Describe("reading a tool schema", func() {
	DescribeTable("accepts the shapes hosts use",
		func(entry any, name string) {
			got, s, prob := parseTool(entry)
			Expect(prob).To(BeEmpty())
			Expect(got).To(Equal(name))
			Expect(s).NotTo(BeNil())
		},
		Entry("OpenAI function style", map[string]any{"name": "echo", "description": "d",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}, "echo"),
		Entry("the chat-completions wrapper", map[string]any{"type": "function",
			"function": map[string]any{"name": "echo", "parameters": map[string]any{"type": "object"}}}, "echo"),
		Entry("input_schema", map[string]any{"name": "echo", "input_schema": map[string]any{"type": "object"}}, "echo"),
		Entry("inputSchema", map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}, "echo"),
		Entry("no argument schema: any object", map[string]any{"name": "ping"}, "ping"),
		Entry("a schema without a type", map[string]any{"name": "echo", "parameters": map[string]any{"properties": map[string]any{}}}, "echo"),
	)

	DescribeTable("says what is wrong with the others",
		func(entry any, name, want string) {
			got, _, prob := parseTool(entry)
			Expect(got).To(Equal(name))
			Expect(prob).To(ContainSubstring(want))
		},
		Entry("not an object", "echo", "", "not an object"),
		Entry("no name", map[string]any{"parameters": map[string]any{"type": "object"}}, "", "names no tool"),
		Entry("a wrapper without a name", map[string]any{"type": "function", "function": map[string]any{}}, "", "names no tool"),
		Entry("parameters a string", map[string]any{"name": "echo", "parameters": "object"}, "echo", "parameters is not a JSON Schema object"),
		Entry("parameters not a valid schema", map[string]any{"name": "echo", "parameters": map[string]any{"type": 12}}, "echo", "not a valid JSON Schema"),
		Entry("parameters for a string", map[string]any{"name": "echo", "input_schema": map[string]any{"type": "string"}}, "echo", "does not describe an object"),
	)
})

var _ = Describe("recognising an answer that says a tool is unknown (TOOLHOST-EXEC-2)", func() {
	answer := func(frame string) *peer.Inbound {
		v, err := schema.Decode([]byte(frame))
		Expect(err).NotTo(HaveOccurred())
		return &peer.Inbound{Raw: []byte(frame), Value: v}
	}
	DescribeTable("reads the error type and words hosts use",
		func(frame string, unknown bool) {
			if unknown {
				Expect(unknownTool(answer(frame))).NotTo(BeEmpty())
			} else {
				Expect(unknownTool(answer(frame))).To(BeEmpty())
			}
		},
		Entry("ToolNotFound", `{"ok":false,"error":{"type":"ToolNotFound","detail":"x"}}`, true),
		Entry("UnknownToolError", `{"ok":false,"error":{"type":"UnknownToolError","detail":"x"}}`, true),
		Entry("Unknown tool 'x'", `{"ok":false,"error":{"type":"Error","detail":"Unknown tool 'ghost'"}}`, true),
		Entry("Tool 'x' not found", `{"ok":false,"error":{"type":"Error","detail":"Tool 'ghost' not found"}}`, true),
		Entry("success false: no such tool", `{"ok":true,"result":{"value":{"success":false,"error":"no such tool: ghost"}}}`, true),
		Entry("a tool's own file not found", `{"ok":false,"error":{"type":"Error","detail":"read_file: file not found"}}`, false),
		Entry("a tool's own failure", `{"ok":true,"result":{"value":{"success":false,"error":"simulated failure"}}}`, false),
		Entry("a success", `{"ok":true,"result":{"value":{"success":true,"result":1}}}`, false),
	)
})
