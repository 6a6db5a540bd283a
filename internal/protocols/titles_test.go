package protocols_test

import (
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

// aLine is how a title speaks of stdio's unit of input; body of HTTP's.
var aLine, body = regexp.MustCompile(`\ba line\b`), regexp.MustCompile(`\bbody\b`)

var _ = Describe("a rule's title", func() {
	It("makes sense on every transport the rule holds on: one held over HTTP that speaks of a line speaks of a body too", func() {
		// MCP-JSONRPC-7 read "a line that is not JSON" on HTTP runs, where
		// what is sent is a POST body.
		var bad []string
		for _, id := range protocols.AllIDs() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			if !slices.Contains(b.Protocol.Transports, "http") && !slices.Contains(b.Protocol.Transports, "sse") {
				continue
			}
			for _, r := range b.Protocol.Rules {
				overHTTP := r.AppliesOn("http") && slices.Contains(b.Protocol.Transports, "http") ||
					r.AppliesOn("sse") && slices.Contains(b.Protocol.Transports, "sse")
				// A profile carries its base's rules: each is named once.
				if t := r.ID + ": " + r.Title; overHTTP && aLine.MatchString(r.Title) && !body.MatchString(r.Title) && !slices.Contains(bad, t) {
					bad = append(bad, t)
				}
			}
		}
		Expect(bad).To(BeEmpty())
	})
})
