package fuzz_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// refCampaign fuzzes protocol's reference server (`wirecheck serve
// protocol serve…`) as the fuzz command would, with the bundle's handler
// and frame judge, under cfg's seed, runs and budgets.
func refCampaign(protocol string, cfg fuzz.Config, serve ...string) []*fuzz.Bug {
	GinkgoHelper()
	return revCampaign(protocol, "", cfg, serve...)
}

// firstFailure is a campaign ended at its first failure, unshrunk: for
// the tests that ask only which rule fuzz names (each wait for an answer
// that never comes costs a --timeout).
func firstFailure(protocol string, runs int, seed uint64, serve ...string) []string {
	GinkgoHelper()
	return rulesOf(refCampaign(protocol, fuzz.Config{Runs: runs, Seed: seed, ShrinkTime: time.Nanosecond, MaxFailures: 1}, serve...))
}

// Issue 26: run passed a server answering an Invalid Request -32600 with
// id null (JSON-RPC 2.0 §5) and fuzz failed it with "no response", the
// same answer judged two ways.
var _ = Describe("wirecheck fuzz against the MCP reference server answering invalid requests with id null", func() {
	It("finds nothing at MUST: the null-id error answers the invalid request in flight", func() {
		bugs := refCampaign("mcp", fuzz.Config{Runs: 200, Seed: 1, ShrinkTime: 2 * time.Second, Level: verdict.Must},
			"--variant", "invalid-request-null-id")
		for _, b := range bugs {
			Fail("unexpected finding: " + b.Rule + " after " + b.Shape + ": " + b.First.Message)
		}
	})
})

// Issue 26: run failed a sonde-serve server silent on lines that are not
// JSON (SONDE-MALFORMED-1) and a fuzz campaign passed it: fuzz sent such
// lines but judged only that the server went on.
var _ = Describe("wirecheck fuzz against a sonde-serve server silent on lines that are not JSON", func() {
	It("fails the rule run fails it by, SONDE-MALFORMED-1, after a truncated request", func() {
		Expect(firstFailure("sonde-serve", 60, 1, "--fault", "malformed-silent")).
			To(ContainElement("SONDE-MALFORMED-1 after malformed bytes: truncated JSON"))
	})
})
