package peer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
)

var _ = Describe("a wait on the server's own step", func() {
	// started is a peer with a startup grace whose server answers its first
	// request only after more than the timeout: a process still starting.
	started := func() (*peer.Peer, *peer.Call) {
		p, reg := miniProtocol()
		f := newFake()
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: f, Recorder: transcript.NewRecorder(), StartupGrace: 10 * time.Second})
		DeferCleanup(pe.Close)
		c, err := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		pushed := make(chan struct{})
		go func() {
			defer close(pushed)
			time.Sleep(300 * time.Millisecond)
			f.push(`{"id":1,"v":1,"result":"hi"}`)
		}()
		// Cleanups run last first: the late line is in before the peer
		// closes the fake transport (a push after that would panic).
		DeferCleanup(func() { <-pushed })
		return pe, c
	}

	It("counts its timeout from the server's first line (WaitUp)", func() {
		pe, c := started()
		in, err := pe.WaitUp(c, 100*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Seq).To(BeNumerically(">=", 0))
	})

	It("keeps the plain bound for a wait that reads silence (Wait)", func() {
		pe, c := started()
		_, err := pe.Wait(c, 100*time.Millisecond)
		Expect(err).To(MatchError(peer.ErrTimeout))
	})
})
