package protocols_test

import (
	"cmp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The client role's table, apart from the protocols' (faults_test.go,
// verdicts.txt), whose runs are of servers: every fault of the MCP
// reference client trips its rules and no rule it does not name; every
// variant, and the clean client under every revision, passes.
var _ = Describe("the MCP client role's reference client", func() {
	const id = "mcp-client"
	b, err := protocols.Load(id)
	if err != nil {
		panic(err)
	}
	// Every authorization extension selected: the reference client
	// implements them all, and their faults need them judged.
	exts := map[string]string{"extension": "client-credentials\nworkload-identity\nenterprise-managed"}
	// cfg is a run's configuration; own is its fault's or variant's
	// timeout: (0: the tables').
	cfg := func(own time.Duration) runner.Config {
		return runner.Config{Timeout: cmp.Or(own, timeout), StartupTimeout: startupTimeout, Jobs: 4, Params: exts}
	}
	for _, f := range b.Protocol.Faults {
		if f.Fuzz {
			// Only hostile input shows it: the run, which sends none,
			// passes; internal/fuzz's client-role campaign finds it.
			It("passes the run with the fuzz-only fault "+f.Name, func() {
				rep, err := testrun.Run(testrun.Server{Protocol: id, Faults: []string{f.Name}, Revision: f.Version}, cfg(f.RunTimeout()))
				Expect(err).NotTo(HaveOccurred())
				Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			})
			continue
		}
		It("trips "+f.Name+"'s rules with it", func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Faults: []string{f.Name}, Revision: f.Version, Transport: f.Transport}, cfg(f.RunTimeout()))
			Expect(err).NotTo(HaveOccurred())
			got := broken(rep)
			for _, r := range f.Trips {
				Expect(got).To(ContainElement(r), "fault %s: %s", f.Name, evidence(rep, r))
			}
			for _, r := range got {
				Expect(slices.Contains(f.Trips, r) || slices.Contains(f.Also, r)).To(BeTrue(), "fault %s also broke %s:\n%s", f.Name, r, evidence(rep, r))
			}
		})
	}
	for _, v := range b.Protocol.Variants {
		It("passes with the variant "+v.Name, func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Variants: []string{v.Name}, Revision: v.Version, Transport: v.Transport}, cfg(v.RunTimeout()))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
		})
	}
	for _, over := range []struct{ transport, revision, variant string }{
		{"http", "2025-11-25", ""}, {"http", "2026-07-28", "modern"}, {"sse", "2024-11-05", ""},
	} {
		It("passes clean over "+over.transport+" under "+over.revision, func() {
			s := testrun.Server{Protocol: id, Revision: over.revision, Transport: over.transport}
			var own time.Duration
			if over.variant != "" {
				s.Variants = []string{over.variant}
				own = b.Protocol.Variant(over.variant).RunTimeout()
			}
			rep, err := testrun.Run(s, cfg(own))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(rep.Summary.Pass).To(BeNumerically(">", 0))
		})
	}
	for _, rev := range b.Revisions() {
		It("passes clean under "+rev, func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Revision: rev}, cfg(0))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(rep.Summary.Pass).To(BeNumerically(">", 0))
		})
	}
	// Over HTTP the client-auth scenarios make wirecheck a protected
	// resource: the clean client authorizes and passes every AUTH rule of
	// the revision.
	var auth []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if strings.HasPrefix(sc.Name, "client-auth") {
			auth = append(auth, sc)
		}
	}
	for _, rev := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		It("authorizes when asked over HTTP under "+rev+", passing every AUTH rule of the revision", func() {
			s := testrun.Server{Protocol: id, Revision: rev, Transport: "http"}
			if rev == "2026-07-28" {
				// A client of the revision: one that opens with initialize
				// is judged by 2025-11-25's rules.
				s.Variants = []string{"modern"}
			}
			rep, err := testrun.Run(s, runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Jobs: 4, Scenarios: auth})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			for _, r := range b.Protocol.Rules {
				// MCP-CLIENT-REG-5 asks pre-registered credentials, which the
				// clean client is not given (the preregistered variants are).
				reg := strings.HasPrefix(r.ID, "MCP-CLIENT-REG-") && r.ID != "MCP-CLIENT-REG-5"
				if (strings.HasPrefix(r.ID, "MCP-CLIENT-AUTH-") || reg) && slices.Contains(r.Versions, rev) {
					Expect(broken(rep, verdict.Pass)).To(ContainElement(r.ID))
				}
			}
		})
	}
	// Given pre-registered credentials, the client uses them where the
	// authorization server offers no other registration, whichever way it
	// authenticates.
	for _, v := range []string{"preregistered", "preregistered-post"} {
		It("authenticates as pre-registered with the variant "+v, func() {
			var pre []*scenario.Scenario
			for _, sc := range auth {
				if sc.Name == "client-auth-preregistered" {
					pre = append(pre, sc)
				}
			}
			Expect(pre).To(HaveLen(1))
			rep, err := testrun.Run(testrun.Server{Protocol: id, Revision: "2025-11-25", Transport: "http", Variants: []string{v}},
				runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Jobs: 4, Scenarios: pre})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(broken(rep, verdict.Pass)).To(ContainElement("MCP-CLIENT-REG-5"))
		})
	}
})
