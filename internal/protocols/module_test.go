package protocols_test

import (
	"bytes"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("a protocol module", func() {
	It("is found by its ID, and every ID listed has one", func() {
		for _, id := range protocols.IDs() {
			m, err := protocols.Lookup(id)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.ID()).To(Equal(id))
		}
		_, err := protocols.Lookup("nope")
		known := slices.Sorted(slices.Values(protocols.IDs()))
		Expect(known).To(ContainElements("agent-bridge", "mcp", "sonde-serve", "tool-host", "sonde-hub"))
		Expect(err).To(MatchError(ContainSubstring(`unknown protocol "nope" (known: ` + strings.Join(known, ", ") + ")")))
	})

	It("serves its reference server through the one Serve signature, for every protocol", func() {
		for _, id := range protocols.IDs() {
			m, err := protocols.Lookup(id)
			Expect(err).NotTo(HaveOccurred())
			var out, log bytes.Buffer
			// Nothing to read: each server ends at once, as on a closed stdin.
			code := m.Serve(protocols.ServeOptions{In: strings.NewReader(""), Out: &out, Log: &log, Dir: GinkgoT().TempDir()})
			Expect(code).To(Equal(0), "%s: %s", id, log.String())
		}
	})

	It("puts its Go scenarios and its handler in the bundle", func() {
		m, err := protocols.Lookup("mcp")
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Handler).NotTo(BeNil())
		Expect(m.Handler()).NotTo(BeNil())
		names := map[string]bool{}
		for _, s := range b.Scenarios {
			names[s.Name] = true
		}
		for _, s := range m.Scenarios() {
			Expect(names).To(HaveKey(s.Name))
		}
	})
})

var _ = Describe("the revision parameter", func() {
	It("lists a versioned protocol's revisions, its default and the setting that carries one", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Revisions()).To(ContainElements("2024-11-05", "2025-06-18", "2026-07-28"))
		Expect(b.Revisions()).To(Equal(b.Protocol.Versions.IDs()))
		Expect(b.DefaultRevision()).To(Equal("2025-06-18"))
		Expect(b.RevisionParam()).To(Equal("mcp-version"))
	})

	It("is empty for a protocol without revisions (Settings refuses a revision there)", func() {
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Revisions()).To(BeNil())
		Expect(b.DefaultRevision()).To(BeEmpty())
		Expect(b.RevisionParam()).To(BeEmpty())
	})
})
