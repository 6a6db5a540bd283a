package protocols_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/schema"
)

// MCP-AUTH-8 judges a protected resource metadata document (RFC 9728)
// by schemas/mcp/wirecheck/protected-resource-metadata.json: the fields
// MCP and RFC 9728 require, and nothing more.
var _ = Describe("the protected resource metadata schema", func() {
	b, err := protocols.Load("mcp")
	It("loads", func() { Expect(err).NotTo(HaveOccurred()) })
	if err != nil {
		return
	}
	DescribeTable("judges a document",
		func(doc string, ok bool) {
			s := b.Schemas.Get("wirecheck/protected-resource-metadata.json")
			Expect(s).NotTo(BeNil())
			v, err := schema.Decode([]byte(doc))
			Expect(err).NotTo(HaveOccurred())
			if ok {
				Expect(s.Validate(v)).To(Succeed())
			} else {
				Expect(s.Validate(v)).NotTo(Succeed())
			}
		},
		Entry("with its resource and one authorization server",
			`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"]}`, true),
		Entry("with several servers and the other RFC 9728 fields, and an extension",
			`{"resource":"https://mcp.example.com","authorization_servers":["https://a.example.com","https://b.example.com"],"scopes_supported":["mcp"],"bearer_methods_supported":["header"],"resource_name":"Example","jwks_uri":"https://mcp.example.com/jwks","com.example/extra":{"x":1}}`, true),
		Entry("without authorization_servers", `{"resource":"https://mcp.example.com/mcp"}`, false),
		Entry("with no authorization server", `{"resource":"https://mcp.example.com/mcp","authorization_servers":[]}`, false),
		Entry("with an authorization server that is no string", `{"resource":"https://mcp.example.com/mcp","authorization_servers":[{"issuer":"https://auth.example.com"}]}`, false),
		Entry("with an empty authorization server", `{"resource":"https://mcp.example.com/mcp","authorization_servers":[""]}`, false),
		Entry("without resource", `{"authorization_servers":["https://auth.example.com"]}`, false),
		Entry("with a resource that is no string", `{"resource":["https://mcp.example.com"],"authorization_servers":["https://auth.example.com"]}`, false),
		Entry("that is no object", `["https://auth.example.com"]`, false),
	)
})
