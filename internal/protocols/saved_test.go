package protocols_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

var _ = Describe("saved scenario files to replay", func() {
	saved := func(files ...string) []*scenario.Saved {
		dir := GinkgoT().TempDir()
		var names []string
		for i, body := range files {
			name := filepath.Join(dir, string(rune('a'+i))+".yaml")
			Expect(os.WriteFile(name, []byte(body+"rules: [MCP-STDIO-3]\nfresh: true\n"+
				"steps:\n  - send: {jsonrpc: \"2.0\", id: f1, method: ping}\n    as: r1\n  - expect: r1\n"), 0o644)).To(Succeed())
			names = append(names, name)
		}
		out, err := scenario.ReadSaved(names)
		Expect(err).NotTo(HaveOccurred())
		return out
	}

	It("are replayed by --protocol, else by the protocol the first file names, and refused by name when none is known", func() {
		sv := saved("protocol: mcp\n", "")
		Expect(protocols.ProtocolOf(sv, "")).To(Equal("mcp"))
		Expect(protocols.ProtocolOf(sv, "tool-host")).To(Equal("tool-host"))
		sv = saved("", "protocol: mcp\n")
		_, err := protocols.ProtocolOf(sv, "")
		Expect(err).To(MatchError(sv[0].File + ": the file names no protocol; give --protocol"))
	})

	It("are parsed in the revision they carry, the flags' winning, and refused by file for an unknown one", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		sv := saved("protocol: mcp\nparams: {mcp-version: \"2024-11-05\"}\n")
		p, params, scs, err := b.ParseSaved(sv, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Version).To(Equal("2024-11-05"))
		Expect(params).To(Equal(map[string]string{"mcp-version": "2024-11-05"}))
		Expect(scs).To(HaveLen(1))
		Expect(scs[0].File).To(Equal(sv[0].File))
		p, _, _, err = b.ParseSaved(sv, map[string]string{"mcp-version": "2025-06-18"})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Version).To(Equal("2025-06-18"))
		bogus := saved("protocol: mcp\nparams: {mcp-version: \"2099-01-01\"}\n")
		_, _, _, err = b.ParseSaved(bogus, nil)
		Expect(err).To(MatchError(HavePrefix(bogus[0].File + `: protocol mcp has no version "2099-01-01"`)))
	})
})
