package mcp

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the value of a required prompt argument completion offers nothing for", func() {
	DescribeTable("an absolute URI where the declaration calls the argument a URI or URL, \"1\" otherwise",
		func(decl map[string]any, want string) { Expect(argFallback(decl)).To(Equal(want)) },
		Entry("a name in camel case", map[string]any{"name": "resourceUri", "description": "URI of the resource to embed"}, argURI),
		Entry("the description only", map[string]any{"name": "target", "description": "the page's URL"}, argURI),
		Entry("the title only", map[string]any{"name": "src", "title": "Source URI"}, argURI),
		Entry("a word that only contains uri", map[string]any{"name": "security", "description": "a level, during the call"}, "1"),
		Entry("a number", map[string]any{"name": "temperature", "description": "Temperature setting"}, "1"),
		Entry("no declaration to read", map[string]any{}, "1"),
	)
})
