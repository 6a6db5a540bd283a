//go:build unix

package transport

import (
	"bufio"
	"os/exec"
	"testing"
	"time"
)

// The benchmarks talk to cat, so what they measure is the transport's cost
// over the pipes themselves. Each also runs a bare client (exec, a write, a
// bufio.Scanner) for the same b.N and reports the ratio to it, "x-bare":
// absolute figures say more about the machine than about the code.

var benchMsg = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)

type bareCat struct {
	cmd *exec.Cmd
	in  interface{ Write([]byte) (int, error) }
	out *bufio.Scanner
}

func startBareCat(b *testing.B) *bareCat {
	b.Helper()
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, readBufSize), DefaultMaxFrame)
	b.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	return &bareCat{cmd: cmd, in: in, out: sc}
}

func launchCat(b *testing.B) Transport {
	b.Helper()
	tr, err := Launch(Options{Command: []string{"cat"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tr.Close() })
	return tr
}

func report(b *testing.B, bare, ours time.Duration) {
	b.ReportMetric(float64(ours)/float64(bare), "x-bare")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/op")
}

// roundTripChunk is how many round trips run before switching between the
// bare client and the transport. Alternating keeps drift in the machine's
// speed (other tenants, frequency scaling) out of the ratio.
const roundTripChunk = 500

// BenchmarkStdioRoundTrip: one request in flight at a time, the latency a
// scripted scenario sees.
func BenchmarkStdioRoundTrip(b *testing.B) {
	line := append(append([]byte{}, benchMsg...), '\n')
	bare := startBareCat(b)
	tr := launchCat(b)
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	var bareTime, ours time.Duration
	for done := 0; done < b.N; {
		n := min(roundTripChunk, b.N-done)
		done += n

		b.StopTimer()
		start := time.Now()
		for range n {
			if _, err := bare.in.Write(line); err != nil {
				b.Fatal(err)
			}
			if !bare.out.Scan() {
				b.Fatal(bare.out.Err())
			}
		}
		bareTime += time.Since(start)
		b.StartTimer()

		start = time.Now()
		for range n {
			if err := tr.Send(benchMsg); err != nil {
				b.Fatal(err)
			}
			if _, ok := <-tr.Recv(); !ok {
				b.Fatal("Recv closed")
			}
		}
		ours += time.Since(start)
	}
	b.StopTimer()
	report(b, bareTime, ours)
}

// BenchmarkStdioPipelined: a writer streams while a reader drains, the
// throughput a fuzz run or a flood sees.
func BenchmarkStdioPipelined(b *testing.B) {
	line := append(append([]byte{}, benchMsg...), '\n')
	bare := startBareCat(b)
	start := time.Now()
	go func() {
		for range b.N {
			if _, err := bare.in.Write(line); err != nil {
				return
			}
		}
	}()
	for range b.N {
		if !bare.out.Scan() {
			b.Fatal(bare.out.Err())
		}
	}
	bareTime := time.Since(start)

	tr := launchCat(b)
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	start = time.Now()
	done := make(chan struct{})
	go func() {
		for range b.N {
			if tr.Send(benchMsg) != nil {
				return
			}
		}
		// Should the reader ever drop frames, the loop below would wait for
		// them for ever; closing turns that into a failure.
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = tr.Close()
		}
	}()
	for range b.N {
		if _, ok := <-tr.Recv(); !ok {
			b.Fatalf("Recv closed; overflowed: %v", tr.Overflowed())
		}
	}
	ours := time.Since(start)
	close(done)
	b.StopTimer()
	report(b, bareTime, ours)
}
