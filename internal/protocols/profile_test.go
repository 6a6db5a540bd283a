package protocols_test

import (
	"io/fs"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fixtures"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

// overlay is the embedded tree with extra files on top.
func overlay(base fs.FS, extra map[string]string) fs.FS {
	m := fstest.MapFS{}
	Expect(fs.WalkDir(base, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(base, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})).To(Succeed())
	for p, s := range extra {
		m[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

const profileSpec = `id: probe-hub
title: a test profile of MCP
source: 003_338db25ca6e03dcb.txt
base: mcp
revision: "2025-03-26"
transports: [http, sse]
endpoints: {http: /hub/mcp}
kinds:
  - {name: hub answer, role: response, schema: hub.json}
rules:
  - id: HUB-TOOLS-1
    level: MUST
    title: the hub lists its tools
    section: Available tools
    quote: "Call tools/list to discover available tools."
faults:
  - {name: no-hub-tools, does: "lists no tools", trips: [HUB-TOOLS-1], transport: http}
`

var _ = Describe("a profile (spec base:)", func() {
	var remove func()
	own := []*scenario.Scenario{{Name: "hub-only"}}
	BeforeEach(func() {
		remove = protocols.WithTestModule("probe-hub", func() []*scenario.Scenario { return own })
		DeferCleanup(func() { remove() })
	})

	load := func(specText string) (*protocols.Bundle, error) {
		return protocols.LoadFrom("probe-hub",
			overlay(specs.FS, map[string]string{"probe-hub.yaml": specText}),
			overlay(schemas.FS, map[string]string{"probe-hub/hub.json": `{"type": "object"}`}),
			fixtures.FS)
	}

	It("has its base's rules and its own, and only its own faults and variants", func() {
		b, err := load(profileSpec)
		Expect(err).NotTo(HaveOccurred())
		mcp, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Protocol.Rules).To(HaveLen(len(mcp.Protocol.Rules) + 1))
		Expect(b.Protocol.Rule("MCP-LIFECYCLE-1")).NotTo(BeNil())
		Expect(b.Protocol.Rule("HUB-TOOLS-1")).NotTo(BeNil())
		Expect(b.Protocol.Faults).To(HaveLen(1))
		Expect(b.Protocol.Variants).To(BeEmpty())
		Expect(b.Protocol.Probe).To(Equal(mcp.Protocol.Probe))
		Expect(b.Protocol.Fuzz).NotTo(BeNil())
	})

	It("runs its base's scenarios, then its own, with its base's handler", func() {
		b, err := load(profileSpec)
		Expect(err).NotTo(HaveOccurred())
		mcp, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Scenarios).To(HaveLen(len(mcp.Scenarios) + 1))
		Expect(b.Scenarios[len(b.Scenarios)-1].Name).To(Equal("hub-only"))
		Expect(b.Handler).NotTo(BeNil())
	})

	It("defaults to its own revision and leaves its base's untouched", func() {
		b, err := load(profileSpec)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.DefaultRevision()).To(Equal("2025-03-26"))
		mcp, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(mcp.DefaultRevision()).To(Equal("2025-06-18"))
	})

	It("finds a schema file in its own folder or in its base's", func() {
		b, err := load(profileSpec)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Schemas.Get("hub.json")).NotTo(BeNil())
		Expect(b.Schemas.Path("hub.json")).To(Equal("schemas/probe-hub/hub.json"))
		Expect(b.Schemas.Path("2024-11-05/schema.json")).To(Equal("schemas/mcp/2024-11-05/schema.json"))
	})

	It("names its endpoint paths, the usual ones where it names none", func() {
		b, err := load(profileSpec)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Protocol.Endpoint("http")).To(Equal("/hub/mcp"))
		Expect(b.Protocol.Endpoint("sse")).To(Equal("/sse"))
	})

	DescribeTable("refuses a broken profile, naming the file",
		func(from, to, want string) {
			_, err := load(replace(profileSpec, from, to))
			Expect(err).To(MatchError(And(ContainSubstring("specs/probe-hub.yaml"), ContainSubstring(want))))
		},
		Entry("a revision its base lacks", `revision: "2025-03-26"`, `revision: "1999-01-01"`, `revision "1999-01-01" is not one of`),
		Entry("an endpoint for stdio", `endpoints: {http: /hub/mcp}`, `endpoints: {stdio: /x}`, `endpoints: "stdio" is not an HTTP transport`),
		Entry("an endpoint not a path", `endpoints: {http: /hub/mcp}`, `endpoints: {http: hub}`, `must start with /`),
		Entry("an unknown base", `base: mcp`, `base: nope`, `base "nope"`),
	)
})

func replace(s, from, to string) string {
	Expect(s).To(ContainSubstring(from))
	return strings.Replace(s, from, to, 1)
}
