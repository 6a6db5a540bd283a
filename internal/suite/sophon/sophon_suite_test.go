package sophon

import (
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSophonSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sophon scenarios Suite")
}

// decoded is a JSON text as the peer decodes frames (numbers as
// json.Number).
func decoded(s string) any {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	Expect(d.Decode(&v)).To(Succeed())
	return v
}

const documentedSchema = `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","agent","all"]},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}`

var _ = Describe("memory.search's inputSchema (SOPHON-TOOLS-1)", func() {
	DescribeTable("accepts the documented schema and more optional properties",
		func(s string) { Expect(schemaMismatch(decoded(s))).To(BeEmpty()) },
		Entry("as documented", documentedSchema),
		Entry("an optional since", `{"type":"object","properties":{"query":{"type":"string"},"since":{"type":"string"},"scope":{"type":"string","enum":["all","user","agent"]},"limit":{"type":"integer","minimum":1.0,"maximum":100}},"required":["query"]}`),
	)
	DescribeTable("says how a schema departs from the documented one",
		func(s, why string) { Expect(schemaMismatch(decoded(s))).To(ContainSubstring(why)) },
		Entry("query not required", `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","agent","all"]},"limit":{"type":"integer","minimum":1,"maximum":100}}}`, "does not require query"),
		Entry("limit required", `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","agent","all"]},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query","limit"]}`, "requires scope or limit"),
		Entry("a scope of other values", `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","team"]},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}`, "scope"),
		Entry("a limit to 50", `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","agent","all"]},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`, "limit"),
		Entry("a query number", `{"type":"object","properties":{"query":{"type":"number"}},"required":["query"]}`, "query"),
		Entry("no schema", `null`, "object"),
	)
})

var _ = Describe("the documented URI schemes (SOPHON-RES-1)", func() {
	DescribeTable("match",
		func(uri string, ok bool) { Expect(schemes.MatchString(uri)).To(Equal(ok)) },
		Entry(nil, "sophon://documents/doc_abc123", true),
		Entry(nil, "sophon://documents/", true),
		Entry(nil, "sophon://memory/mem_xyz789", true),
		Entry(nil, "sophon://memory/", true),
		Entry(nil, "sophon://agents/a1/SOUL.md", true),
		Entry(nil, "sophon://agents/a1/config", true),
		Entry(nil, "sophon://workflows/wf_1", true),
		Entry(nil, "sophon://agents/a1/notes", false),
		Entry(nil, "sophon://documents/a/b", false),
		Entry(nil, "wirecheck://items/1", false),
		Entry(nil, "https://sophon.example/documents/doc_abc123", false),
	)
})
