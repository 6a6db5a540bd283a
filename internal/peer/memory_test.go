package peer_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// newPeerWith is newPeer with options changed and the recorder at hand.
func newPeerWith(set func(*peer.Options)) (*peer.Peer, *fake, *transcript.Recorder) {
	p, reg := miniProtocol()
	f := newFake()
	rec := transcript.NewRecorder()
	o := peer.Options{Protocol: p, Schemas: reg, Transport: f, Recorder: rec, Observe: func(verdict.Observation) {}}
	set(&o)
	pe := peer.New(o)
	DeferCleanup(pe.Close)
	return pe, f, rec
}

// settle ends the fake server's output and waits until the peer has judged
// all of it; the bound is only against a hang.
func settle(pe *peer.Peer, f *fake) {
	GinkgoHelper()
	Expect(f.Close()).To(Succeed())
	Eventually(pe.Gone()).WithTimeout(time.Minute).Should(BeClosed())
}

// drain takes every queued frame.
func drain(pe *peer.Peer) []*peer.Inbound {
	var out []*peer.Inbound
	for {
		in, err := pe.Next(10 * time.Millisecond)
		if err != nil {
			return out
		}
		out = append(out, in)
	}
}

func notes(rec *transcript.Recorder) []string {
	var out []string
	for _, e := range rec.Slice(0, -1) {
		if e.Dir == transcript.Note {
			out = append(out, e.Text)
		}
	}
	return out
}

var _ = Describe("the peer's memory", func() {
	It("bounds the bytes of unread frames, keeping the newest, and says once that it drops", func() {
		pe, f, rec := newPeerWith(func(o *peer.Options) { o.InboxBytes = 1 << 20 })
		pad := strings.Repeat("p", 100_000)
		for i := range 100 {
			f.push(fmt.Sprintf(`{"method":"note","n":%d,"pad":%q}`, i, pad))
		}
		settle(pe, f)
		Expect(pe.Frames()).To(Equal(100))
		got := drain(pe)
		Expect(len(got)).To(And(BeNumerically(">=", 4), BeNumerically("<=", 5)), "1 MiB holds 5 frames of 200 KB (bytes and value)")
		n, _ := got[len(got)-1].Field("/n")
		Expect(fmt.Sprint(n)).To(Equal("99"))
		Expect(notes(rec)).To(ContainElement(ContainSubstring("frames nobody read are being dropped, oldest first")))
		Expect(notes(rec)).To(HaveLen(2), "and the transcript's own cap, once: %v", notes(rec))
	})

	It("counts a frame's decoded value, which for small tokens outweighs its bytes", func() {
		pe, f, _ := newPeerWith(func(o *peer.Options) { o.InboxBytes = 1 << 20 })
		ones := "[" + strings.Repeat("1,", 4999) + "1]" // 10 KB, 5000 values
		for range 100 {
			f.push(`{"method":"note","a":` + ones + `}`)
		}
		settle(pe, f)
		Expect(len(drain(pe))).To(BeNumerically("<", 20))
	})

	It("bounds the events kept with a call and counts the rest", func() {
		pe, f, _ := newPeerWith(func(o *peer.Options) { o.InboxCap = 100 })
		c, _ := pe.Request([]byte(`{"id":5,"method":"run"}`))
		for i := range 300 {
			f.push(fmt.Sprintf(`{"id":5,"event":{"n":%d}}`, i))
		}
		f.push(`{"id":5,"v":1}`)
		settle(pe, f)
		Expect(c.Done()).To(BeClosed())
		Expect(c.Events).To(HaveLen(100))
		Expect(c.EventsDropped).To(Equal(200))
	})

	It("remembers the ids of the newest 10,000 server requests only", func() {
		pe, f, _ := newPeerWith(func(o *peer.Options) {})
		for i := range 10_005 {
			f.push(fmt.Sprintf(`{"id":"s%d","method":"ask"}`, i))
		}
		settle(pe, f)
		Expect(pe.ServerRequest(peer.Key("s10004"))).To(BeTrue())
		Expect(pe.ServerRequest(peer.Key("s5"))).To(BeTrue())
		Expect(pe.ServerRequest(peer.Key("s4"))).To(BeFalse())
	})

	It("keeps of an earlier scenario's answers only what judges a late duplicate", func() {
		obs := &observations{}
		pe, f, _ := newPeerWith(func(o *peer.Options) { o.Observe = obs.add })
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		f.push(`{"id":1,"v":1,"pad":"` + strings.Repeat("p", 100_000) + `"}`)
		first, err := pe.Wait(c, time.Minute)
		Expect(err).NotTo(HaveOccurred())
		pe.SetScenario("next")
		// The call a scenario holds is as it was.
		Expect(c.Response).To(BeIdenticalTo(first))
		f.push(`{"id":1,"v":1}`)
		settle(pe, f)
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"pass", "fail"}))
		Expect(obs.all[len(obs.all)-1].Message).To(ContainSubstring(fmt.Sprintf("the first is transcript line %d", first.Seq)))
		Expect(pe.AnsweredBodies()).To(BeZero(), "no answer body is held for a late duplicate")
	})

	It("keeps, once told to forget bodies, of the answers within one scenario only what judges a late duplicate (the fuzzer, between sequences)", func() {
		obs := &observations{}
		pe, f, _ := newPeerWith(func(o *peer.Options) { o.Observe = obs.add })
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		f.push(`{"id":1,"v":1,"pad":"` + strings.Repeat("p", 100_000) + `"}`)
		first, err := pe.Wait(c, time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(pe.AnsweredBodies()).To(Equal(1), "held until told")
		pe.ForgetBodies()
		Expect(pe.AnsweredBodies()).To(BeZero())
		Expect(c.Response).To(BeIdenticalTo(first), "the call its caller holds is as it was")
		f.push(`{"id":1,"v":1}`)
		settle(pe, f)
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"pass", "fail"}))
		Expect(obs.all[len(obs.all)-1].Message).To(ContainSubstring(fmt.Sprintf("the first is transcript line %d", first.Seq)))
	})
})

var _ = Describe("the peer's unread frames", func() {
	It("keep the server's first line, which the startup contract judges, however many follow it unread", func() {
		pe, f, _ := newPeerWith(func(o *peer.Options) {})
		f.push(`{"method":"ready"}`)
		for i := range 5000 {
			f.push(fmt.Sprintf(`{"method":"note","n":%d}`, i))
		}
		settle(pe, f)
		got := drain(pe)
		Expect(got).To(HaveLen(4096))
		m, _ := got[0].Field("/method")
		Expect(m).To(Equal("ready"))
		n, _ := got[len(got)-1].Field("/n")
		Expect(fmt.Sprint(n)).To(Equal("4999"))
	})

	It("cost nothing once read, so a scenario that reads what it gets never drops", func() {
		pe, f, rec := newPeerWith(func(o *peer.Options) { o.InboxBytes = 1 << 20 })
		pad := strings.Repeat("p", 100_000)
		for i := 0; i < 50; i += 2 {
			// Two at a time: the second is queued behind the first.
			f.push(fmt.Sprintf(`{"method":"note","n":%d,"pad":%q}`, i, pad))
			f.push(fmt.Sprintf(`{"method":"note","n":%d,"pad":%q}`, i+1, pad))
			for j := range 2 {
				in, err := pe.Next(time.Minute)
				Expect(err).NotTo(HaveOccurred())
				n, _ := in.Field("/n")
				Expect(fmt.Sprint(n)).To(Equal(fmt.Sprint(i + j)))
			}
		}
		settle(pe, f)
		Expect(notes(rec)).NotTo(ContainElement(ContainSubstring("dropped")))
	})
})
