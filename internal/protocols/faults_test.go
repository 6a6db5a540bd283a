package protocols_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runAgainst runs a protocol's whole suite against its reference server
// with the given faults switched on.
func runAgainst(id string, faults ...string) (*report.Report, error) {
	return runAgainstVersion(id, "", faults...)
}

// runAgainstVersion is runAgainst under one revision of a versioned
// protocol ("" for its default, or the revision a fault names).
func runAgainstVersion(id, version string, faults ...string) (*report.Report, error) {
	return runServer(id, version, faults, nil)
}

// runServer runs a protocol's whole suite against its reference server
// with faults and variants switched on, under a revision ("" for the
// default, or the one a fault names).
func runServer(id, version string, faults, variants []string) (*report.Report, error) {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load(id)
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", id}
	params := map[string]string{}
	if version != "" && b.Protocol.Versions != nil {
		params[b.Protocol.Versions.Param] = version
	}
	for _, v := range variants {
		argv = append(argv, "--variant", v)
	}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
		// A fault of one revision runs under that revision.
		if ft := b.Protocol.Fault(f); ft != nil && ft.Version != "" && b.Protocol.Versions != nil {
			params[b.Protocol.Versions.Param] = ft.Version
		}
	}
	return runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
		Target:         target.Target{Argv: argv},
		Timeout:        time.Second,
		StartupTimeout: 5 * time.Second,
		Params:         params,
	})
}

// broken lists the rules that failed or errored.
func broken(rep *report.Report, verdicts ...verdict.Verdict) []string {
	if len(verdicts) == 0 {
		verdicts = []verdict.Verdict{verdict.Fail, verdict.Error}
	}
	set := map[string]bool{}
	for _, f := range rep.Findings {
		for _, v := range verdicts {
			if f.Verdict == v {
				set[f.Rule] = true
			}
		}
	}
	var out []string
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// evidence renders a rule's failing findings for a test failure message.
func evidence(rep *report.Report, rule string) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		if f.Rule != rule || (f.Verdict != verdict.Fail && f.Verdict != verdict.Error) {
			continue
		}
		fmt.Fprintf(&b, "%s in %s: %s\n  expected %s\n  actual %s\n", f.Verdict, f.Scenario, f.Message, f.Expected, f.Actual)
		for _, e := range f.Transcript {
			fmt.Fprintf(&b, "    %8.1fms %-8s %.120s\n", e.OffsetMS, e.Dir, e.Text)
		}
	}
	return b.String()
}

var _ = Describe("the reference servers", func() {
	for _, id := range protocols.IDs() {
		b, err := protocols.Load(id)
		if err != nil {
			It(id+" loads", func() { Expect(err).NotTo(HaveOccurred()) })
			continue
		}
		// A versioned protocol passes at 100% in every revision; a rule of
		// other revisions only is skipped.
		versions := []string{""}
		if b.Protocol.Versions != nil {
			versions = b.Protocol.Versions.IDs()
		}
		for _, v := range versions {
			It(strings.TrimSpace(id+" "+v)+" passes its own suite at 100%", func() {
				rep, err := runAgainstVersion(id, v)
				Expect(err).NotTo(HaveOccurred())
				Expect(broken(rep)).To(BeEmpty())
				for _, f := range rep.Findings {
					if r := b.Protocol.Rule(f.Rule); f.Verdict == verdict.Skip && r != nil && !r.AppliesTo(v) {
						continue
					}
					Expect(f.Verdict).To(Equal(verdict.Pass), "rule %s in %s: %s", f.Rule, f.Scenario, f.Message)
				}
			})
		}
		var variants []TableEntry
		for _, v := range b.Protocol.Variants {
			variants = append(variants, Entry(v.Name, v.Name, v.Version))
		}
		if len(variants) > 0 {
			DescribeTable(id+" with a legal variant passes its whole suite at --level should",
				func(variant, version string) {
					rep, err := runServer(id, version, nil, []string{variant})
					Expect(err).NotTo(HaveOccurred())
					for _, f := range rep.Findings {
						if f.Level == verdict.May {
							continue
						}
						Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error),
							"variant %s: rule %s in %s:\n%s", variant, f.Rule, f.Scenario, evidence(rep, f.Rule))
					}
				},
				variants,
			)
		}
		var entries []TableEntry
		for _, f := range b.Protocol.Faults {
			entries = append(entries, Entry(f.Name, f.Name, f.Trips, f.Also))
		}
		DescribeTable(id+" with a fault reports exactly the rules the fault breaks",
			func(fault string, trips, also []string) {
				rep, err := runAgainst(id, fault)
				verdicts := []verdict.Verdict{verdict.Fail, verdict.Error}
				if err != nil {
					Expect(errors.Is(err, session.ErrNotStarted)).To(BeTrue(), "unexpected harness error: %v", err)
					// Scenarios that could not run are errors by design.
					verdicts = verdicts[:1]
				}
				got := broken(rep, verdicts...)
				for _, r := range trips {
					Expect(got).To(ContainElement(r), "fault %s should trip %s", fault, r)
					failed := false
					for _, f := range rep.Findings {
						if f.Rule == r && f.Verdict == verdict.Fail {
							failed = true
							Expect(f.Message).NotTo(BeEmpty(), "a failure says what broke")
						}
					}
					Expect(failed).To(BeTrue(), "rule %s fails (not only errors) under fault %s", r, fault)
				}
				allowed := append(append([]string{}, trips...), also...)
				for _, r := range got {
					Expect(allowed).To(ContainElement(r), "fault %s broke rule %s, which it should not:\n%s", fault, r, evidence(rep, r))
				}
				Expect(rep.Failed(verdict.Must) || rep.Failed(verdict.Should)).To(BeTrue())
			},
			entries,
		)
	}
})
