package layering_test

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/layering"
)

var _ = Describe("the engine names no protocol", func() {
	It("finds MCP and SSE as words or parts of one, and only there", func() {
		src := `// Package p is planted.
package p

import "example.test/internal/mcp/httpmcp" // the import path

// a comment about the SSE stream
var CheckSSEStream = "sse.stream"

var session, passes, assert, processes, Messenger = "session", "passes", "%ssetup", "addresses", 'x'

/* a block
that names Mcp-Session-Id
on its second line */
func NumCPU() int { return len(httpmcp.X) }

const ok = "the assertion passes in this session"
`
		leaks, err := layering.Leaks("planted.go", src)
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for _, l := range leaks {
			got = append(got, l.String())
		}
		Expect(got).To(ConsistOf(
			`planted.go:4: "example.test/internal/mcp/httpmcp"`,
			"planted.go:6: // a comment about the SSE stream",
			"planted.go:7: CheckSSEStream",
			`planted.go:7: "sse.stream"`,
			"planted.go:12: that names Mcp-Session-Id",
			"planted.go:14: httpmcp",
		))
	})

	DescribeTable("names a protocol in a word or a part of one",
		func(text string, want bool) { Expect(layering.Names(text)).To(Equal(want)) },
		Entry(nil, "httpmcp", true),
		Entry(nil, "mcpheader", true),
		Entry(nil, "MCPHeader", true),
		Entry(nil, "CheckSSEEndpoint", true),
		Entry(nil, "legacy HTTP+SSE", true),
		Entry(nil, "MCP-SSE-2", true),
		Entry(nil, "legacySSE", true),
		Entry(nil, "--mcp-version", true),
		Entry(nil, "assert", false),
		Entry(nil, "passes", false),
		Entry(nil, "sessions", false),
		Entry(nil, "Messenger", false),
		Entry(nil, "runtime.NumCPU", false),
		Entry(nil, "%ssetup", false),
		Entry(nil, "HTTP", false),
	)

	It("finds none in the engine's packages", func() {
		var found []string
		for _, p := range layering.Engine {
			leaks, err := layering.Dir(filepath.Join("..", p))
			Expect(err).NotTo(HaveOccurred())
			for _, l := range leaks {
				found = append(found, l.String())
			}
		}
		Expect(found).To(BeEmpty(), "protocol names in the engine (move them to the protocol's module):\n%s", strings.Join(found, "\n"))
	})
})
