package protocols_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("a command's settings (--revision, --param)", func() {
	mcp, err := protocols.Load("mcp")
	sonde, err2 := protocols.Load("sonde-serve")

	BeforeEach(func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(err2).NotTo(HaveOccurred())
	})

	It("takes the revision from --revision or from --param under the protocol's key, --revision first", func() {
		s, err := mcp.Settings("", []string{"mcp-version=2024-11-05", "x=1"}, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Revision).To(Equal("2024-11-05"))
		Expect(s.Protocol.Version).To(Equal("2024-11-05"))
		Expect(s.Params).To(Equal(map[string]string{"mcp-version": "2024-11-05", "x": "1"}))
		Expect(s.Rest).To(Equal([]string{"x=1"}))
		s, err = mcp.Settings("2025-11-25", []string{"mcp-version=2024-11-05"}, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Revision).To(Equal("2025-11-25"))
		Expect(s.Params).To(Equal(map[string]string{"mcp-version": "2025-11-25"}))
		Expect(s.Rest).To(BeEmpty())
	})

	It("keeps every value of a key given more than once, one per line, for the settings that take several (skip-tool)", func() {
		s, err := mcp.Settings("", []string{"skip-tool=a", "x=1", "skip-tool=b"}, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Params).To(Equal(map[string]string{"skip-tool": "a\nb", "x": "1"}))
		Expect(s.Rest).To(Equal([]string{"skip-tool=a", "x=1", "skip-tool=b"}), "a rerun line repeats them as given")
	})

	It("is the default revision when none is asked", func() {
		s, err := mcp.Settings("", nil, "fuzz")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Protocol.Version).To(Equal(mcp.DefaultRevision()))
		Expect(s.Params).To(BeEmpty())
	})

	It("refuses a malformed --param, a revision of a protocol without them, another setting where only the revision is taken, and an unknown revision", func() {
		_, err := mcp.Settings("", []string{"novalue"}, "")
		Expect(err).To(MatchError(`--param "novalue": want KEY=VALUE`))
		_, err = sonde.Settings("2025-06-18", nil, "")
		Expect(err).To(MatchError("--revision 2025-06-18: protocol sonde-serve has no revisions to choose from"))
		_, err = sonde.Settings("", []string{"x=1"}, "validate")
		Expect(err).To(MatchError("--param x: protocol sonde-serve has no revisions to choose from"))
		_, err = mcp.Settings("", []string{"x=1"}, "validate")
		Expect(err).To(MatchError("--param x: validate takes only --param mcp-version=V or --revision V (the revision to judge by)"))
		_, err = mcp.Settings("1999-01-01", nil, "")
		Expect(err).To(MatchError(ContainSubstring(`no version "1999-01-01"`)))
	})

	It("names the file a revision came from when it is unknown", func() {
		p, err := mcp.ForParams(map[string]string{"mcp-version": "2024-11-05"}, "a.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Version).To(Equal("2024-11-05"))
		_, err = mcp.ForParams(map[string]string{"mcp-version": "1999-01-01"}, "a.yaml")
		Expect(err).To(MatchError(HavePrefix(`a.yaml: `)))
	})
})

var _ = Describe("the protocol --protocol picks", func() {
	It("is loaded, and required", func() {
		b, err := protocols.Pick("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Protocol.ID).To(Equal("sonde-serve"))
		_, err = protocols.Pick("")
		Expect(err).To(MatchError("--protocol is required (one of: " + strings.Join(protocols.IDs(), ", ") + ")"))
		_, err = protocols.Pick("nope")
		Expect(err).To(MatchError(HavePrefix(`unknown protocol "nope"`)))
	})
})
