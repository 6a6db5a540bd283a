package fuzz_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
)

// Issue 26: a server that leaves unknown methods unanswered was 29
// distinct failures, one per generated method name.
var _ = Describe("wirecheck fuzz against a tool-host server that never answers a method the protocol does not define", func() {
	It("finds one distinct failure per rule for it, its hits counted, not one per generated method name", func() {
		bugs := refCampaign("tool-host", fuzz.Config{Runs: 40, Seed: 1, ShrinkTime: time.Nanosecond, Timeout: 300 * time.Millisecond},
			"--fault", "unknown-method-silent")
		unknown := 0
		seen := map[string]bool{}
		for _, b := range bugs {
			GinkgoWriter.Printf("%s after %s: %d hit(s): %s\n", b.Rule, b.Shape, b.Hits, b.First.Message)
			Expect(b.Shape).NotTo(MatchRegexp(`^request [a-z][a-z0-9_]*$`), "a generated method name is no shape of its own")
			// Whichever action sent the unknown method (one request, a
			// pipeline, a line split in two), its silence is one cause.
			Expect(seen[b.Rule]).To(BeFalse(), "one distinct failure of %s, found again after %s", b.Rule, b.Shape)
			seen[b.Rule] = true
			if b.Shape == "request of a method the protocol does not define" {
				unknown++
			}
		}
		Expect(unknown).To(BeNumerically(">=", 1))
		hits := 0
		for _, b := range bugs {
			if b.Shape == "request of a method the protocol does not define" {
				hits += b.Hits
			}
		}
		Expect(hits).To(BeNumerically(">", unknown), "several unknown methods were drawn and counted as hits of one failure")
	})
})
