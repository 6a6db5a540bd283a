package peer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
)

// messenger is the fake transport with whole-message writes, as HTTP has.
type messenger struct{ *fake }

func (messenger) WholeMessages() bool { return true }

var _ = Describe("a request split over two writes", func() {
	It("goes out as two writes on a byte stream, the line whole once joined", func() {
		pe, f, _ := newPeer(nil)
		_, err := pe.RequestSplit([]byte(`{"id":1,"method":"ping"}`), 5, time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		f.mu.Lock()
		defer f.mu.Unlock()
		Expect(f.sent).To(HaveLen(2))
		Expect(string(f.sent[0])).To(Equal(`{"id"`))
		Expect(string(f.sent[0]) + string(f.sent[1])).To(Equal("{\"id\":1,\"method\":\"ping\"}\n"))
	})

	It("goes out whole where each write is a message of its own, and the transcript says the split was not applied", func() {
		p, reg := miniProtocol()
		f := messenger{newFake()}
		rec := transcript.NewRecorder()
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: f, Recorder: rec})
		DeferCleanup(pe.Close)
		c, err := pe.RequestSplit([]byte(`{"id":1,"method":"ping"}`), 5, time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		Expect(c).NotTo(BeNil())
		f.mu.Lock()
		Expect(f.sent).To(Equal([][]byte{[]byte(`{"id":1,"method":"ping"}`)}))
		f.mu.Unlock()
		var notes []string
		for _, e := range rec.Slice(0, -1) {
			if e.Dir == transcript.Note {
				notes = append(notes, e.Text)
			}
		}
		Expect(notes).To(ConsistOf(ContainSubstring("split at byte 5 not applied")))
	})
})

// awaiting is the fake transport that, between the two writes of a split
// line, hands the peer a request of the server's, and waits (at most the
// pause) for the handler's answer to be written.
type awaiting struct {
	*fake
	answered chan struct{}
}

func (a awaiting) Send(b []byte) error {
	err := a.fake.Send(b)
	close(a.answered)
	return err
}

func (a awaiting) AwaitRead(limit time.Duration) bool {
	a.push(`{"id":"s1","method":"ping"}`)
	select {
	case <-a.answered:
	case <-time.After(limit):
	}
	return true
}

var _ = Describe("a split line and a handler's answer", func() {
	It("keeps the handler's answer out of the line's two writes", func() {
		p, reg := miniProtocol()
		a := awaiting{newFake(), make(chan struct{})}
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: a, Recorder: transcript.NewRecorder(),
			Handler: func(*peer.Inbound) []byte { return []byte(`{"id":"s1","result":"pong"}`) }})
		DeferCleanup(pe.Close)
		_, err := pe.RequestSplit([]byte(`{"id":1,"method":"ping"}`), 5, 200*time.Millisecond)
		Expect(err).NotTo(HaveOccurred())
		Eventually(a.answered).Should(BeClosed())
		a.mu.Lock()
		defer a.mu.Unlock()
		Expect(a.sent).To(HaveLen(3))
		Expect(string(a.sent[0]) + string(a.sent[1])).To(Equal("{\"id\":1,\"method\":\"ping\"}\n"))
	})
})
