package scenario_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// dying is a transport whose server has exited, its stdout ended, and
// whose last stderr line is still in the pipe: it arrives a moment after
// anyone first asks whether the process exited.
type dying struct {
	frames, stderr chan transport.Frame
	exited         chan struct{}
	asked          sync.Once
}

func newDying() *dying {
	d := &dying{frames: make(chan transport.Frame), stderr: make(chan transport.Frame), exited: make(chan struct{})}
	close(d.frames)
	close(d.exited)
	return d
}

func (d *dying) Exited() <-chan struct{} {
	d.asked.Do(func() {
		go func() {
			time.Sleep(20 * time.Millisecond)
			d.stderr <- transport.Frame{Raw: []byte("panic: the manifest is corrupt"), At: time.Now()}
			close(d.stderr)
		}()
	})
	return d.exited
}
func (d *dying) Send([]byte) error                { return nil }
func (d *dying) WriteRaw([]byte) error            { return nil }
func (d *dying) Recv() <-chan transport.Frame     { return d.frames }
func (d *dying) Stderr() <-chan transport.Frame   { return d.stderr }
func (d *dying) CloseInput() error                { return nil }
func (d *dying) ExitStatus() transport.ExitStatus { return transport.ExitStatus{Code: 2} }
func (d *dying) Overflowed() bool                 { return false }
func (d *dying) Close() error                     { return nil }

var _ = Describe("how a server ended", func() {
	It("includes the stderr line it wrote just before it exited", func() {
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: newDying(), Recorder: transcript.NewRecorder()})
		e := &scenario.Env{}
		e.SetPeer(p)
		Expect(e.Gone()).To(Equal("the server exited (exit 2); last stderr: panic: the manifest is corrupt"))
	})
})

// silentAlive is a server that runs on and writes nothing.
type silentAlive struct{ frames, stderr chan transport.Frame }

func (s *silentAlive) Send([]byte) error                { return nil }
func (s *silentAlive) WriteRaw([]byte) error            { return nil }
func (s *silentAlive) Recv() <-chan transport.Frame     { return s.frames }
func (s *silentAlive) Stderr() <-chan transport.Frame   { return s.stderr }
func (s *silentAlive) CloseInput() error                { return nil }
func (s *silentAlive) Exited() <-chan struct{}          { return nil }
func (s *silentAlive) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (s *silentAlive) Overflowed() bool                 { return false }
func (s *silentAlive) Close() error                     { return nil }

var _ = Describe("a wait for a frame no request is owed that ended without it (Env.Absent)", func() {
	const survives = "  - {id: DEMO-SURVIVE-1, level: SHOULD, title: s, section: S, checks: [proc.survives]}\n"
	absent := func(tr transport.Transport, extra string) []verdict.Observation {
		p := peer.New(peer.Options{Protocol: protocol(extra), Transport: tr, Recorder: transcript.NewRecorder()})
		var got []verdict.Observation
		e := &scenario.Env{Protocol: p.Protocol(), Observe: func(o verdict.Observation) { got = append(got, o) }}
		e.SetPeer(p)
		if _, ok := tr.(*dying); ok {
			Eventually(p.Gone()).Should(BeClosed())
		}
		e.Absent("DEMO-A-1", -1, "no callback arrived within 1m0s", "a callback", "nothing")
		return got
	}

	It("fails the rule while the server runs on", func() {
		got := absent(&silentAlive{frames: make(chan transport.Frame), stderr: make(chan transport.Frame)}, "")
		Expect(got).To(ConsistOf(And(HaveField("Verdict", verdict.Fail), HaveField("Message", "no callback arrived within 1m0s"))))
	})

	It("is no failure once the server is dead: a skip naming the death, which the survival rule reports", func() {
		got := absent(newDying(), survives)
		Expect(got).To(HaveLen(1))
		Expect(got[0].Verdict).To(Equal(verdict.Skip))
		Expect(got[0].Message).To(MatchRegexp(`^not observed: the server exited \(exit 2\) [0-9.]+[µm]?s before the wait ended; last stderr: panic: the manifest is corrupt \(the wait: no callback arrived within 1m0s\)$`))
	})

	It("is an error where no rule of the protocol judges survival, so the run still cannot pass on it", func() {
		got := absent(newDying(), "")
		Expect(got).To(ConsistOf(HaveField("Verdict", verdict.Error)))
	})
})

// refusing is a transport over HTTP whose every request's exchange ends
// without an answer; the rest of it is silent's.
type refusing struct{ silent }

func (r *refusing) Send(msg []byte) error {
	r.frames <- transport.Frame{At: time.Now(), HTTP: &transport.Via{Verb: "POST", Status: 502, For: "1", End: "HTTP 502 text/html"}}
	return nil
}

var _ = Describe("a request whose HTTP exchange ended without an answer", func() {
	It("is not answered, at once, and the server is neither gone nor hung", func() {
		tr := &refusing{silent{frames: make(chan transport.Frame, 1), exited: make(chan struct{})}}
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: tr, Recorder: transcript.NewRecorder()})
		DeferCleanup(p.Close)
		e := &scenario.Env{Timeout: time.Minute}
		e.SetPeer(p)
		c, err := e.Send(map[string]any{"id": 1, "method": "x"})
		Expect(err).NotTo(HaveOccurred())
		_, err = e.Await(c, 0)
		Expect(err).To(MatchError(scenario.ErrNoAnswer))
		Expect(err).To(MatchError(ContainSubstring("request id 1 (x): the request's exchange ended without an answer: HTTP 502 text/html")))
		Expect(e.Hung).To(BeFalse())
	})
})

// silent is a transport whose server reads everything and answers nothing.
type silent struct {
	frames chan transport.Frame
	exited chan struct{}
}

func (s *silent) Send([]byte) error                { return nil }
func (s *silent) WriteRaw([]byte) error            { return nil }
func (s *silent) Recv() <-chan transport.Frame     { return s.frames }
func (s *silent) Stderr() <-chan transport.Frame   { return nil }
func (s *silent) CloseInput() error                { return nil }
func (s *silent) Exited() <-chan struct{}          { return s.exited }
func (s *silent) ExitStatus() transport.ExitStatus { return transport.ExitStatus{} }
func (s *silent) Overflowed() bool                 { return false }
func (s *silent) Close() error                     { close(s.frames); return nil }

var _ = Describe("a request without a method left unanswered", func() {
	It("is named by its id and said to have no method, not followed by empty brackets", func() {
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: &silent{frames: make(chan transport.Frame), exited: make(chan struct{})}, Recorder: transcript.NewRecorder()})
		DeferCleanup(p.Close)
		e := &scenario.Env{Timeout: 10 * time.Millisecond}
		e.SetPeer(p)
		c, err := e.Send(map[string]any{"id": "f44", "params": map[string]any{}})
		Expect(err).NotTo(HaveOccurred())
		_, err = e.Await(c, 0)
		Expect(err).To(MatchError(scenario.ErrNoAnswer))
		Expect(err.Error()).To(ContainSubstring(`no response to request id "f44" (no method) within 10ms (--timeout)`))
		Expect(err.Error()).NotTo(ContainSubstring("()"))
	})
})

var _ = Describe("a wait lengthened while the server had written nothing yet", func() {
	var (
		e   *scenario.Env
		obs []verdict.Observation
	)
	BeforeEach(func() {
		obs = nil
		// A server that writes nothing on stdout: every wait that is the
		// server's own step gets the start-up grace on top of its bound.
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: &silent{frames: make(chan transport.Frame), exited: make(chan struct{})},
			Recorder: transcript.NewRecorder(), StartupGrace: 50 * time.Millisecond})
		DeferCleanup(p.Close)
		e = &scenario.Env{Timeout: 10 * time.Millisecond, Observe: func(o verdict.Observation) { obs = append(obs, o) }}
		e.SetPeer(p)
	})

	It("is named with how long it lasted, not only its bound, for a response", func() {
		c, err := e.Send(map[string]any{"id": 1, "method": "x"})
		Expect(err).NotTo(HaveOccurred())
		_, err = e.Await(c, 0)
		Expect(err).To(MatchError(ContainSubstring("(10ms (--timeout), lengthened as the server had written nothing yet")))
	})

	It("is named with how long it lasted, not only its bound, for an expected frame", func() {
		Expect(e.Do(&scenario.Step{ExpectFrame: true, Rule: "DEMO-A-1"})).To(Succeed())
		Expect(obs).To(HaveLen(1))
		Expect(obs[0].Verdict).To(Equal(verdict.Fail))
		Expect(obs[0].Message).To(And(HavePrefix("no frame within "), ContainSubstring("(10ms (--timeout), lengthened as the server had written nothing yet")))
	})
})

var _ = Describe("a failure for want of an answer", func() {
	It("is about the request the last wait was for, and says how long it waited", func() {
		var obs []verdict.Observation
		rec := transcript.NewRecorder()
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: &silent{frames: make(chan transport.Frame), exited: make(chan struct{})}, Recorder: rec})
		DeferCleanup(p.Close)
		e := &scenario.Env{Timeout: 10 * time.Millisecond, Observe: func(o verdict.Observation) { obs = append(obs, o) }}
		e.SetPeer(p)
		rec.Add(transcript.Received, []byte(`{"id":"earlier","ok":true}`))
		_, c, err := e.Call(map[string]any{"id": "p1", "method": "tools/list"})
		Expect(err).To(MatchError(scenario.ErrNoAnswer))
		e.FailUnanswered("DEMO-A-1", "the probe was not answered", "an answer")
		Expect(obs).To(HaveLen(1))
		Expect(obs[0].Seq).To(Equal(c.Seq))
		Expect(rec.Slice(c.Seq, c.Seq+1)[0].Text).To(ContainSubstring(`"p1"`))
		Expect(obs[0].Unanswered).To(Equal("10ms"))
		Expect(obs[0].Actual).To(Equal("nothing"))
	})
})

// unsending is a transport over HTTP that has no way to carry any
// request (transport.Via.Unsent).
type unsending struct{ silent }

func (u *unsending) Send(msg []byte) error {
	u.frames <- transport.Frame{At: time.Now(), HTTP: &transport.Via{Verb: "POST", For: "1", Unsent: true,
		End: `its method "x\ny" cannot be a Mcp-Method header value`}}
	return nil
}

var _ = Describe("a request the transport could not send", func() {
	It("is skipped by the expect step's rule, and the scenario goes on: nothing was asked of the server", func() {
		tr := &unsending{silent{frames: make(chan transport.Frame, 1), exited: make(chan struct{})}}
		p := peer.New(peer.Options{Protocol: protocol(""), Transport: tr, Recorder: transcript.NewRecorder()})
		DeferCleanup(p.Close)
		var got []verdict.Observation
		e := &scenario.Env{Timeout: time.Minute, Observe: func(o verdict.Observation) { got = append(got, o) }}
		e.SetPeer(p)
		Expect(e.Do(&scenario.Step{Send: map[string]any{"id": 1, "method": "x\ny"}, As: "a"})).To(Succeed())
		Expect(e.Do(&scenario.Step{Expect: "a", Rule: "DEMO-A-1"})).To(Succeed())
		Expect(got).To(ConsistOf(And(HaveField("Rule", "DEMO-A-1"), HaveField("Verdict", verdict.Skip),
			HaveField("Message", ContainSubstring("request id 1 (x\ny) not sent: its method")))))
		Expect(e.Hung).To(BeFalse())
	})
})
