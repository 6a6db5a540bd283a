package scenario_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// sink is a transport that takes every write and answers nothing.
type sink struct {
	frames chan transport.Frame
	wrote  int
}

func (s *sink) Send(b []byte) error              { s.wrote += len(b); return nil }
func (s *sink) WriteRaw(b []byte) error          { s.wrote += len(b); return nil }
func (s *sink) Recv() <-chan transport.Frame     { return s.frames }
func (s *sink) Stderr() <-chan transport.Frame   { return nil }
func (s *sink) CloseInput() error                { return nil }
func (s *sink) Exited() <-chan struct{}          { return nil }
func (s *sink) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (s *sink) Overflowed() bool                 { return false }
func (s *sink) Close() error                     { close(s.frames); return nil }

// BenchmarkSendRaw runs a send_raw step of a 1 MiB line (the fuzzer's
// largest malformed line) against the same write of the line copied into
// bytes first, as the step did before, alternating in one run. Metrics:
// x-before (the step's time over the copying send's), B/step.
func BenchmarkSendRaw(b *testing.B) {
	t := &sink{frames: make(chan transport.Frame)}
	proto, err := spec.Parse("specs/demo.yaml", []byte(baseSpec), nil, verdict.Checks, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := peer.New(peer.Options{Protocol: proto, Transport: t, Recorder: transcript.NewRecorder()})
	defer p.Close()
	e := &scenario.Env{}
	e.SetPeer(p)
	text := `{"method":"` + strings.Repeat("x", 1<<20) + "\"}\n"
	step := scenario.Step{SendRaw: &text, Answered: new(bool)}
	var stepT, copyT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := e.Do(&step); err != nil {
			b.Fatal(err)
		}
		stepT += time.Since(start)
		start = time.Now()
		if err := p.SendRaw([]byte(text), false); err != nil {
			b.Fatal(err)
		}
		copyT += time.Since(start)
	}
	b.StopTimer()
	if t.wrote != 2*b.N*len(text) {
		b.Fatalf("wrote %d bytes, want %d", t.wrote, 2*b.N*len(text))
	}
	b.ReportMetric(float64(stepT)/float64(copyT), "x-before")
	b.ReportMetric(testing.AllocsPerRun(10, func() { _ = e.Do(&step) }), "allocs/step")
}
