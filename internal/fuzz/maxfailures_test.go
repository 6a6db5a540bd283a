package fuzz_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

var _ = Describe("--max-failures", func() {
	It("ends the campaign once it has that many distinct failures, each shrunk, and says so", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		// exit-non-ascii breaks after fourteen shapes of action at seed 42.
		c, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve", "--fault", "exit-non-ascii"},
			fuzz.Config{Runs: 50, Seed: 42, ShrinkTime: 30 * time.Second, MaxFailures: 2})
		Expect(bugs).To(HaveLen(2), describeBugs(bugs))
		st := c.Stats()
		Expect(st.Stopped).To(BeTrue())
		Expect(st.Sequences).To(BeNumerically("<", 50+2*200), "the rest of the budget was not run")
		for _, b := range bugs {
			Expect(b.Rule).To(Equal("SONDE-GEN-SURVIVE"))
			Expect(b.Unshrunk).To(BeEmpty(), "its shrinking finished before the campaign ended")
		}
		Expect(strings.Join(c.Report(bugs, nil).Notes, "\n")).To(ContainSubstring("stopped at --max-failures 2"))
	})

	It("runs the whole budget when the server breaks fewer times than that", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		c, bugs := sondeCampaign([]string{bin, "serve", "sonde-serve", "--fault", "double-answer"},
			fuzz.Config{Runs: 30, Seed: 5, ShrinkTime: 8 * time.Second, MaxFailures: 5})
		Expect(bugs).To(HaveLen(1))
		Expect(c.Stats().Stopped).To(BeFalse())
		Expect(strings.Join(c.Report(bugs, nil).Notes, "\n")).NotTo(ContainSubstring("max-failures"))
	})

	It("is refused below zero", func() {
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		_, err = fuzz.New(fuzz.Config{Protocol: b.Protocol, Schemas: b.Schemas, MaxFailures: -1})
		Expect(err).To(MatchError(ContainSubstring("--max-failures -1: give 0 (no limit) or more")))
	})
})
