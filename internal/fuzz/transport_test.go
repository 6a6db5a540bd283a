package fuzz_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// fuzzOver fuzzes the MCP reference server (fault: one of its faults, ""
// for none) at a revision ("" its default) over an HTTP transport, and
// returns the bugs found and the rules judged (passed at least once).
func fuzzOver(fault, revision, tr string, runs int, seed uint64, level verdict.Level, rules ...string) ([]*fuzz.Bug, []string) {
	var serve []string
	if fault != "" {
		serve = []string{"--fault", fault}
	}
	return fuzzServed(serve, revision, tr, runs, seed, level, rules...)
}

// fuzzServed is fuzzOver of the reference server started with the serve
// flags given (faults and variants).
func fuzzServed(serve []string, revision, tr string, runs int, seed uint64, level verdict.Level, rules ...string) ([]*fuzz.Bug, []string) {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load("mcp")
	Expect(err).NotTo(HaveOccurred())
	p, err := b.Protocol.ForVersion(revision)
	Expect(err).NotTo(HaveOccurred())
	argv := append([]string{bin, "serve", "mcp", "--" + tr, "127.0.0.1:{port}"}, serve...)
	c, err := fuzz.New(fuzz.Config{Protocol: p, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge,
		Target: target.Target{Argv: argv, Transport: tr, Paths: p.Endpoints},
		Runs:   runs, Seed: seed, Level: level, Rules: rules, MaxFailures: 1, ShrinkTime: time.Nanosecond,
		Timeout: 2 * time.Second, StartupTimeout: 10 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	bugs, err := c.Run(context.Background())
	Expect(err).NotTo(HaveOccurred())
	var judged []string
	for _, f := range c.Report(bugs, nil).Findings {
		if f.Verdict == verdict.Pass {
			judged = append(judged, f.Rule)
		}
	}
	return bugs, judged
}

func bugRules(bugs []*fuzz.Bug) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, fmt.Sprintf("%s (%s)", b.Rule, b.First.Message))
	}
	return out
}

// The campaign judges by its transport's rules, as run does: a rule of
// HTTP alone is a finding over HTTP (it was judged by the protocol's
// first transport, stdio, and never counted).
var _ = Describe("fuzz over an HTTP transport", func() {
	DescribeTable("finds a reference fault whose rule holds over HTTP only",
		func(fault, revision, rule string) {
			bugs, _ := fuzzOver(fault, revision, "http", 40, 1, verdict.Should, rule)
			Expect(bugRules(bugs)).To(ContainElement(HavePrefix(rule + " ")))
		},
		Entry("notifications on a response stream unrelated to its request (2026-07-28)", "sse-notification-unrelated", "2026-07-28", "MCP-HTTP-STREAM-5"),
		Entry("notifications answered 200 with a body", "notification-200", "", "MCP-HTTP-ACCEPT-1"),
	)

	// The clean server breaks no rule under fuzz's input: over Streamable
	// HTTP at 2026-07-28 a generated method no Mcp-Method header can carry
	// is not sent (it was an MCP-JSONRPC-5 failure, Go refusing the
	// header); a body that only looks like JSON-RPC (jsonrpc not "2.0", an
	// id that is an object) is not judged by the rules of notifications
	// and of the legacy endpoint's POSTs (were MCP-HTTP-ACCEPT-1 and
	// MCP-SSE-6 failures). Each seed found its failure within these runs
	// before.
	DescribeTable("passes the clean reference server",
		func(revision, tr string, runs, seed int, level verdict.Level, httpRule string) {
			bugs, judged := fuzzOver("", revision, tr, runs, uint64(seed), level)
			Expect(bugRules(bugs)).To(BeEmpty())
			// Judged by the transport's rules, not only the stdio ones.
			Expect(judged).To(ContainElement(httpRule))
		},
		Entry("over http at 2026-07-28, level must", "2026-07-28", "http", 150, 1, verdict.Must, "MCP-HTTP-STREAM-5"),
		Entry("over http at the default revision", "", "http", 150, 1, verdict.Should, "MCP-HTTP-ACCEPT-1"),
		Entry("over sse at the default revision", "", "sse", 150, 2, verdict.Should, "MCP-SSE-6"),
		Entry("over sse at 2026-07-28", "2026-07-28", "sse", 100, 1, verdict.Should, "MCP-SSE-6"),
	)
})
