package officialsuite_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/officialsuite"
	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("the table of the official suite's checks", func() {
	It("gives every check a known status, a scenario, rules where it is covered and a reason where it is not", func() {
		seen := map[string]bool{}
		for _, c := range officialsuite.Checks() {
			key := c.Scenario + ":" + c.ID
			Expect(seen[key]).To(BeFalse(), "twice: "+key)
			seen[key] = true
			Expect(c.Scenario).NotTo(BeEmpty(), c.ID)
			Expect(c.Status).To(BeElementOf(officialsuite.Covered, officialsuite.Partly, officialsuite.Fixture, officialsuite.Extension, officialsuite.Missing, officialsuite.Unspoken), c.ID)
			switch c.Status {
			case officialsuite.Covered, officialsuite.Partly:
				Expect(c.Rules).NotTo(BeEmpty(), c.ID+" is "+string(c.Status)+" by no rule")
			case officialsuite.Extension, officialsuite.Missing, officialsuite.Unspoken:
				Expect(c.Rules).To(BeEmpty(), c.ID+" is "+string(c.Status)+" yet names rules")
			}
			if c.Status != officialsuite.Covered {
				Expect(c.Why).NotTo(BeEmpty(), c.ID+" says not why it is "+string(c.Status))
			}
		}
	})

	It("names only rules of wirecheck's MCP catalogue", func() {
		p, err := protocols.LoadSpec("mcp")
		Expect(err).NotTo(HaveOccurred())
		known := map[string]bool{}
		for _, r := range p.Rules {
			known[r.ID] = true
		}
		for _, c := range officialsuite.Checks() {
			for _, r := range c.Rules {
				Expect(known).To(HaveKey(r), c.ID)
			}
		}
	})

	It("maps a check to its rules, a scenario to all its checks' rules, and what it has no rule for to none", func() {
		Expect(officialsuite.Rules("ping", "ping")).To(Equal([]string{"MCP-PING-1"}))
		Expect(officialsuite.Rules("server-initialize", "")).To(Equal([]string{"MCP-LIFECYCLE-1", "MCP-LIFECYCLE-2", "MCP-LIFECYCLE-3", "MCP-SCHEMA-1", "MCP-SESSION-1"}))
		Expect(officialsuite.Rules("tools-list", "tools-name-format")).To(Equal([]string{"MCP-TOOLS-9"}))
		Expect(officialsuite.Rules("server-stateless", "sep-2575-request-meta-client-info-optional")).To(BeEmpty())
		Expect(officialsuite.Rules("tasks-lifecycle", "")).To(Equal([]string{"MCP-TASKEXT-10", "MCP-TASKEXT-3", "MCP-TASKEXT-6", "MCP-TASKEXT-7", "MCP-TASKEXT-9"}))
		Expect(officialsuite.Rules("tasks-mrtr-composition", "")).To(BeEmpty())
		By("a fixture check: what wirecheck judges instead is not what the entry excuses")
		Expect(officialsuite.Rules("tools-call-image", "")).To(BeEmpty())
		Expect(officialsuite.Rules("tools-call-image", "tools-call-image")).To(BeEmpty())
		By("a scenario of covered and fixture checks: the covered ones' rules")
		Expect(officialsuite.Rules("server-sse-polling", "")).To(Equal([]string{"MCP-HTTP-CT-1", "MCP-HTTP-DISCONNECT-1", "MCP-HTTP-RESUME-1", "MCP-HTTP-STREAM-6", "MCP-HTTP-STREAM-7"}))
		Expect(officialsuite.Rules("ping", "no-such-check")).To(BeEmpty())
		Expect(officialsuite.Rules("no-such-scenario", "")).To(BeEmpty())
		By("the runner's schema check, named with any scenario, but not by a whole-scenario entry")
		Expect(officialsuite.Rules("ping", "wire-schema-valid")).To(Equal([]string{"MCP-SCHEMA-1"}))
		Expect(officialsuite.Rules("ping", "")).To(Equal([]string{"MCP-PING-1"}))
		By("an id built in a loop, kept as a pattern")
		Expect(officialsuite.Rules("server-stateless", "sep-2575-request-meta-invalid-missing-meta")).To(Equal([]string{"MCP-META-1", "MCP-META-3"}))
		By("a check the table keeps under the other scenario that emits it")
		Expect(officialsuite.Rules("http-custom-header-server-validation", "sep-2243-server-reject-param-mismatch")).To(Equal([]string{"MCP-HEADER-9"}))
		Expect(officialsuite.Rules("no-such-scenario", "sep-2243-server-reject-param-mismatch")).To(BeEmpty())
	})

	It("says why an entry maps to no rule", func() {
		Expect(officialsuite.Unmapped("server-stateless", "sep-2575-request-meta-client-info-optional")).To(Equal("asked by no sentence"))
		Expect(officialsuite.Unmapped("tools-call-image", "")).To(Equal("the suite's fixture or setup, no sentence"))
		Expect(officialsuite.Unmapped("tasks-mrtr-composition", "")).To(Equal("the suite's fixture or setup, no sentence"))
		Expect(officialsuite.Unmapped("ping", "pong")).To(Equal("the official suite " + officialsuite.Version + " has no server check pong in scenario ping"))
		Expect(officialsuite.Unmapped("nope", "")).To(Equal("the official suite " + officialsuite.Version + " has no server scenario nope"))
	})

	It("prints every row in the table and counts them by status", func() {
		t := officialsuite.Table()
		n := officialsuite.Counts()
		Expect(strings.Count(t, "\n| `")).To(Equal(len(officialsuite.Checks()) + len(officialsuite.AuthorizationChecks()) + len(officialsuite.ClientChecks())))
		total := 0
		for _, v := range n {
			total += v
		}
		Expect(total).To(Equal(len(officialsuite.Checks())))
		Expect(t).To(ContainSubstring("| `ping` | `ping` | covered | MCP-PING-1 |"))
		Expect(t).To(ContainSubstring("| `authorization-code-grant` | `authorization-code-grant` | covered | MCP-AUTHZ-CODE-1,"))
		Expect(t).To(ContainSubstring("| `sse-retry` | `client-sse-retry-timing` | covered | MCP-CLIENT-HTTP-8 |"))
	})
})

var _ = Describe("the official suite's expected-failures file", func() {
	It("is told apart from wirecheck's baselines by its server: or client: key", func() {
		Expect(officialsuite.IsExpectedFailures([]byte("# known\n\nserver:\n  - ping\n"))).To(BeTrue())
		Expect(officialsuite.IsExpectedFailures([]byte("client:\n  - initialize\n"))).To(BeTrue())
		Expect(officialsuite.IsExpectedFailures([]byte("\xef\xbb\xbfserver: []\n"))).To(BeTrue())
		Expect(officialsuite.IsExpectedFailures([]byte("# known\nMCP-PING-1\n"))).To(BeFalse())
		Expect(officialsuite.IsExpectedFailures([]byte(`{"findings": []}`))).To(BeFalse())
		Expect(officialsuite.IsExpectedFailures([]byte("  server: x\n"))).To(BeFalse())
	})

	It("reads server: entries, whole scenarios and single checks, with their lines, and leaves client: ones out", func() {
		es, err := officialsuite.ExpectedFailures([]byte("client:\n  - initialize\nserver:\n  - ping\n  # a comment\n  - tools-list:tools-name-format\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(es).To(Equal([]officialsuite.Entry{{Scenario: "ping", Line: 4}, {Scenario: "tools-list", Check: "tools-name-format", Line: 6}}))
		Expect(es[1].String()).To(Equal("tools-list:tools-name-format"))
	})

	It("refuses what the suite refuses: a space after the colon, an empty side, another key", func() {
		_, err := officialsuite.ExpectedFailures([]byte("server:\n  - tools-list: tools-name-format\n"))
		Expect(err).To(MatchError(ContainSubstring("line 2")))
		_, err = officialsuite.ExpectedFailures([]byte("server:\n  - 'tools-list:'\n"))
		Expect(err).To(MatchError(ContainSubstring("both sides of the colon")))
		_, err = officialsuite.ExpectedFailures([]byte("servers:\n  - ping\n"))
		Expect(err).To(MatchError(ContainSubstring(`unknown key "servers"`)))
		_, err = officialsuite.ExpectedFailures([]byte("server: ping\n"))
		Expect(err).To(MatchError(ContainSubstring("must be a list")))
	})
})
