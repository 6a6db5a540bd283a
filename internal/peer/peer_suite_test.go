package peer_test

import (
	"os"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func TestPeer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Peer Suite")
}

// fake is an in-memory transport: what the peer sends lands in sent, and
// the test plays the server by pushing frames.
type fake struct {
	mu     sync.Mutex
	sent   [][]byte
	frames chan transport.Frame
	exited chan struct{}
	once   sync.Once
}

func newFake() *fake {
	return &fake{frames: make(chan transport.Frame, 1024), exited: make(chan struct{})}
}

func (f *fake) Send(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, append([]byte(nil), b...))
	return nil
}
func (f *fake) WriteRaw(b []byte) error          { return f.Send(b) }
func (f *fake) Recv() <-chan transport.Frame     { return f.frames }
func (f *fake) Stderr() <-chan transport.Frame   { return nil }
func (f *fake) CloseInput() error                { return nil }
func (f *fake) Exited() <-chan struct{}          { return f.exited }
func (f *fake) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (f *fake) Overflowed() bool                 { return false }
func (f *fake) push(s string)                    { f.frames <- transport.Frame{Raw: []byte(s), At: time.Now()} }
func (f *fake) pushFrame(fr transport.Frame)     { f.frames <- fr }
func (f *fake) Close() error {
	f.once.Do(func() { close(f.frames); close(f.exited) })
	return nil
}
func (f *fake) lastSent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) == 0 {
		return ""
	}
	return string(f.sent[len(f.sent)-1])
}

// miniProtocol loads testdata/mini.yaml with its schemas.
func miniProtocol() (*spec.Protocol, *schema.Registry) { return miniFrom("mini.yaml") }

// miniFrom loads a spec of the mini protocol from testdata.
func miniFrom(file string) (*spec.Protocol, *schema.Registry) {
	fsys := os.DirFS("testdata")
	p, err := spec.Load(fsys, file, os.DirFS("testdata/schemas"), verdict.Checks, nil)
	Expect(err).NotTo(HaveOccurred())
	reg, err := schema.Compile(os.DirFS("testdata/schemas"), "mini")
	Expect(err).NotTo(HaveOccurred())
	return p, reg
}

// observations collects what the peer reports, safely across goroutines.
type observations struct {
	mu  sync.Mutex
	all []verdict.Observation
}

func (o *observations) add(ob verdict.Observation) {
	o.mu.Lock()
	o.all = append(o.all, ob)
	o.mu.Unlock()
}

// verdicts returns the verdicts seen for a rule, in order.
func (o *observations) verdicts(rule string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, ob := range o.all {
		if ob.Rule == rule {
			out = append(out, string(ob.Verdict))
		}
	}
	return out
}

func newPeer(handler peer.Handler) (*peer.Peer, *fake, *observations) {
	return newPeerFrom("mini.yaml", handler)
}

// newPeerFrom is newPeer on another spec of the mini protocol.
func newPeerFrom(file string, handler peer.Handler) (*peer.Peer, *fake, *observations) {
	p, reg := miniFrom(file)
	f := newFake()
	obs := &observations{}
	pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: f, Recorder: transcript.NewRecorder(), Observe: obs.add, Handler: handler})
	DeferCleanup(pe.Close)
	return pe, f, obs
}
