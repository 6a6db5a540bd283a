package fuzz_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// revCampaign is refCampaign under a revision ("" the protocol's
// default), with cfg's timeout (1s when unset).
func revCampaign(protocol, revision string, cfg fuzz.Config, serve ...string) []*fuzz.Bug {
	GinkgoHelper()
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load(protocol)
	Expect(err).NotTo(HaveOccurred())
	p := b.Protocol
	if revision != "" {
		p, err = p.ForVersion(revision)
		Expect(err).NotTo(HaveOccurred())
	}
	cfg.Protocol, cfg.Schemas, cfg.Handler, cfg.Judge = p, b.Schemas, b.Handler, b.Judge
	cfg.Target = target.Target{Argv: append([]string{bin, "serve", protocol}, serve...)}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	cfg.StartupTimeout = 5 * time.Second
	c, err := fuzz.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	return bugs
}

// rulesOf names each bug "RULE after SHAPE".
func rulesOf(bugs []*fuzz.Bug) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, b.Rule+" after "+b.Shape)
	}
	return out
}

// Issue 26's other gaps: what run judged and fuzz did not, or judged
// otherwise.
var _ = Describe("fuzz judges as run does", func() {
	It("fails a 2026-07-28 server logging without a log level asked (MCP-LOGGING-3, which the frame judge decides now)", func() {
		// 2026-07-28 has no logging capability (MCP-LOGGING-1 is of the
		// revisions before): a log no request asked for breaks LOGGING-3.
		bugs := revCampaign("mcp", "2026-07-28", fuzz.Config{Runs: 40, Seed: 9, ShrinkTime: time.Nanosecond, MaxFailures: 1}, "--fault", "log-undeclared")
		Expect(rulesOf(bugs)).To(ContainElement(HavePrefix("MCP-LOGGING-3 after ")))
	})

	It("fails a sonde-serve server answering a line that is not JSON with another message (SONDE-MALFORMED-2), on the line sent again", func() {
		Expect(firstFailure("sonde-serve", 60, 1, "--fault", "malformed-message")).
			To(ContainElement("SONDE-MALFORMED-2 after malformed bytes: truncated JSON"))
	})

	It("saves a drain step before the line whose answer it judges, so replay judges the answer fuzz judged", func() {
		var drained, judged int
		_ = revCampaign("sonde-serve", "", fuzz.Config{Runs: 30, Seed: 1, Trace: func(steps []scenario.Step) {
			for i, st := range steps {
				if st.ExpectFrame && st.Rule == "SONDE-MALFORMED-1" {
					judged++
					// drain, the line, its answer.
					if i >= 2 && steps[i-2].Drain {
						drained++
					}
				}
			}
		}})
		Expect(judged).To(BeNumerically(">", 0))
		Expect(drained).To(Equal(judged))
	})

	It("leaves a tool slower than --timeout unjudged while the server answers the probe, as run does", func() {
		// long-poll never answers: each call is waited out (300ms).
		bugs := revCampaign("mcp", "2025-06-18", fuzz.Config{Runs: 12, Seed: 1, ShrinkTime: time.Nanosecond, MaxFailures: 1, Timeout: 300 * time.Millisecond},
			"--variant", "slow-tool")
		Expect(rulesOf(bugs)).To(BeEmpty())
	})
})
