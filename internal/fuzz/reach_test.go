package fuzz_test

import (
	"context"
	"errors"
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
)

var _ = Describe("a campaign against a running server (--url alone) no connection reaches", func() {
	It("ends before its first sequence as one whose server never started: no bug, the cause in the error", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		sequences := 0
		c, err := fuzz.New(fuzz.Config{Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge,
			Target: target.Target{URL: "http://" + addr + "/mcp", Transport: "http"},
			Runs:   5, Seed: 1, Timeout: 2 * time.Second, Trace: func([]scenario.Step) { sequences++ }})
		Expect(err).NotTo(HaveOccurred())
		bugs, err := c.Run(context.Background())
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(ns.Cause).To(Equal("nothing is listening on " + addr + " (connection refused)"))
		Expect(bugs).To(BeEmpty())
		Expect(sequences).To(BeZero())
	})
})
