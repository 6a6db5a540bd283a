package toolhost_test

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

var _ = Describe("fuzzing a lenient tool host", func() {
	It("finds nothing at --level should in 200 sequences of a fixed seed", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		b, err := protocols.Load("tool-host")
		Expect(err).NotTo(HaveOccurred())
		// A host that serves whatever it can read and answers the rest
		// without an id: every reading the silence rules accept at once.
		argv := []string{bin, "serve", "tool-host", "--variant", "params-default", "--variant", "lenient-params",
			"--variant", "serve-no-id", "--variant", "omit-null-id", "--variant", "extra-fields", "--variant", "event-kinds"}
		c, err := fuzz.New(fuzz.Config{
			Protocol: b.Protocol, Schemas: b.Schemas,
			Target: target.Target{Argv: argv},
			Runs:   200, Seed: 10, Timeout: 2 * time.Second, StartupTimeout: 10 * time.Second,
			ShrinkTime: 5 * time.Second, Level: verdict.Should,
		})
		Expect(err).NotTo(HaveOccurred())
		bugs, err := c.Run(context.Background())
		Expect(err).NotTo(HaveOccurred())
		for _, bug := range bugs {
			Expect(bug).To(BeNil(), "%s (%s) after %s: %s\nexpected %s\nactual %s",
				bug.Rule, bug.Level, bug.Shape, bug.First.Message, bug.First.Expected, bug.First.Actual)
		}
		Expect(c.Stats().Sequences).To(BeNumerically(">=", 200))
	})
})
