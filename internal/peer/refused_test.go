package peer_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// ended is the frame an HTTP transport yields when the exchange that
// carried request key ended without a JSON-RPC answer.
func ended(key, why string) transport.Frame {
	return transport.Frame{At: time.Now(), HTTP: &transport.Via{Exchange: 1, Verb: "POST", Status: 500, ContentType: "text/html", For: key, End: why}}
}

var _ = Describe("an HTTP exchange that ends without an answer", func() {
	It("ends the wait for its request at once, failing the response rule with why", func() {
		pe, f, obs := newPeer(nil)
		pe.SetScenario("s")
		c, err := pe.Request([]byte(`{"id":1,"method":"x"}`))
		Expect(err).NotTo(HaveOccurred())
		f.pushFrame(ended("1", "HTTP 500 text/html"))
		start := time.Now()
		_, err = pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("HTTP 500 text/html")))
		Expect(time.Since(start)).To(BeNumerically("<", 30*time.Second), "not waited out")
		Expect(c.Refused).To(Equal("HTTP 500 text/html"))
		Expect(c.Response.HTTP.Status).To(Equal(500))
		Expect(c.Response.Problem).To(Equal("no JSON-RPC answer: HTTP 500 text/html"))
		Expect(obs.verdicts("MINI-TIMELY-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"fail"}))
		Expect(pe.Answered("x")).To(BeFalse())
		Expect(pe.InFlight()).To(BeEmpty())
		obs.mu.Lock()
		defer obs.mu.Unlock()
		Expect(obs.all[0].Message).To(Equal("no JSON-RPC response to request id 1 (x): HTTP 500 text/html"))
		Expect(obs.all[0].Scenario).To(Equal("s"))
	})

	It("leaves a stream closed early to the transport's own check, and keeps a later answer without a second verdict", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":2,"method":"x"}`))
		f.pushFrame(ended("2", "stream closed before the response"))
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue())
		Expect(obs.verdicts("MINI-TIMELY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
		f.push(`{"id":2,"v":1}`)
		in, err := pe.Next(time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(in.Raw)).To(Equal(`{"id":2,"v":1}`))
		Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})

	It("is the answer a raw POST was owed, queued with how it came", func() {
		pe, f, obs := newPeer(nil)
		Expect(pe.SendRaw([]byte("{not json\n"), true)).To(Succeed())
		via := ended("", "HTTP 400 text/plain")
		via.HTTP.Status, via.HTTP.ContentType = 400, "text/plain"
		f.pushFrame(via)
		in, err := pe.Next(time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Value).To(BeNil())
		Expect(in.HTTP.Status).To(Equal(400))
		Expect(in.Problem).To(Equal("no JSON-RPC answer: HTTP 400 text/plain"))
		Expect(obs.verdicts("MINI-JSON-1")).To(BeEmpty(), "no frame to judge")
		Expect(pe.Frames()).To(Equal(0))
	})

	It("is only noted when nothing waits for it", func() {
		pe, f, obs := newPeer(nil)
		f.pushFrame(ended("", "HTTP 500 text/html"))
		f.pushFrame(ended("9", "redirect loop"))
		f.push(`{"id":7,"v":1}`)
		in, err := pe.Next(time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(in.Raw)).To(Equal(`{"id":7,"v":1}`), "the stray, and nothing before it")
		Expect(obs.verdicts("MINI-TIMELY-1")).To(BeEmpty())
		Expect(pe.Recorder().Len()).To(Equal(3))
	})

	It("gives every frame its HTTP origin", func() {
		pe, f, _ := newPeer(nil)
		f.pushFrame(transport.Frame{Raw: []byte(`{"method":"n"}`), At: time.Now(), HTTP: &transport.Via{Verb: "GET", Stream: true, EventID: "e1"}})
		in, err := pe.Next(time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.HTTP.EventID).To(Equal("e1"))
	})
})
