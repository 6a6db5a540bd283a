package fuzz_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/suite/mcp"
	"github.com/wirecheck/wirecheck/internal/suite/sondeserve"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Issue 26: a verdict must not depend on which command sent the frame.
// Every reference fault and variant of every protocol with a frame judge
// is run through run's path (the runner), each server process's frames
// recorded as its judge saw them; then those frames are judged again
// through fuzz's path (the peer a campaign's session options make, fed
// the recorded frames in their order), and the two judges' verdicts are
// compared rule by rule. A path that leaves out the judge, or a rule the
// judge decides on one path only, shows as a difference.

// seenFrame is one frame a judge saw: sent by wirecheck (call: as a
// tracked request) or received, with how it came over HTTP.
type seenFrame struct {
	sent, call bool
	raw        []byte
	via        *transport.Via
}

// taping makes recording judges around a protocol's judge, one per
// server process.
type taping struct {
	mu    sync.Mutex
	tapes []*tape
}

func (t *taping) judge(inner peer.NewJudge) peer.NewJudge {
	return func(p *spec.Protocol) peer.Judge {
		tp := &tape{inner: inner(p), proto: p, verdicts: map[string]int{}}
		t.mu.Lock()
		t.tapes = append(t.tapes, tp)
		t.mu.Unlock()
		return tp
	}
}

// tape is a judge that records the frames it is shown and the verdicts
// of the judge it wraps. Its lock is held across the wrapped judge's
// call, so the frames are recorded in the order that judge saw them.
type tape struct {
	mu       sync.Mutex
	inner    peer.Judge
	proto    *spec.Protocol
	frames   []seenFrame
	verdicts map[string]int // "RULE verdict" → how many
}

func (t *tape) Sent(raw []byte, c *peer.Call) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.frames = append(t.frames, seenFrame{sent: true, call: c != nil, raw: bytes.Clone(raw)})
	t.inner.Sent(raw, c)
}

func (t *tape) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.frames = append(t.frames, seenFrame{raw: bytes.Clone(in.Raw), via: in.HTTP})
	t.inner.Received(in, method, taped{v, t.verdicts})
}

// taped counts a judge's verdicts as it passes them on.
type taped struct {
	v peer.Verdicts
	n map[string]int
}

func (t taped) Pass(rule string, seq int) { t.n[rule+" pass"]++; t.v.Pass(rule, seq) }
func (t taped) Fail(rule string, seq int, msg, expected, actual string) {
	t.n[rule+" fail"]++
	t.v.Fail(rule, seq, msg, expected, actual)
}
func (t taped) Skip(rule, why string) { t.n[rule+" skip"]++; t.v.Skip(rule, why) }

// replayed is a transport that writes nowhere and hands the peer the
// frames it is given, on the caller's goroutine (a transport.Sinker), so
// each is judged before the next frame is sent or given.
type replayed struct {
	sink   transport.Sink
	recv   chan transport.Frame
	exited chan struct{}
	once   sync.Once
}

func newReplayed() *replayed {
	return &replayed{recv: make(chan transport.Frame), exited: make(chan struct{})}
}

func (r *replayed) SetSink(s transport.Sink)         { r.sink = s }
func (r *replayed) Send([]byte) error                { return nil }
func (r *replayed) WriteRaw([]byte) error            { return nil }
func (r *replayed) Recv() <-chan transport.Frame     { return r.recv }
func (r *replayed) Stderr() <-chan transport.Frame   { return nil }
func (r *replayed) CloseInput() error                { return nil }
func (r *replayed) Exited() <-chan struct{}          { return r.exited }
func (r *replayed) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (r *replayed) Overflowed() bool                 { return false }
func (r *replayed) give(f transport.Frame)           { r.sink(f, false) }
func (r *replayed) Close() error {
	r.once.Do(func() { close(r.recv); close(r.exited) })
	return nil
}

// isAnswer reports whether wirecheck's frame answers a server request:
// the peer's handler writes it again when the request is given.
func isAnswer(raw []byte) bool {
	return !bytes.Contains(raw, []byte(`"method"`)) && (bytes.Contains(raw, []byte(`"result"`)) || bytes.Contains(raw, []byte(`"error"`)))
}

// judgeAsFuzz judges a process's recorded frames through fuzz's path and
// returns its judge's verdicts (nil when that path made no judge).
func judgeAsFuzz(b *protocols.Bundle, recorded *tape) map[string]int {
	var t taping
	c, err := fuzz.New(fuzz.Config{Protocol: recorded.proto, Schemas: b.Schemas, Handler: b.Handler, Judge: t.judge(b.Judge),
		Target: target.Target{Argv: []string{"replay"}}, Runs: 1})
	Expect(err).NotTo(HaveOccurred())
	o := fuzz.SessionOptions(c, func(verdict.Observation) {})
	o.Recorder = transcript.NewRecorder()
	tr := newReplayed()
	p := peer.New(o.PeerOptions(tr))
	defer func() { _ = p.Close() }()
	for _, f := range recorded.frames {
		switch {
		case !f.sent:
			tr.give(transport.Frame{Raw: f.raw, At: time.Now(), HTTP: f.via})
		case f.call:
			if _, err := p.Request(f.raw); err != nil {
				_ = p.SendRaw(append(bytes.Clone(f.raw), '\n'), false)
			}
		case isAnswer(f.raw):
		default:
			_ = p.SendRaw(append(bytes.Clone(f.raw), '\n'), false)
		}
	}
	if len(t.tapes) == 0 {
		return nil
	}
	Expect(t.tapes).To(HaveLen(1))
	return t.tapes[0].verdicts
}

// oneRun is a reference server's run: a fault or a variant, under its
// revision, over its transport.
type oneRun struct {
	protocol, kind, name, revision, transport string
}

func (r oneRun) String() string {
	s := r.protocol + " " + r.kind + " " + r.name
	if r.revision != "" {
		s += " at " + r.revision
	}
	if r.transport != "" {
		s += " over " + r.transport
	}
	return s
}

// runsOf lists a protocol's clean run, its faults and its variants, at
// the default revision unless one names another, over the protocol's
// first transport unless one names another.
func runsOf(b *protocols.Bundle) []oneRun {
	id := b.Protocol.ID
	first := ""
	if len(b.Protocol.Transports) > 0 && b.Protocol.Transports[0] != "stdio" {
		first = b.Protocol.Transports[0]
	}
	out := []oneRun{{protocol: id, kind: "suite", transport: first}}
	over := func(tr string) string {
		if tr == "" || tr == "stdio" {
			return first
		}
		return tr
	}
	for _, f := range b.Protocol.Faults {
		out = append(out, oneRun{id, "fault", f.Name, f.Version, over(f.Transport)})
	}
	for _, v := range b.Protocol.Variants {
		out = append(out, oneRun{id, "variant", v.Name, v.Version, over(v.Transport)})
	}
	return out
}

// server is the run's reference server: in this process over stdio, a
// launched `wirecheck serve` over HTTP (its transport is what is tested).
func (r oneRun) server(b *protocols.Bundle) testrun.Server {
	s := testrun.Server{Protocol: r.protocol, Revision: r.revision}
	switch r.kind {
	case "fault":
		s.Faults = []string{r.name}
	case "variant":
		s.Variants = []string{r.name}
	}
	if r.transport == "" {
		faults, variants, serve := s.Faults, s.Variants, b.Serve
		s.Command = target.Target{Serve: func(in io.Reader, out io.Writer) error {
			if code := serve(refserver.Options{Faults: faults, Variants: variants, In: in, Out: out, Log: io.Discard}); code != 0 {
				return fmt.Errorf("exit %d", code)
			}
			return nil
		}}
		return s
	}
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", r.protocol, "--" + r.transport, "127.0.0.1:{port}"}
	for _, f := range s.Faults {
		argv = append(argv, "--fault", f)
	}
	for _, v := range s.Variants {
		argv = append(argv, "--variant", v)
	}
	s.Command = target.Target{Argv: argv, Transport: r.transport, Paths: b.Protocol.Endpoints}
	switch {
	case b.Protocol.Base != "":
		s.Command.Headers = []string{"Authorization: Bearer " + refmcp.DemoToken()}
	case refmcp.RequiresToken(s.Faults, s.Variants):
		s.Command.Headers = []string{"Authorization: Bearer " + refmcp.Token}
	}
	return s
}

// differences runs r through run's path and judges its frames again
// through fuzz's, and lists where the verdicts differ (empty: none), and
// the rules run's judge failed.
func differences(r oneRun) (diffs, failed []string) {
	b, err := protocols.Load(r.protocol)
	Expect(err).NotTo(HaveOccurred())
	var t taping
	_, err = testrun.Run(r.server(b), runner.Config{Scenarios: judged(b), Judge: t.judge(b.Judge), Timeout: time.Second, StartupTimeout: 5 * time.Second})
	if err != nil {
		// A server that never starts (a fault of its start) shows no frame.
		return nil, nil
	}
	rules := judgeRules(b)
	for i, tp := range t.tapes {
		tp.mu.Lock()
		run := tp.verdicts
		tp.mu.Unlock()
		fz := judgeAsFuzz(b, tp)
		for _, k := range keys(run, fz) {
			if run[k] != fz[k] {
				diffs = append(diffs, fmt.Sprintf("%s, process %d: %s: run %d, fuzz %d", r, i+1, k, run[k], fz[k]))
			}
			rule, v, _ := strings.Cut(k, " ")
			if !slices.Contains(rules, rule) {
				diffs = append(diffs, fmt.Sprintf("%s: the judge decided %s, which its list of rules does not name", r, rule))
			}
			if v == "fail" && run[k] > 0 {
				failed = append(failed, rule)
			}
		}
	}
	return diffs, failed
}

// judgeRules are the rules a protocol's frame judge decides: MCP's, for
// MCP and its profiles; sonde-serve's.
func judgeRules(b *protocols.Bundle) []string {
	switch {
	case b.Protocol.ID == "sonde-serve":
		return sondeserve.JudgeRules
	case b.Protocol.ID != "mcp" && b.Protocol.Base != "mcp":
		Fail(b.Protocol.ID + " brings a frame judge: name the rules it decides here")
	}
	return mcp.JudgeRules
}

// judged are the scenarios of a protocol that decide a rule of its frame
// judge: the exchanges that show it what it judges (any other frame a
// fault brings, in any scenario, is one the judge sees the same way).
func judged(b *protocols.Bundle) []*scenario.Scenario {
	rules := judgeRules(b)
	var out []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if slices.ContainsFunc(sc.Rules, func(r string) bool { return slices.Contains(rules, r) }) {
			out = append(out, sc)
		}
	}
	return out
}

func keys(ms ...map[string]int) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			set[k] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = Describe("one frame judge on every path", func() {
	It("judges the recorded frames of every reference fault and variant alike through run's path and fuzz's", func() {
		var all []oneRun
		for _, id := range protocols.IDs() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			if b.Judge == nil {
				continue // no frame judge: nothing judged per frame but the schemas
			}
			all = append(all, runsOf(b)...)
		}
		start := time.Now()
		var mu sync.Mutex
		var diffs []string
		tripped := map[string]bool{}
		sem := make(chan struct{}, 4*runtime.NumCPU())
		var wg sync.WaitGroup
		for _, r := range all {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				defer func() { <-sem }()
				d, failed := differences(r)
				mu.Lock()
				defer mu.Unlock()
				diffs = append(diffs, d...)
				for _, rule := range failed {
					tripped[r.protocol+" "+r.name+" "+rule] = true
				}
			}()
		}
		wg.Wait()
		GinkgoWriter.Printf("%d runs recorded and judged again in %s\n", len(all), time.Since(start).Round(time.Millisecond))
		sort.Strings(diffs)
		Expect(diffs).To(BeEmpty())
		// The comparison has teeth: the faults of the judge's rules
		// failed them on run's path (and so, equal, on fuzz's).
		Expect(tripped).To(HaveKey("mcp progress-wrong-token MCP-PROGRESS-1"))
		Expect(tripped).To(HaveKey("mcp log-always MCP-LOGGING-3"))
		Expect(tripped).To(HaveKey("mcp listen-unrequested MCP-SUBS-3"))
		Expect(tripped).To(HaveKey("mcp updated-unsubscribed MCP-RESOURCES-8"))
		Expect(tripped).To(HaveKey("mcp sse-notification-unrelated MCP-HTTP-STREAM-5"))
	})
})
