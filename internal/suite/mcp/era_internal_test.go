package mcp

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("which server the Earlier Streamable HTTP Revisions sentences judge (2026-07-28)", func() {
	discovered := func(versions string) string {
		return notModernOnly(frame(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":`+versions+`,"capabilities":{}}}`), "2026-07-28")
	}

	It("judges a server that lists 2026-07-28 alone", func() {
		Expect(discovered(`["2026-07-28"]`)).To(BeEmpty())
	})

	It("skips a dual-era server, naming what else it lists, and one whose revisions cannot be read", func() {
		Expect(discovered(`["2025-03-26","2026-07-28"]`)).To(ContainSubstring("lists 2025-03-26 besides 2026-07-28"))
		Expect(discovered(`[]`)).To(ContainSubstring("named no supportedVersions"))
	})
})
