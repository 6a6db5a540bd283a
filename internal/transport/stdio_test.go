//go:build linux

package transport

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const grace = 300 * time.Millisecond

// margin is what Close may take beyond its grace period: signalling, reaping
// and joining goroutines, with room for a loaded CI machine and -race.
const margin = 1500 * time.Millisecond

func sh(script string) []string { return []string{"sh", "-c", script} }

// launch starts a server and registers a Close that must end it, its whole
// process group and every transport goroutine.
func launch(opts Options) *stdio {
	GinkgoHelper()
	if opts.Grace == 0 {
		opts.Grace = grace
	}
	tr, err := Launch(opts)
	Expect(err).NotTo(HaveOccurred())
	s := tr.(*stdio)
	DeferCleanup(func() {
		closeWithin(s, s.opts.Grace+margin)
		expectGroupGone(s)
	})
	return s
}

// closeWithin calls Close and fails if it takes longer than d.
func closeWithin(t Transport, d time.Duration) time.Duration {
	GinkgoHelper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- t.Close() }()
	Eventually(done).WithTimeout(d).Should(Receive(BeNil()), "Close did not return within %v", d)
	return time.Since(start)
}

func expectGroupGone(s *stdio) {
	GinkgoHelper()
	Eventually(func() ([]int, error) { return liveMembers(s.pgid) }).
		WithTimeout(2*time.Second).Should(BeEmpty(), "processes of group %d still running", s.pgid)
}

// recvAll reads ch until it closes, failing if that takes longer than d.
func recvAll(ch <-chan Frame, d time.Duration) []Frame {
	GinkgoHelper()
	var got []Frame
	timeout := time.After(d)
	for {
		select {
		case f, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, f)
		case <-timeout:
			Fail(fmt.Sprintf("channel still open after %v (%d frames read)", d, len(got)))
		}
	}
}

// recvOne waits for one frame. Not Eventually: its 10ms polling would
// dominate a test of a thousand round trips.
func recvOne(ch <-chan Frame) Frame {
	GinkgoHelper()
	select {
	case f, ok := <-ch:
		Expect(ok).To(BeTrue(), "channel closed")
		return f
	case <-time.After(5 * time.Second):
		Fail("no frame within 5s")
	}
	return Frame{}
}

func raws(frames []Frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = string(f.Raw)
	}
	return out
}

// peakHeap samples HeapInuse until the returned stop is called, which
// reports the highest value seen.
func peakHeap() (stop func() uint64) {
	var (
		mu   sync.Mutex
		peak uint64
		quit = make(chan struct{})
		done = make(chan struct{})
	)
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapInuse)
		mu.Unlock()
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				sample()
			case <-quit:
				return
			}
		}
	}()
	return func() uint64 {
		close(quit)
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

const mib = 1 << 20

var _ = Describe("Launch", func() {
	It("runs the command from PATH in Dir with Env added", func() {
		dir, err := filepath.EvalSymlinks(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		s := launch(Options{
			Command: sh(`echo "$WC_GREETING"; pwd; echo "$HOME" | grep -c .`),
			Dir:     dir,
			Env:     []string{"WC_GREETING=hello"},
		})
		Expect(raws(recvAll(s.Recv(), 5*time.Second))).To(Equal([]string{"hello", dir, "1"}))
	})

	It("reports a command not in PATH as ErrStart, naming it", func() {
		_, err := Launch(Options{Command: []string{"wirecheck-no-such-server", "--flag"}})
		Expect(err).To(MatchError(ErrStart))
		Expect(err).To(MatchError(exec.ErrNotFound))
		Expect(err.Error()).To(ContainSubstring(`"wirecheck-no-such-server"`))
		Expect(err.Error()).To(ContainSubstring("not found"))
	})

	It("reports a missing working directory as ErrStart, naming it", func() {
		_, err := Launch(Options{Command: []string{"true"}, Dir: "/nonexistent/wirecheck"})
		Expect(err).To(MatchError(ErrStart))
		Expect(err).To(MatchError(os.ErrNotExist))
		Expect(err.Error()).To(ContainSubstring(`working directory "/nonexistent/wirecheck"`))
	})

	It("reports a file that is not executable as ErrStart", func() {
		path := filepath.Join(GinkgoT().TempDir(), "server")
		Expect(os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644)).To(Succeed())
		_, err := Launch(Options{Command: []string{path}})
		Expect(err).To(MatchError(ErrStart))
		Expect(err.Error()).To(ContainSubstring(path))
		Expect(err.Error()).To(ContainSubstring("permission denied"))
	})

	It("rejects an empty command", func() {
		_, err := Launch(Options{})
		Expect(err).To(MatchError(ErrStart))
	})
})

var _ = Describe("an echo server", func() {
	var s *stdio
	BeforeEach(func() { s = launch(Options{Command: []string{"cat"}}) })

	It("returns what was sent, byte for byte, CR and all", func() {
		for _, msg := range []string{`{"jsonrpc":"2.0","id":1}`, "with CR\r", "", "\x00\xff\xfe"} {
			Expect(s.Send([]byte(msg))).To(Succeed())
			f := recvOne(s.Recv())
			Expect(string(f.Raw)).To(Equal(msg))
			Expect(f.Raw).NotTo(BeNil())
			Expect(f.Oversize || f.Partial).To(BeFalse())
			Expect(f.At).To(BeTemporally("~", time.Now(), 5*time.Second))
		}
	})

	It("keeps 1000 pipelined messages in order", func() {
		const n = 1000
		sendErr := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			for i := range n {
				if err := s.Send(fmt.Appendf(nil, `{"id":%d}`, i)); err != nil {
					sendErr <- err
					return
				}
			}
			sendErr <- nil
		}()
		for i := range n {
			Expect(string(recvOne(s.Recv()).Raw)).To(Equal(fmt.Sprintf(`{"id":%d}`, i)))
		}
		Expect(<-sendErr).To(Succeed())
	})

	It("writes raw bytes without framing", func() {
		Expect(s.WriteRaw([]byte(`{"half":`))).To(Succeed())
		Expect(s.WriteRaw([]byte("1}\n{\n"))).To(Succeed())
		Expect(string(recvOne(s.Recv()).Raw)).To(Equal(`{"half":1}`))
		Expect(string(recvOne(s.Recv()).Raw)).To(Equal(`{`))
	})

	It("tells when the server has read what it was written", func() {
		Expect(s.WriteRaw([]byte(`{"half":`))).To(Succeed())
		Expect(s.AwaitRead(time.Minute)).To(BeTrue())
		Expect(s.WriteRaw([]byte("1}\n"))).To(Succeed())
		Expect(string(recvOne(s.Recv()).Raw)).To(Equal(`{"half":1}`))
	})

	It("sends a message too big to copy in two writes, intact", func() {
		big := bytes.Repeat([]byte("x"), 3*sendCopyMax+7)
		go func() {
			defer GinkgoRecover()
			Expect(s.Send(big)).To(Succeed())
		}()
		Expect(recvOne(s.Recv()).Raw).To(Equal(big))
	})

	It("ends cleanly when its input is closed", func() {
		Expect(s.Send([]byte("last"))).To(Succeed())
		Expect(s.CloseInput()).To(Succeed())
		Expect(s.CloseInput()).To(Succeed())
		Expect(raws(recvAll(s.Recv(), 5*time.Second))).To(Equal([]string{"last"}))
		Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: 0}))
		Expect(s.ExitStatus().String()).To(Equal("exit 0"))
		Expect(s.Send([]byte("more"))).To(MatchError(os.ErrClosed))
	})

	It("hands its frames to a sink, in order, and closes Recv after the last", func() {
		s := launch(Options{Command: sh(`read x; seq 1 1000`)})
		var mu sync.Mutex
		var got []string
		s.SetSink(func(f Frame, inline bool) bool {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, string(f.Raw))
			return true
		})
		Expect(s.Send([]byte("go"))).To(Succeed())
		Eventually(s.Recv()).WithTimeout(5 * time.Second).Should(BeClosed())
		mu.Lock()
		defer mu.Unlock()
		Expect(got).To(HaveLen(1000))
		for i, l := range got {
			Expect(l).To(Equal(strconv.Itoa(i + 1)))
		}
	})

	It("can be closed many times, concurrently, with readers running", func() {
		go func() {
			for range s.Recv() {
			}
		}()
		go func() {
			for range s.Stderr() {
			}
		}()
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				defer GinkgoRecover()
				Expect(s.Close()).To(Succeed())
			})
		}
		wg.Wait()
		Expect(s.Exited()).To(BeClosed())
		Expect(s.Recv()).To(BeClosed())
		Expect(s.Stderr()).To(BeClosed())
		Expect(s.ExitStatus().KilledByUs).To(BeTrue())
		Expect(s.Send([]byte("x"))).To(HaveOccurred())
	})
})

var _ = Describe("a hostile server", func() {
	It("that never answers is killed by Close within the grace period", func() {
		s := launch(Options{Command: []string{"sleep", "1000"}})
		Expect(s.Send([]byte(`{"id":1}`))).To(Succeed())
		Consistently(s.Recv()).WithTimeout(100 * time.Millisecond).ShouldNot(Receive())
		Expect(closeWithin(s, grace+margin)).To(BeNumerically("<", grace+margin))
		Expect(s.Exited()).To(BeClosed())
		Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: -1, Signal: "terminated", KilledByUs: true}))
		expectGroupGone(s)
	})

	It("that floods stdout with nobody reading is bounded and never blocked", func() {
		stop := peakHeap()
		// The flood ends, then the server exits 7: it can only get there if
		// the transport keeps draining the pipe although nobody reads.
		s := launch(Options{
			Command:     sh(`yes '{"flood":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}' | head -c 50000000; exit 7`),
			MaxBuffered: mib,
		})
		Eventually(s.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.ExitStatus().Code).To(Equal(7))
		Expect(s.Overflowed()).To(BeTrue())
		Expect(stop()).To(BeNumerically("<", 200*mib))

		// What was kept is the beginning of the flood, in order, and the
		// channel still ends.
		frames := recvAll(s.Recv(), 5*time.Second)
		Expect(frames).NotTo(BeEmpty())
		Expect(len(frames)).To(BeNumerically("<", 50000000/40))
		Expect(string(frames[0].Raw)).To(Equal(`{"flood":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}`))
	})

	It("that floods stdout for ever is ended by Close", func() {
		stop := peakHeap()
		s := launch(Options{Command: []string{"yes", "flood"}, MaxBuffered: mib})
		Eventually(s.Overflowed).WithTimeout(5 * time.Second).Should(BeTrue())
		time.Sleep(300 * time.Millisecond)
		closeWithin(s, grace+margin)
		Expect(stop()).To(BeNumerically("<", 200*mib))
		expectGroupGone(s)
	})

	It("that floods empty lines is bounded too", func() {
		s := launch(Options{Command: sh(`yes '' | head -n 2000000; echo end`), MaxBuffered: 64 << 10})
		Eventually(s.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		// Exiting is not the end of the stream: up to a pipe's worth of
		// lines are still to be read, and reading them while we drain
		// would admit more frames.
		Eventually(s.outQ.eofSeen).WithTimeout(5 * time.Second).Should(BeTrue())
		Expect(s.Overflowed()).To(BeTrue())
		frames := recvAll(s.Recv(), 5*time.Second)
		Expect(len(frames)).To(BeNumerically("<=", (64<<10)/frameOverhead+1))
	})

	It("that writes a 300 MB line gets a capped prefix, then its next line", func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := peakHeap()
		s := launch(Options{
			Command:  sh(`head -c 300000000 /dev/zero | tr '\0' a; echo; echo after`),
			MaxFrame: mib,
		})
		frames := recvAll(s.Recv(), 15*time.Second)
		runtime.ReadMemStats(&after)
		Expect(stop()).To(BeNumerically("<", 200*mib))
		// Allocation over the whole read, garbage included, proves the line
		// was never held: 300 MB went through and a few MB were allocated.
		Expect(after.TotalAlloc - before.TotalAlloc).To(BeNumerically("<", 64*mib))

		Expect(frames).To(HaveLen(2))
		Expect(frames[0].Oversize).To(BeTrue())
		Expect(frames[0].Limit).To(Equal(mib), "the cap it went over, for the message naming --max-frame")
		Expect(frames[0].Raw).To(HaveLen(OversizeEvidence), "evidence, not the cap's worth of the line")
		Expect(bytes.Count(frames[0].Raw, []byte("a"))).To(Equal(OversizeEvidence))
		Expect(string(frames[1].Raw)).To(Equal("after"))
		Expect(frames[1].Oversize).To(BeFalse())
		Expect(s.Overflowed()).To(BeFalse())
	})

	It("that sends binary garbage has it delivered verbatim", func() {
		rng := rand.New(rand.NewPCG(1, 2))
		data := make([]byte, 1<<20)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		copy(data[100:], "\x00\xff\xfe\r\n\xc3\x28\n\n")
		data[len(data)-1] = 'z' // ends mid-line
		path := filepath.Join(GinkgoT().TempDir(), "garbage")
		Expect(os.WriteFile(path, data, 0o644)).To(Succeed())

		s := launch(Options{Command: []string{"cat", path}})
		frames := recvAll(s.Recv(), 5*time.Second)

		want := bytes.Split(data, []byte("\n"))
		Expect(frames).To(HaveLen(len(want)))
		for i, f := range frames {
			Expect(f.Raw).To(Equal(want[i]), "frame %d", i)
			Expect(f.Partial).To(Equal(i == len(want)-1), "frame %d", i)
			Expect(f.Oversize).To(BeFalse())
		}
	})

	DescribeTable("that exits at once reports how",
		func(script string, code int, stdout []string) {
			s := launch(Options{Command: sh(script)})
			Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
			Expect(raws(recvAll(s.Recv(), 5*time.Second))).To(Equal(stdout))
			Expect(recvAll(s.Stderr(), 5*time.Second)).To(BeEmpty())
			Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: code}))
			Expect(s.ExitStatus().String()).To(Equal("exit " + strconv.Itoa(code)))
		},
		Entry("true", "true", 0, []string{}),
		Entry("exit 3", "exit 3", 3, []string{}),
		Entry("a last line without newline", "printf 'one\\ntwo'; exit 1", 1, []string{"one", "two"}),
	)

	It("that dies mid-line leaves a partial frame and a signal", func() {
		s := launch(Options{Command: sh(`printf '{"a":'; kill -9 $$`)})
		frames := recvAll(s.Recv(), 5*time.Second)
		Expect(frames).To(HaveLen(1))
		Expect(string(frames[0].Raw)).To(Equal(`{"a":`))
		Expect(frames[0].Partial).To(BeTrue())
		Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: -1, Signal: "killed"}))
		Expect(s.ExitStatus().String()).To(Equal("signal: killed"))
	})

	It("that ignores SIGTERM and has a child holding stdout is killed, child and all", func() {
		s := launch(Options{Command: sh(`trap "" TERM; sleep 1000 & echo "$!"; sleep 1000`)})
		child, err := strconv.Atoi(string(recvOne(s.Recv()).Raw))
		Expect(err).NotTo(HaveOccurred())
		Expect(liveMembers(s.pgid)).To(ContainElements(s.pgid, child))

		took := closeWithin(s, grace+margin)
		Expect(took).To(BeNumerically(">=", grace), "SIGKILL came before the grace period was up")
		Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: -1, Signal: "killed", KilledByUs: true}))
		Expect(s.Recv()).To(BeClosed())
		expectGroupGone(s)
	})

	It("that exits leaving a child on its stdout is seen to exit at once", func() {
		s := launch(Options{Command: sh(`sleep 1000 & echo "$!"; exit 5`)})
		child, err := strconv.Atoi(string(recvOne(s.Recv()).Raw))
		Expect(err).NotTo(HaveOccurred())
		Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Expect(s.ExitStatus()).To(Equal(ExitStatus{Code: 5}))
		// The child still holds stdout, so the stream has not ended...
		Consistently(s.Recv()).WithTimeout(100 * time.Millisecond).ShouldNot(BeClosed())
		Expect(liveMembers(s.pgid)).To(Equal([]int{child}))
		// ...until Close ends the group.
		closeWithin(s, grace+margin)
		Expect(s.Recv()).To(BeClosed())
		Expect(s.ExitStatus().KilledByUs).To(BeFalse())
		expectGroupGone(s)
	})

	It("whose child left the process group and holds the pipes still closes", func() {
		s := launch(Options{Command: sh(`setsid sleep 1000 & echo "$!"; sleep 1000`)})
		escaped, err := strconv.Atoi(string(recvOne(s.Recv()).Raw))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = syscall.Kill(escaped, syscall.SIGKILL) })
		Eventually(func() (int, error) { return syscall.Getpgid(escaped) }).Should(Equal(escaped))

		closeWithin(s, grace+margin)
		Expect(s.Recv()).To(BeClosed())
		Expect(s.Stderr()).To(BeClosed())
		expectGroupGone(s)
	})

	It("that floods stderr is bounded and does not stall stdout", func() {
		stop := peakHeap()
		s := launch(Options{
			Command:     sh(`yes 'a log line that goes on and on' >&2 & sleep 0.5; echo alive; sleep 1000`),
			MaxBuffered: mib,
		})
		Expect(string(recvOne(s.Recv()).Raw)).To(Equal("alive"))
		Eventually(s.StderrOverflowed).WithTimeout(5 * time.Second).Should(BeTrue())
		Expect(s.Overflowed()).To(BeFalse())
		Expect(string(recvOne(s.Stderr()).Raw)).To(Equal("a log line that goes on and on"))
		closeWithin(s, grace+margin)
		Expect(stop()).To(BeNumerically("<", 200*mib))
		expectGroupGone(s)
	})

	It("that answers with a line of 5 MB has it delivered whole under the default cap", func() {
		// A real server answered a resources/read with 4.4 MB: no
		// document bounds a message, so the default must not either
		// for anything a real server sends.
		s := launch(Options{Command: sh(`head -c 5000000 /dev/zero | tr '\0' b; echo`)})
		f := recvOne(s.Recv())
		Expect(f.Oversize).To(BeFalse())
		Expect(f.Raw).To(HaveLen(5000000))
	})

	It("that writes a long stderr line gets it cut at the stderr cap, stdout keeping its own", func() {
		s := launch(Options{Command: sh(`head -c 1000000 /dev/zero | tr '\0' e >&2; echo >&2; head -c 1000000 /dev/zero | tr '\0' o; echo`)})
		e := recvOne(s.Stderr())
		Expect(e.Oversize).To(BeTrue())
		Expect(e.Raw).To(HaveLen(DefaultMaxStderrLine))
		o := recvOne(s.Recv())
		Expect(o.Oversize).To(BeFalse())
		Expect(o.Raw).To(HaveLen(1000000))
	})

	It("that never reads stdin is not taken to have read what it was sent", func() {
		s := launch(Options{Command: sh("exec sleep 30")})
		Expect(s.WriteRaw([]byte(`{"half":`))).To(Succeed())
		Expect(s.AwaitRead(20 * time.Millisecond)).To(BeFalse())
	})

	It("that never reads stdin makes a big Send fail after WriteTimeout", func() {
		const timeout = 300 * time.Millisecond
		s := launch(Options{Command: []string{"sleep", "1000"}, WriteTimeout: timeout})
		// Far more than a pipe holds, made before the clock starts: filling
		// 50 MiB took seconds under -race on a loaded machine.
		big := bytes.Repeat([]byte("z"), 4*mib)
		start := time.Now()
		err := s.Send(big)
		Expect(err).To(MatchError(ErrWriteTimeout))
		Expect(time.Since(start)).To(And(
			BeNumerically(">=", timeout),
			BeNumerically("<", timeout+margin)))
	})

	It("that never reads stdin has a blocked Send released by Close", func() {
		s := launch(Options{Command: []string{"sleep", "1000"}, WriteTimeout: time.Minute})
		sendErr := make(chan error, 1)
		big := bytes.Repeat([]byte("z"), 4*mib)
		go func() { sendErr <- s.Send(big) }()
		Consistently(sendErr).WithTimeout(200 * time.Millisecond).ShouldNot(Receive())
		closeWithin(s, grace+margin)
		// Released, not timed out: the write timeout is a minute.
		Eventually(sendErr).WithTimeout(10 * time.Second).Should(Receive(HaveOccurred()))
	})

	It("that has exited makes writes fail, not panic", func() {
		s := launch(Options{Command: []string{"true"}})
		Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Expect(s.Send([]byte(`{"id":1}`))).To(MatchError(syscall.EPIPE))
		Expect(s.WriteRaw([]byte("x"))).To(MatchError(syscall.EPIPE))
		Expect(s.ExitStatus().KilledByUs).To(BeFalse())
		closeWithin(s, grace+margin)
		Expect(s.ExitStatus().KilledByUs).To(BeFalse())
	})

	It("with a slow consumer keeps the first frames, in order, and reports the loss", func() {
		s := launch(Options{Command: sh(`seq 1 100000`), MaxBuffered: 16 << 10})
		Eventually(s.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Eventually(s.outQ.eofSeen).WithTimeout(5 * time.Second).Should(BeTrue())
		frames := recvAll(s.Recv(), 5*time.Second)
		Expect(s.Overflowed()).To(BeTrue())
		Expect(len(frames)).To(BeNumerically("<", 100000))
		for i, f := range frames {
			Expect(string(f.Raw)).To(Equal(strconv.Itoa(i + 1)))
		}
	})
})

var _ = Describe("liveMembers", func() {
	It("finds a running group and ignores its zombies", func() {
		cmd := exec.Command("sleep", "1000")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		Expect(cmd.Start()).To(Succeed())
		pid := cmd.Process.Pid
		Expect(liveMembers(pid)).To(Equal([]int{pid}))
		Expect(groupAlive(pid)).To(BeTrue())

		Expect(cmd.Process.Kill()).To(Succeed())
		// Not yet reaped: a zombie, which kill(-pgid, 0) still finds.
		Eventually(func() ([]int, error) { return liveMembers(pid) }).Should(BeEmpty())
		Expect(syscall.Kill(-pid, 0)).To(Succeed())
		Expect(groupAlive(pid)).To(BeFalse())
		_ = cmd.Wait()
		Expect(errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH)).To(BeTrue())
	})
})

var _ = Describe("KillAll", func() {
	It("kills the group of every server not yet shut down, one that ignores SIGTERM too, and forgets those shut down", func() {
		s := launch(Options{Command: sh("trap '' TERM; sleep 600 & wait")})
		done := launch(Options{Command: sh("cat")})
		closeWithin(done, grace+margin)
		_, known := groups.Load(done.pgid)
		Expect(known).To(BeFalse(), "a server shut down is no longer killed")
		KillAll()
		Eventually(s.Exited()).Should(BeClosed())
		expectGroupGone(s)
	})
})
