package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// hooked is a transport with nothing to say that keeps the hooks it is
// given, as the HTTP transport does.
type hooked struct {
	recv, errs chan transport.Frame
	exited     chan struct{}
	hooks      transport.Hooks
}

func newHooked() *hooked {
	return &hooked{recv: make(chan transport.Frame), errs: make(chan transport.Frame), exited: make(chan struct{})}
}

func (h *hooked) SetHooks(k transport.Hooks)       { h.hooks = k }
func (h *hooked) Send([]byte) error                { return nil }
func (h *hooked) WriteRaw([]byte) error            { return nil }
func (h *hooked) Recv() <-chan transport.Frame     { return h.recv }
func (h *hooked) Stderr() <-chan transport.Frame   { return h.errs }
func (h *hooked) CloseInput() error                { return nil }
func (h *hooked) Exited() <-chan struct{}          { return h.exited }
func (h *hooked) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (h *hooked) Overflowed() bool                 { return false }
func (h *hooked) Close() error {
	select {
	case <-h.exited:
	default:
		close(h.exited)
		close(h.recv)
		close(h.errs)
	}
	return nil
}

var _ = Describe("a transport's hooks", func() {
	It("judge the current scenario's rules through the peer's checks and note into the transcript", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		obs := &observations{}
		rec := transcript.NewRecorder()
		tr := newHooked()
		p := peer.New(peer.Options{Protocol: b.Protocol, Schemas: b.Schemas, Transport: tr, Recorder: rec, Observe: obs.observe})
		DeferCleanup(p.Close)
		p.SetScenario("tools-list")
		session.Hook(tr, p, rec)
		Expect(tr.hooks.Check).NotTo(BeNil())

		seq := tr.hooks.Note("POST → HTTP 500 text/html")
		entries := rec.Slice(seq, seq+1)
		Expect(entries).To(HaveLen(1))
		Expect(entries[0].Dir).To(Equal(transcript.Note))
		Expect(entries[0].Text).To(Equal("POST → HTTP 500 text/html"))
		Expect(entries[0].Scenario).To(Equal("tools-list"))

		tr.hooks.Check(verdict.CheckTimely, verdict.Fail, "no response headers within 300ms", "a response", "nothing")
		obs.mu.Lock()
		defer obs.mu.Unlock()
		Expect(obs.list).To(ContainElement(verdict.Observation{Rule: "MCP-JSONRPC-5", Verdict: verdict.Fail, Scenario: "tools-list",
			Seq: seq, Message: "no response headers within 300ms", Expected: "a response", Actual: "nothing"}))
	})

	It("leave a transport without hooks alone", func() {
		Expect(func() { session.Hook(&struct{ transport.Transport }{}, nil, nil) }).NotTo(Panic())
	})
})

var _ = Describe("a launched HTTP server whose port never answers", func() {
	It("did not start, though launched, and the error shows its stderr", func() {
		o := options("mcp", &observations{}, "sh", "-c", "echo cannot listen on $PORT >&2; exit 3")
		o.Target.Transport, o.Target.Env = "http", []string{"PORT={port}"}
		_, err := session.Launch(o)
		var ns *session.NotStarted
		Expect(err).To(BeAssignableToTypeOf(ns))
		ns = err.(*session.NotStarted)
		Expect(ns.Launched).To(BeTrue())
		Expect(ns.Awaited).To(Equal("an answer on its port (OPTIONS *, or a TLS handshake)"))
		Expect(ns.Cause).To(ContainSubstring("the server exited (exit 3) before 127.0.0.1:"))
		Expect(ns.Stderr).To(ConsistOf(MatchRegexp(`^cannot listen on \d+$`)))
	})
})
