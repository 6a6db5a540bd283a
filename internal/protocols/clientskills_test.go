package protocols_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The client role table proves the skills faults trip and the variants
// do not fail; here, what each legal host gets: one that lists and
// fetches nothing passes both rules (they are judged, not skipped), one
// that loads a skill leaves the lazy-retrieval rule a skip, and a client
// that does not use the extension is judged by neither.
var _ = Describe("the client role's skills extension scenario", func() {
	b, err := protocols.Load("mcp-client")
	if err != nil {
		panic(err)
	}
	var only []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if sc.Name == "client-skills" {
			only = append(only, sc)
		}
	}
	run := func(variant string) (pass, skip []string) {
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp-client", Revision: "2026-07-28", Variants: []string{variant}},
			runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Jobs: 1, Scenarios: only})
		Expect(err).NotTo(HaveOccurred())
		Expect(broken(rep)).To(BeEmpty())
		skills := func(rules []string) []string {
			var out []string
			for _, r := range rules {
				if strings.HasPrefix(r, "MCP-CLIENT-SKILLS-") {
					out = append(out, r)
				}
			}
			return out
		}
		return skills(broken(rep, verdict.Pass)), skills(broken(rep, verdict.Skip))
	}
	It("exists", func() { Expect(only).To(HaveLen(1)) })
	It("passes a host that lists the skills and fetches none of their files", func() {
		pass, _ := run("skills")
		Expect(pass).To(ConsistOf("MCP-CLIENT-SKILLS-1", "MCP-CLIENT-SKILLS-2"))
	})
	It("leaves a host that loads one skill unjudged by lazy retrieval, the load's cause not on the wire", func() {
		pass, skip := run("skills-load")
		Expect(pass).To(ConsistOf("MCP-CLIENT-SKILLS-2"))
		Expect(skip).To(ConsistOf("MCP-CLIENT-SKILLS-1"))
	})
	It("judges a 2026-07-28 client that does not use the extension by neither rule", func() {
		pass, skip := run("modern")
		Expect(pass).To(BeEmpty())
		Expect(skip).To(ConsistOf("MCP-CLIENT-SKILLS-1", "MCP-CLIENT-SKILLS-2"))
	})
})
