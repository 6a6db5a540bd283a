package session_test

import (
	"errors"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// observations collects what a session observed.
type observations struct {
	mu   sync.Mutex
	list []verdict.Observation
}

func (o *observations) observe(ob verdict.Observation) {
	o.mu.Lock()
	o.list = append(o.list, ob)
	o.mu.Unlock()
}

// of returns the verdicts observed of rule, in order.
func (o *observations) of(rule string) []verdict.Verdict {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []verdict.Verdict
	for _, ob := range o.list {
		if ob.Rule == rule {
			out = append(out, ob.Verdict)
		}
	}
	return out
}

// options are the session options for a protocol's reference server
// (argv nil) or for argv.
func options(id string, obs *observations, argv ...string) session.Options {
	b, err := protocols.Load(id)
	Expect(err).NotTo(HaveOccurred())
	if argv == nil {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		argv = []string{bin, "serve", id}
	}
	return session.Options{
		Target: target.Target{Argv: argv}, Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler,
		Observe: obs.observe, Timeout: 2 * time.Second, StartupTimeout: 10 * time.Second,
	}
}

func sondeServe(faults ...string) []string {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", "sonde-serve"}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	return argv
}

var _ = Describe("a session", func() {
	const startupRule = "SONDE-STARTUP-1"

	It("observes the ready line as a pass of the protocol's startup rule", func() {
		obs := &observations{}
		s, err := session.Open(options("sonde-serve", obs))
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(obs.of(startupRule)).To(Equal([]verdict.Verdict{verdict.Pass}))
	})

	It("is not started, and says it was never launched, when the command cannot be run", func() {
		obs := &observations{}
		_, err := session.Open(options("sonde-serve", obs, "/nonexistent/wirecheck-test-server"))
		Expect(errors.Is(err, session.ErrNotStarted)).To(BeTrue(), "%v", err)
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue())
		Expect(ns.Launched).To(BeFalse())
		Expect(err.Error()).To(HavePrefix(session.ErrNotStarted.Error() + ": "))
		Expect(obs.of(startupRule)).To(BeEmpty(), "no ready line was awaited")
	})

	It("says how a launched server that never became ready ended, with its last stderr lines", func() {
		obs := &observations{}
		_, err := session.Open(options("sonde-serve", obs, "sh", "-c", "echo cannot open the manifest >&2; exit 3"))
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(ns.Launched).To(BeTrue())
		Expect(ns.Cause).To(ContainSubstring("the server exited (exit 3)"))
		Expect(ns.Stderr).To(Equal([]string{"cannot open the manifest"}))
		Expect(obs.of(startupRule)).To(Equal([]verdict.Verdict{verdict.Fail}))
	})

	It("says what a server still running wrote while its ready line was awaited", func() {
		obs := &observations{}
		o := options("sonde-serve", obs, sondeServe("no-ready")...)
		o.StartupTimeout = 500 * time.Millisecond
		_, err := session.Open(o)
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(ns.Launched).To(BeTrue())
		Expect(ns.Cause).To(HavePrefix("no ready line within 500ms (--startup-timeout); the server is still running"))
		Expect(obs.of(startupRule)).To(Equal([]verdict.Verdict{verdict.Fail}))
	})

	It("says which frame the wait for the ready line read first, when that was not the ready line", func() {
		obs := &observations{}
		o := options("sonde-serve", obs, "sh", "-c", `echo '{"status":"starting"}'; exec sleep 30`)
		o.StartupTimeout = 500 * time.Millisecond
		_, err := session.Open(o)
		var ns *session.NotStarted
		Expect(errors.As(err, &ns)).To(BeTrue(), "%v", err)
		Expect(ns.Cause).To(ContainSubstring(`wrote 1 line(s) on stdout`))
		Expect(ns.Cause).To(HaveSuffix(`; the first line read was refused: not a frame of any kind this protocol defines: "{\"status\":\"starting\"}"`))
	})

	It("observes a line before the ready line as a failure of the startup rule, and starts", func() {
		obs := &observations{}
		s, err := session.Open(options("sonde-serve", obs, sondeServe("log-stdout")...))
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(obs.of(startupRule)).To(Equal([]verdict.Verdict{verdict.Fail}))
		obs.mu.Lock()
		defer obs.mu.Unlock()
		for _, o := range obs.list {
			if o.Rule == startupRule {
				Expect(o.Message).To(Equal("the first stdout line is not the ready line"))
			}
		}
	})

	It("stops waiting for the ready line when aborted, observing nothing", func(ctx SpecContext) {
		obs := &observations{}
		o := options("sonde-serve", obs, sondeServe("no-ready")...)
		// A wait nobody ends would outlast the spec.
		o.StartupTimeout = 10 * time.Minute
		abort := make(chan struct{})
		o.Abort = abort
		s, err := session.Launch(o)
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		close(abort)
		Expect(s.AwaitReady()).To(MatchError(session.ErrAborted))
		Expect(obs.of(startupRule)).To(BeEmpty())
	}, SpecTimeout(time.Minute))

	It("shows a server with no ready line up by its answer to the probe", func() {
		s, err := session.Open(options("tool-host", &observations{}))
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(s.Peer().Heard()).NotTo(BeClosed(), "the tool host speaks when spoken to")
		s.Up()
		Expect(s.Peer().Heard()).To(BeClosed())
	})

	It("starts with no observer, dropping what it observes", func() {
		o := options("sonde-serve", &observations{})
		o.Observe = nil
		s, err := session.Open(o)
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(session.Probe(s.Env(), nil).State).To(Equal(session.Alive))
	})

	It("records into the recorder it is given, after what is there", func() {
		obs := &observations{}
		o := options("sonde-serve", obs)
		o.Recorder = transcript.NewRecorder()
		o.Recorder.Add(transcript.Note, []byte("an earlier process"))
		s, err := session.Open(o)
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(s.Peer().Recorder()).To(BeIdenticalTo(o.Recorder))
		Expect(o.Recorder.Len()).To(BeNumerically(">", 1))
	})
})

var _ = Describe("the liveness probe", func() {
	open := func(faults ...string) (*session.Session, *observations) {
		obs := &observations{}
		s, err := session.Open(options("sonde-serve", obs, sondeServe(faults...)...))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		return s, obs
	}

	It("finds a server that answers it alive, and keeps it", func() {
		s, _ := open()
		h := session.Probe(s.Env(), nil)
		Expect(h.State).To(Equal(session.Alive))
		Expect(h.Keep).To(BeTrue())
		Expect(survival(h)).To(Equal(verdict.Pass))
	})

	It("keeps a server that answers it after a scenario stopped on a finding", func() {
		s, _ := open()
		h := session.Probe(s.Env(), errors.New("an error answer the scenario could not go on from"))
		Expect(h.State).To(Equal(session.Alive))
		Expect(h.Keep).To(BeTrue())
		// Issue 26: the runner passed no survival here and the fuzzer
		// did; a server that answers the probe survived, whatever the
		// scenario stopped on.
		Expect(survival(h)).To(Equal(verdict.Pass))
	})

	It("finds a server that exited dead, says how, and does not keep it", func() {
		s, _ := open()
		Expect(s.Peer().Transport().CloseInput()).To(Succeed())
		Eventually(s.Ended).WithTimeout(10 * time.Second).Should(BeTrue())
		h := session.Probe(s.Env(), nil)
		Expect(h.State).To(Equal(session.Dead))
		Expect(h.Why).To(ContainSubstring("the server exited"))
		Expect(h.Keep).To(BeFalse())
		Expect(survival(h)).To(Equal(verdict.Fail))
	})

	It("does not probe a server whose stdin the scenario closed", func() {
		s, _ := open()
		env := s.Env()
		env.Closed = true
		sent := s.Peer().Recorder().Len()
		h := session.Probe(env, nil)
		Expect(h.State).To(Equal(session.Closed))
		Expect(h.Keep).To(BeFalse())
		Expect(s.Peer().Recorder().Len()).To(Equal(sent), "nothing was sent")
		Expect(survival(h)).To(BeEmpty(), "the exit rule judges what follows")
	})

	It("finds a server that stopped answering the probe it answered before hung", func() {
		s, _ := open("mute-after-malformed")
		env := s.Env()
		Expect(session.Probe(env, nil).State).To(Equal(session.Alive))
		// The malformed line is answered (null id), then nothing is.
		Expect(s.Peer().SendRaw([]byte("{not json\n"), true)).To(Succeed())
		_, err := s.Peer().Next(10 * time.Second)
		Expect(err).NotTo(HaveOccurred())
		h := session.Probe(env, nil)
		Expect(h.State).To(Equal(session.Hung))
		Expect(h.Why).To(ContainSubstring("which it answered before"))
		Expect(h.Keep).To(BeFalse())
		Expect(survival(h)).To(Equal(verdict.Fail))
	})

	// Issue 26: the fuzzer passed no survival where the protocol has no
	// probe and the runner did; a running server that answered every
	// request of the scenario survived it.
	It("finds a server of a protocol with no probe healthy when the scenario ran to its end, and says nothing when it stopped", func() {
		o := options("sonde-serve", &observations{}, sondeServe()...)
		p := *o.Protocol
		p.Probe = nil
		o.Protocol = &p
		s, err := session.Open(o)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		env := s.Env()
		h := session.Probe(env, nil)
		Expect(h.State).To(Equal(session.Unknown))
		Expect(survival(h)).To(Equal(verdict.Pass))
		h = session.Probe(env, errors.New("a request went unanswered"))
		Expect(survival(h)).To(BeEmpty())
		Expect(survival(session.Untouched())).To(Equal(verdict.Pass))
	})
})

// survival is the health verdict on the survival rule, "" when none.
func survival(h session.Health) verdict.Verdict {
	v, judged := h.Survival()
	if !judged {
		return ""
	}
	return v
}
