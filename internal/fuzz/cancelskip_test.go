package fuzz_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// cancelReason is how run's scenario end words the skip.
const cancelReason = `^line \d+ cancels request \d+, which wirecheck never received: over HTTP a client may abort a request's POST as it cancels it`

// A cancellation over HTTP naming a request wirecheck never received is
// decided at the end of the conversation: in run a scenario's, in fuzz a
// sequence's. The reference client's cancel-aborted variant aborts the
// cancelled call's POST (a legal client: the request was issued on its
// side), so fuzz shows MCP-CLIENT-CANCEL-1 skipped with run's reason, not
// undecided and not failed (eight sequences: the client cancels on its
// own time, and one sequence's end after it is enough).
var _ = Describe("the client role over HTTP, a cancellation of a request never received", func() {
	It("is skipped at the end of each fuzz sequence with run's reason, shown in the fuzz report", func() {
		c, bugs := clientCampaignWith("http", 8, []string{"cancel-aborted"})
		Expect(bugs).To(BeEmpty())
		var skips []report.Finding
		for _, f := range c.Report(bugs, nil).Findings {
			if f.Rule == "MCP-CLIENT-CANCEL-1" && f.Verdict == verdict.Skip {
				skips = append(skips, f)
			}
		}
		Expect(skips).To(HaveLen(1))
		Expect(skips[0].Scenario).To(Equal("fuzz: end of sequence"))
		Expect(skips[0].Message).To(MatchRegexp(cancelReason))
		Expect(skips[0].Count).To(BeNumerically(">=", 1))
	})
})
