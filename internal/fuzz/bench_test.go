package fuzz_test

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// BenchmarkFuzz measures a fuzz campaign against the sonde-serve reference
// server (a fresh process per sequence, as the fuzzer runs them) and, in
// the same run, a bare client that starts the same number of processes and
// makes the same number of line round trips with no generation and no
// checks. The ratio is what generation, checking and liveness probes cost.
func BenchmarkFuzz(b *testing.B) {
	bin, err := testbin.Wirecheck()
	if err != nil {
		b.Fatal(err)
	}
	bu, err := protocols.Load("sonde-serve")
	if err != nil {
		b.Fatal(err)
	}
	argv := []string{bin, "serve", "sonde-serve"}
	c, err := fuzz.New(fuzz.Config{
		Protocol: bu.Protocol, Schemas: bu.Schemas, Runs: b.N, Seed: 1,
		Target: target.Target{Argv: argv},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	if _, err := c.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	fuzzT := time.Since(start)
	b.StopTimer()
	st := c.Stats()
	perSeq := max(1, int(st.Messages/max(1, st.Sequences)))

	start = time.Now()
	for i := int64(0); i < st.Sequences; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		rd := bufio.NewReader(out)
		rd.ReadSlice('\n') // ready line
		for k := 0; k < perSeq; k++ {
			fmt.Fprintf(in, "{\"id\":%d,\"method\":\"tools/list\"}\n", k)
			if _, err := rd.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
		}
		in.Close()
		cmd.Wait()
	}
	bareT := time.Since(start)
	b.ReportMetric(float64(st.Messages)/fuzzT.Seconds(), "fuzz-msg/s")
	b.ReportMetric(float64(st.Sequences)/fuzzT.Seconds(), "sequences/s")
	b.ReportMetric(float64(st.Sequences*int64(perSeq))/bareT.Seconds(), "bare-rt/s")
	b.ReportMetric(fuzzT.Seconds()/bareT.Seconds(), "x-bare")
}
