package peer_test

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// BenchmarkRoundTrip measures tools/list round trips against the sonde-serve
// reference server over stdio: through the peer (framing, transcript,
// correlation, schema validation and every frame check) and, alternating in
// the same run, through a bare client that writes a line and reads a line.
// The ratio is the cost of checking.
func BenchmarkRoundTrip(b *testing.B) {
	bin, err := testbin.Wirecheck()
	if err != nil {
		b.Fatal(err)
	}
	bu, err := protocols.Load("sonde-serve")
	if err != nil {
		b.Fatal(err)
	}

	// The bare client: one process, a writer and a line reader.
	bare := exec.Command(bin, "serve", "sonde-serve")
	stdin, _ := bare.StdinPipe()
	stdout, _ := bare.StdoutPipe()
	if err := bare.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); bare.Wait() }()
	rd := bufio.NewReaderSize(stdout, 64<<10)
	if _, err := rd.ReadSlice('\n'); err != nil { // ready line
		b.Fatal(err)
	}

	// The checked client: a peer on the stdio transport.
	t, err := transport.Launch(transport.Options{Command: []string{bin, "serve", "sonde-serve"}})
	if err != nil {
		b.Fatal(err)
	}
	frames := 0
	p := peer.New(peer.Options{Protocol: bu.Protocol, Schemas: bu.Schemas, Transport: t,
		Recorder: transcript.NewRecorder(), Observe: func(verdict.Observation) { frames++ }})
	defer p.Close()
	if _, err := p.Next(5 * time.Second); err != nil { // ready line
		b.Fatal(err)
	}

	const block = 200
	var bareT, checkedT time.Duration
	n := 0
	b.ResetTimer()
	for n < b.N {
		k := min(block, b.N-n)
		start := time.Now()
		for i := 0; i < k; i++ {
			fmt.Fprintf(stdin, "{\"id\":%d,\"method\":\"tools/list\"}\n", n+i)
			if _, err := rd.ReadSlice('\n'); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
		bareT += time.Since(start)
		start = time.Now()
		for i := 0; i < k; i++ {
			c, err := p.Request(fmt.Appendf(nil, "{\"id\":%d,\"method\":\"tools/list\"}", n+i))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Wait(c, 5*time.Second); err != nil {
				b.Fatal(err)
			}
		}
		checkedT += time.Since(start)
		n += k
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/checkedT.Seconds(), "checked-rt/s")
	b.ReportMetric(float64(b.N)/bareT.Seconds(), "bare-rt/s")
	b.ReportMetric(float64(checkedT)/float64(bareT), "x-bare")
}

// BenchmarkValidateFrame measures the hot path alone: one tools/list
// response through decode, classification, correlation and validation,
// against decoding it into a map with nothing else (the baseline).
func BenchmarkValidateFrame(b *testing.B) {
	bu, err := protocols.Load("sonde-serve")
	if err != nil {
		b.Fatal(err)
	}
	frame := []byte(`{"id":1,"ok":true,"protocolVersion":"1.0.0","result":{"tools":[{"name":"echo","description":"Return the text it is given","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},{"name":"deploy","description":"Deploy project","inputSchema":{"type":"object","properties":{"target":{"enum":["preview","production"]}}}}]}}`)
	f := newFakeB()
	p := peer.New(peer.Options{Protocol: bu.Protocol, Schemas: bu.Schemas, Transport: f,
		Recorder: transcript.NewRecorder(), Observe: func(verdict.Observation) {}})
	defer p.Close()

	var base, checked time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := decodeOnly(frame); err != nil {
			b.Fatal(err)
		}
		base += time.Since(start)
		start = time.Now()
		c, _ := p.Request(fmt.Appendf(nil, `{"id":1,"method":"tools/list"}`))
		f.frames <- transport.Frame{Raw: frame}
		if _, err := p.Wait(c, time.Second); err != nil {
			b.Fatal(err)
		}
		checked += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/checked.Seconds(), "frames-validated/s")
	b.ReportMetric(float64(checked)/float64(base), "x-decode-only")
}
