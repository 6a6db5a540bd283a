package testrun_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/shard"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
)

// verdicts folds a report to its rule verdicts, as its table shows them.
func verdicts(rep *report.Report) map[string]string {
	out := map[string]string{}
	for _, g := range rep.ByRule() {
		out[g.Rule.ID] = string(report.RuleVerdict(g.Findings))
	}
	return out
}

// unobserved lists the rules a report skips as observed by no scenario.
func unobserved(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Scenario == "-" && f.Verdict == "skip" {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

var _ = Describe("a run cut into shards", func() {
	for _, id := range protocols.IDs() {
		It(fmt.Sprintf("%s: the merge of its shards has the rule verdicts of the whole run", id), func() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			srv := testrun.Server{Protocol: id}
			if tr := b.Protocol.Transports[0]; tr != "stdio" {
				// Reached over HTTP only (sonde-hub): launched on a port
				// wirecheck picks, with the token its reference server
				// asks on every request, as the tables run it.
				bin, err := testbin.Wirecheck()
				Expect(err).NotTo(HaveOccurred())
				srv.Command = target.Target{Argv: []string{bin, "serve", id, "--" + tr, "127.0.0.1:{port}"}, Transport: tr,
					Headers: []string{"Authorization: Bearer " + refmcp.DemoToken()}}
			}
			cfg := runner.Config{Timeout: 2 * time.Second, StartupTimeout: 10 * time.Second}
			whole, err := testrun.Run(srv, cfg)
			Expect(err).NotTo(HaveOccurred())

			const n = 3
			var parts []*report.Report
			for i := 1; i <= n; i++ {
				cfg.Shard = shard.Shard{Index: i, Count: n}
				rep, err := testrun.Run(srv, cfg)
				Expect(err).NotTo(HaveOccurred())
				Expect(strings.Join(rep.Notes, "\n")).To(ContainSubstring(fmt.Sprintf("shard %d/%d:", i, n)))
				parts = append(parts, rep)
			}
			merged, err := report.Merge(parts...)
			Expect(err).NotTo(HaveOccurred())
			Expect(verdicts(merged)).To(Equal(verdicts(whole)))
			Expect(unobserved(merged)).To(Equal(unobserved(whole)), "the shards' skips of each other's rules are gone")
		})
	}
})
