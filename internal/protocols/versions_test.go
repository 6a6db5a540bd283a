package protocols_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fixtures"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

var _ = Describe("a versioned protocol (mcp)", func() {
	b, err := protocols.Load("mcp")

	It("loads resolved for its default revision", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Protocol.Version).To(Equal(b.Protocol.Versions.Default))
		k := b.Protocol.Kind("initialize result")
		Expect(k.Schema).To(Equal("2025-06-18/schema.json#/definitions/InitializeResult"))
		Expect(k.At).To(Equal("/result"))
	})

	It("resolves every revision's schema references to compiled definitions, draft-07 and 2020-12 alike", func() {
		for _, v := range b.Protocol.Versions.IDs() {
			p, err := b.Protocol.ForVersion(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Version).To(Equal(v))
			for _, ref := range p.SchemaRefs() {
				Expect(ref).NotTo(ContainSubstring("{"), "unexpanded template in %s", v)
				Expect(b.Schemas.Get(ref)).NotTo(BeNil(), "%s: %s does not compile", v, ref)
			}
		}
		p, _ := b.Protocol.ForVersion("2025-11-25")
		// The revision's error response, or one echoing an id of another type.
		Expect(p.Kind("error response").Schema).To(Equal("wirecheck/error-response-2025-11-25.json"))
		modern, _ := b.Protocol.ForVersion("2026-07-28")
		Expect(modern.Kind("initialize result")).To(BeNil())
		Expect(modern.Kind("server/discover result").Schema).To(Equal("2026-07-28/schema.json#/$defs/DiscoverResult"))
	})

	It("falls back to initialize against a server without server/discover (2026-07-28): DISCOVER-1 fails, nothing errors, the report says which revision to rerun with", func() {
		rep, err := runAgainst("mcp", "no-discover")
		Expect(err).NotTo(HaveOccurred())
		Expect(broken(rep)).To(Equal([]string{"MCP-DISCOVER-1"}))
		Expect(rep.Notes).To(ContainElement(ContainSubstring("rerun with --revision 2025-11-25")))
		passed := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Pass {
				passed[f.Rule] = true
			}
		}
		// The fallback session is judged by 2025-11-25: its initialize
		// result and the features behind it.
		Expect(passed).To(HaveKey("MCP-LIFECYCLE-2"))
		Expect(passed).To(HaveKey("MCP-TOOLS-5"))
		Expect(passed).To(HaveKey("MCP-RESOURCES-6"))
	})

	It("drops kinds of other revisions and keeps rules, marking where they apply", func() {
		old, err := b.Protocol.ForVersion("2024-11-05")
		Expect(err).NotTo(HaveOccurred())
		Expect(old.Kind("elicitation/create request")).To(BeNil())
		Expect(old.Kind("batch response")).To(BeNil())
		Expect(old.Rule("MCP-JSONRPC-10").AppliesTo("2024-11-05")).To(BeFalse())
		mid, _ := b.Protocol.ForVersion("2025-03-26")
		Expect(mid.Kind("batch response")).NotTo(BeNil())
		Expect(mid.Rule("MCP-JSONRPC-10").AppliesTo("2025-03-26")).To(BeTrue())
		Expect(len(old.Rules)).To(Equal(len(b.Protocol.Rules)))
		Expect(old.RulesForCheck("ndjson.json")).To(HaveLen(1))
	})

	It("resolves the fuzz model per revision: initialize asks for it, 2026-07-28 starts with server/discover and puts _meta in every request", func() {
		for _, v := range []string{"2024-11-05", "2025-11-25"} {
			p, err := b.Protocol.ForVersion(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Fuzz.Request).To(Equal(p.Kind("request").Schema), "the revision's JSONRPCRequest")
			Expect(p.Fuzz.Setup[0]).To(HaveKeyWithValue("method", "initialize"))
			Expect(p.Fuzz.Setup[0]["params"]).To(HaveKeyWithValue("protocolVersion", v))
			Expect(p.Fuzz.Params).To(BeEmpty())
		}
		Expect(b.Protocol.Fuzz.Setup[0]["params"]).To(HaveKeyWithValue("protocolVersion", "2025-06-18"), "the default, as loaded")
		modern, _ := b.Protocol.ForVersion("2026-07-28")
		Expect(modern.Fuzz.Request).To(Equal("2026-07-28/schema.json#/$defs/JSONRPCRequest"))
		Expect(modern.Fuzz.Setup).To(HaveLen(1))
		Expect(modern.Fuzz.Setup[0]).To(HaveKeyWithValue("method", "server/discover"))
		Expect(modern.Fuzz.Params["_meta"]).To(HaveKeyWithValue("io.modelcontextprotocol/protocolVersion", "2026-07-28"))
		Expect(modern.Fuzz.Tools.Next.From).To(Equal("/result/nextCursor"))
		// Resolving one revision leaves the others' templates alone.
		again, _ := b.Protocol.ForVersion("2024-11-05")
		Expect(again.Fuzz.Setup[0]["params"]).To(HaveKeyWithValue("protocolVersion", "2024-11-05"))
	})

	It("asks whether the server still answers with ping, and with server/discover carrying its _meta in 2026-07-28 (which has no ping)", func() {
		for _, v := range []string{"2024-11-05", "2025-11-25"} {
			p, err := b.Protocol.ForVersion(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Probe).To(HaveKeyWithValue("method", "ping"))
		}
		modern, err := b.Protocol.ForVersion("2026-07-28")
		Expect(err).NotTo(HaveOccurred())
		Expect(modern.Probe).To(HaveKeyWithValue("method", "server/discover"))
		params, _ := modern.Probe["params"].(map[string]any)
		Expect(params["_meta"]).To(HaveKeyWithValue("io.modelcontextprotocol/protocolVersion", "2026-07-28"))
		again, _ := b.Protocol.ForVersion("2025-06-18")
		Expect(again.Probe).To(HaveKeyWithValue("method", "ping"), "resolving one revision leaves the others alone")
	})

	It("refuses an unknown revision, naming the known ones", func() {
		_, err := b.Protocol.ForVersion("2099-01-01")
		Expect(err).To(MatchError(ContainSubstring(`no version "2099-01-01" (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`)))
	})

	It("validates official examples: a draft-07 and a 2020-12 definition reached by fragment", func() {
		v07 := b.Schemas.Get("2024-11-05/schema.json#/definitions/Tool")
		Expect(v07.Validate(map[string]any{"name": "x", "inputSchema": map[string]any{"type": "object"}})).To(Succeed())
		Expect(v07.Validate(map[string]any{"name": "x"})).NotTo(Succeed())
		v20 := b.Schemas.Get("2025-11-25/schema.json#/$defs/Tool")
		Expect(v20.Validate(map[string]any{"name": "x", "inputSchema": map[string]any{"type": "object"}})).To(Succeed())
		Expect(b.Schemas.Get("2025-11-25/schema.json#/$defs/NoSuchThing")).To(BeNil())
		Expect(b.Schemas.Check("2025-11-25/schema.json#/$defs/NoSuchThing")).NotTo(BeEmpty())
	})

	DescribeTable("a broken versions block is rejected with what is wrong",
		func(edit func(string) string, want string) {
			good, _ := fs.ReadFile(specs.FS, "mcp.yaml")
			spec := fstest.MapFS{"mcp.yaml": &fstest.MapFile{Data: []byte(edit(string(good)))}}
			_, err := protocols.LoadFrom("mcp", spec, schemas.FS, fixtures.FS)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("default not in the list", func(s string) string {
			return strings.Replace(s, `default: "2025-06-18"`, `default: "2025-06-19"`, 1)
		}, `versions: default "2025-06-19" is not in the list`),
		Entry("a kind naming an unknown revision", func(s string) string {
			return strings.Replace(s, `versions: ["2025-03-26"]
    when: [{path: /0`, `versions: ["2025-03-27"]
    when: [{path: /0`, 1)
		}, `kind "batch response": version "2025-03-27" is not in the spec's versions list`),
		Entry("a template expanding to a missing file", func(s string) string {
			return strings.Replace(s, `"2024-11-05/schema.json#/definitions"`, `"2024-11-06/schema.json#/definitions"`, 1)
		}, `version 2024-11-05: schema "2024-11-06/schema.json" not found in schemas/mcp/`),
		Entry("a fuzz override of an unknown revision", func(s string) string {
			return strings.Replace(s, `per_version:
    "2026-07-28":`, `per_version:
    "2026-07-29":`, 1)
		}, `fuzz per_version "2026-07-29": not in the spec's versions list`),
		Entry("a fuzz override's notify step that does not stand alone", func(s string) string {
			return strings.Replace(s, `        - {jsonrpc: "2.0", method: server/discover}`,
				`        - {jsonrpc: "2.0", method: server/discover}
        - {notify: {jsonrpc: "2.0", method: x}, also: 1}`, 1)
		}, `fuzz per_version 2026-07-28 setup step 2: notify takes a message`),
		Entry("a fuzz cursor that is no pointer", func(s string) string {
			return strings.Replace(s, `next: {from: /result/nextCursor`, `next: {from: result/nextCursor`, 1)
		}, `fuzz tools next: from and to are JSON pointers`),
		Entry("a definition no revision has", func(s string) string {
			return strings.Replace(s, `"{defs}/InitializeResult"`, `"{defs}/InitialiseResult"`, 1)
		}, `InitialiseResult`),
	)
})

var _ = Describe("the official MCP examples", func() {
	It("validate against the 2026-07-28 definition they illustrate, reached through wirecheck's registry", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		root := filepath.Join("..", "..", "..", "shared", "reference", "mcp", "2026-07-28", "examples")
		dirs, err := os.ReadDir(root)
		if err != nil {
			Skip("the reference copy of the MCP examples is not beside the repository: " + err.Error())
		}
		n := 0
		for _, d := range dirs {
			s := b.Schemas.Get("2026-07-28/schema.json#/$defs/" + d.Name())
			if s == nil {
				continue
			}
			files, _ := os.ReadDir(filepath.Join(root, d.Name()))
			for _, f := range files {
				raw, err := os.ReadFile(filepath.Join(root, d.Name(), f.Name()))
				Expect(err).NotTo(HaveOccurred())
				v, err := schema.Decode(raw)
				Expect(err).NotTo(HaveOccurred(), f.Name())
				Expect(s.Validate(v)).To(Succeed(), "%s/%s", d.Name(), f.Name())
				n++
			}
		}
		Expect(n).To(BeNumerically(">", 50))
	})
})
