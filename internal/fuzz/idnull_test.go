package fuzz_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Issue 26: run passed a server answering an Invalid Request -32600 with
// id null (JSON-RPC 2.0 §5) and fuzz failed it with "no response", the
// same answer judged two ways.
var _ = Describe("wirecheck fuzz against the MCP reference server answering invalid requests with id null", func() {
	It("finds nothing at MUST: the null-id error answers the invalid request in flight", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		c, err := fuzz.New(fuzz.Config{
			Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler,
			Target: target.Target{Argv: []string{bin, "serve", "mcp", "--variant", "invalid-request-null-id"}},
			Runs:   200, Seed: 1, Timeout: time.Second, StartupTimeout: 5 * time.Second,
			ShrinkTime: 2 * time.Second, Level: verdict.Must,
		})
		Expect(err).NotTo(HaveOccurred())
		bugs, err := c.Run(context.Background())
		Expect(err).NotTo(HaveOccurred())
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
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		// Ended at the first failure, unshrunk: what is asked is which
		// rule fuzz names, and each wait for an answer that never comes
		// costs a --timeout.
		c, err := fuzz.New(fuzz.Config{
			Protocol: b.Protocol, Schemas: b.Schemas,
			Target: target.Target{Argv: []string{bin, "serve", "sonde-serve", "--fault", "malformed-silent"}},
			Runs:   60, Seed: 1, Timeout: time.Second, StartupTimeout: 5 * time.Second,
			ShrinkTime: time.Nanosecond, MaxFailures: 1,
		})
		Expect(err).NotTo(HaveOccurred())
		bugs, err := c.Run(context.Background())
		Expect(err).NotTo(HaveOccurred())
		var found []string
		for _, b := range bugs {
			found = append(found, b.Rule+" after "+b.Shape)
		}
		Expect(found).To(ContainElement("SONDE-MALFORMED-1 after malformed bytes: truncated JSON"))
	})
})
