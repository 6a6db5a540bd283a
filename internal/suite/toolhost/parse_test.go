package toolhost

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
