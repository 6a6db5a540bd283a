package toolhost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the tool-host faults", func() {
	It("give every SHOULD rule a fault that trips it alone (the fault table proves each trips it)", func() {
		b, err := protocols.Load("tool-host")
		Expect(err).NotTo(HaveOccurred())
		// A log line on stdout is always also a line that is no JSON or no
		// protocol message: TOOLHOST-LOG-1 cannot fail alone.
		never := map[string]bool{"TOOLHOST-LOG-1": true}
		alone := map[string]bool{}
		for _, f := range b.Protocol.Faults {
			if len(f.Trips) == 1 {
				alone[f.Trips[0]] = true
			}
		}
		for _, r := range b.Protocol.Rules {
			if r.Level == verdict.Should && !never[r.ID] {
				Expect(alone).To(HaveKey(r.ID), "no fault trips %s alone", r.ID)
			}
		}
	})
})
