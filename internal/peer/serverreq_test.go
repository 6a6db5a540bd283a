package peer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("requests the server sends and streams that interleave", func() {
	It("lets a scenario set its own handler until the next scenario starts", func() {
		pe, f, _ := newPeer(func(in *peer.Inbound) []byte { return []byte(`{"id":"s1","result":"default"}`) })
		pe.SetHandler(func(in *peer.Inbound) []byte { return []byte(`{"id":"s1","result":"scenario"}`) })
		f.push(`{"id":"s1","method":"ping"}`)
		Eventually(f.lastSent).Should(Equal(`{"id":"s1","result":"scenario"}`))

		pe.SetScenario("next")
		f.push(`{"id":"s2","method":"ping"}`)
		Eventually(f.lastSent).Should(Equal(`{"id":"s1","result":"default"}`))
	})

	It("leaves a server request unanswered when the handler returns nil", func() {
		pe, f, _ := newPeer(nil)
		pe.SetHandler(func(*peer.Inbound) []byte { return nil })
		f.push(`{"id":"s1","method":"ping"}`)
		_, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Consistently(f.lastSent, 50*time.Millisecond).Should(BeEmpty())
	})

	It("does not take a frame about a server request for a stray, nor for the answer of the only request in flight", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":"mine","method":"x"}`))
		f.push(`{"id":"srv-1","method":"ask"}`)
		_, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(pe.ServerRequest(peer.Key("srv-1"))).To(BeTrue())
		// An error about the server's own request, carrying its id.
		f.push(`{"id":"srv-1","v":1,"error":"timed out"}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Call).To(BeNil())
		Expect(c.Response).To(BeNil())
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(BeEmpty())
	})

	It("follows one stream with NextWhere and keeps the others queued, in order", func() {
		pe, f, _ := newPeer(nil)
		f.push(`{"method":"note","params":{"s":"a","n":1}}`)
		f.push(`{"method":"note","params":{"s":"b","n":1}}`)
		f.push(`{"method":"note","params":{"s":"a","n":2}}`)
		of := func(s string) func(*peer.Inbound) bool {
			return func(in *peer.Inbound) bool { v, _ := in.Field("/params/s"); return v == s }
		}
		in, err := pe.NextWhere(time.Second, of("b"))
		Expect(err).NotTo(HaveOccurred())
		n, _ := in.Field("/params/n")
		Expect(peer.Key(n)).To(Equal("1"))
		_, err = pe.NextWhere(20*time.Millisecond, of("b"))
		Expect(err).To(MatchError(peer.ErrTimeout))
		for _, want := range []string{"1", "2"} {
			in, err := pe.Next(time.Second)
			Expect(err).NotTo(HaveOccurred())
			n, _ := in.Field("/params/n")
			Expect(peer.Key(n)).To(Equal(want))
		}
	})

	It("waits in NextWhere for a matching frame that arrives later, and ends when the output ends", func() {
		pe, f, _ := newPeer(nil)
		go func() {
			time.Sleep(20 * time.Millisecond)
			f.push(`{"method":"note","params":{"s":"x"}}`)
			f.push(`{"method":"note","params":{"s":"y"}}`)
		}()
		in, err := pe.NextWhere(time.Second, func(in *peer.Inbound) bool { v, _ := in.Field("/params/s"); return v == "y" })
		Expect(err).NotTo(HaveOccurred())
		s, _ := in.Field("/params/s")
		Expect(s).To(Equal("y"))
		f.Close()
		_, err = pe.NextWhere(time.Second, func(*peer.Inbound) bool { return false })
		Expect(err).To(MatchError(peer.ErrExited))
	})
})

// sinking is the fake with the stdio transport's Sinker: the test calls
// the peer's sink as the reader goroutine (inline) or the deliverer would.
type sinking struct {
	*fake
	sink transport.Sink
}

func (s *sinking) SetSink(fn transport.Sink) { s.sink = fn }

var _ = Describe("a transport that hands frames to a sink", func() {
	It("has an answer judged on the reader's goroutine, and a request the handler may answer refused there", func() {
		p, reg := miniProtocol()
		tr := &sinking{fake: newFake()}
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: tr, Recorder: transcript.NewRecorder(),
			Handler: func(*peer.Inbound) []byte { return []byte(`{"id":"s1","result":"ok"}`) }})
		DeferCleanup(pe.Close)
		Expect(tr.sink).NotTo(BeNil(), "the peer takes the transport's frames through its sink")

		c, err := pe.Request([]byte(`{"id":"mine","method":"x"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.sink(transport.Frame{Raw: []byte(`{"id":"mine","v":1,"result":{}}`), At: time.Now()}, true)).To(BeTrue())
		Expect(c.Done()).To(BeClosed(), "judged and routed before the sink returned")

		req := transport.Frame{Raw: []byte(`{"id":"s1","method":"ping"}`), At: time.Now()}
		Expect(tr.sink(req, true)).To(BeFalse(), "its answer is a write the reader must not wait on")
		Expect(tr.lastSent()).To(Equal(`{"id":"mine","method":"x"}`))
		Expect(tr.sink(req, false)).To(BeTrue())
		Expect(tr.lastSent()).To(Equal(`{"id":"s1","result":"ok"}`))
	})
})
