package peer_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
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

	DescribeTable("leaves a stream closed or broken early to the transport's own check, and keeps a later answer without a second verdict", func(why string) {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":2,"method":"x"}`))
		dropped := ended("2", why)
		dropped.HTTP.Dropped = true
		f.pushFrame(dropped)
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
	},
		Entry("closed", "the SSE stream closed before the response"),
		Entry("broken", "the SSE stream broke before the response: read: connection reset by peer"),
	)

	It("fails no response rule when authorization refused the request (401): the run lacks a token, the server breaks nothing", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":3,"method":"x"}`))
		refused := ended("3", "HTTP 401, text/plain, body \"Unauthorized\\n\"; the server requires a token and this run sent none")
		refused.HTTP.Status, refused.HTTP.Authorization = 401, true
		f.pushFrame(refused)
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue())
		Expect(err).To(MatchError(ContainSubstring("requires a token")), "the scenario's error says what to do")
		Expect(obs.verdicts("MINI-TIMELY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
	})

	It("ends the wait of a request the transport could not send (Via.Unsent) with ErrUnsent, judging nothing; an answer with its id is then a stray", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":4,"method":"x\ny"}`))
		unsent := ended("4", `its method "x\ny" cannot be a Mcp-Method header value`)
		unsent.HTTP.Status, unsent.HTTP.Unsent = 0, true
		f.pushFrame(unsent)
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrUnsent)).To(BeTrue(), "%v", err)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeFalse())
		Expect(err).To(MatchError(ContainSubstring("cannot be a Mcp-Method header value")))
		Expect(obs.verdicts("MINI-TIMELY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
		Expect(pe.InFlight()).To(BeEmpty())
		f.push(`{"id":4,"v":1}`)
		_, err = pe.Next(time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}), "no request with that id was ever sent")
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

	It("takes an SSE event with an id nobody sent for a stray, even with one request in flight", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":3,"method":"x"}`))
		f.pushFrame(transport.Frame{Raw: []byte(`{"id":"nobody","v":1}`), At: time.Now(), HTTP: &transport.Via{Verb: "POST", Stream: true, For: "3"}})
		f.pushFrame(transport.Frame{Raw: []byte(`{"id":3,"v":1}`), At: time.Now(), HTTP: &transport.Via{Verb: "POST", Stream: true, For: "3"}})
		_, err := pe.Wait(c, time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
	})

	It("takes a JSON body with another id for the answer to the request its POST carried", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":4,"method":"x"}`))
		_, _ = pe.Request([]byte(`{"id":5,"method":"x"}`))
		f.pushFrame(transport.Frame{Raw: []byte(`{"id":"other","v":1}`), At: time.Now(), HTTP: &transport.Via{Verb: "POST", Status: 200, For: "4"}})
		_, err := pe.Wait(c, time.Minute)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})
})

// sseFake is the fake transport speaking the legacy HTTP+SSE transport,
// where the server's messages come on a stream apart from the POSTs.
type sseFake struct {
	*fake
	kind string
}

// AnswersApart is the legacy transport's: its messages come on the
// stream, apart from the POSTs.
func (f sseFake) AnswersApart() bool { return f.kind == "sse" }

var _ = Describe("a raw line whose POST is refused over a transport that answers on a stream", func() {
	// newSSEPeer is newPeer over a fake transport of kind (sse, http).
	newSSEPeer := func(kind string) (*peer.Peer, *fake, *observations) {
		p, reg := miniProtocol()
		f := newFake()
		obs := &observations{}
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: sseFake{f, kind}, Recorder: transcript.NewRecorder(), Observe: obs.add})
		DeferCleanup(pe.Close)
		return pe, f, obs
	}
	refusal := func() transport.Frame {
		fr := ended("", "HTTP 400 text/plain")
		fr.HTTP.Status, fr.HTTP.ContentType = 400, "text/plain"
		return fr
	}
	streamed := func(raw string) transport.Frame {
		return transport.Frame{Raw: []byte(raw), At: time.Now(), HTTP: &transport.Via{Exchange: 2, Verb: "GET", Stream: true}}
	}
	// answers takes the queued frames the scenario sees, in order.
	answers := func(pe *peer.Peer, n int) []*peer.Inbound {
		var out []*peer.Inbound
		for range n {
			in, err := pe.Next(time.Minute)
			Expect(err).NotTo(HaveOccurred())
			out = append(out, in)
		}
		return out
	}

	DescribeTable("takes both the refusal and the error on the stream for the line's answers, in either order, no stray",
		func(errorFirst bool, errLine string) {
			pe, f, obs := newSSEPeer("sse")
			pe.SetScenario("parse-error")
			Expect(pe.SendRaw([]byte("{not json\n"), true)).To(Succeed())
			if errorFirst {
				f.pushFrame(streamed(errLine))
				f.pushFrame(refusal())
			} else {
				f.pushFrame(refusal())
				f.pushFrame(streamed(errLine))
			}
			if errorFirst {
				// The error answered the line; the refusal after it is
				// only noted (sent, received, note).
				got := answers(pe, 1)
				Expect(got[0].Invalid).To(BeTrue())
				Expect(string(got[0].Raw)).To(Equal(errLine))
				Eventually(pe.Recorder().Len).WithTimeout(time.Minute).Should(Equal(3))
			} else {
				got := answers(pe, 2)
				Expect(got[0].Problem).To(Equal("no JSON-RPC answer: HTTP 400 text/plain"))
				Expect(got[1].Invalid).To(BeTrue())
				Expect(string(got[1].Raw)).To(Equal(errLine))
			}
			Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
			Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
		},
		Entry("the 400 first, id null", false, `{"id":null,"v":1,"error":"parse"}`),
		Entry("the stream's error first, id null", true, `{"id":null,"v":1,"error":"parse"}`),
		Entry("the 400 first, no id", false, `{"v":1,"error":"parse"}`),
		Entry("the 400 first, the id read from the line", false, `{"id":"wc-invalid-1","v":1,"error":"invalid"}`),
	)

	It("leaves room for one error only, and only within the scenario", func() {
		pe, f, obs := newSSEPeer("sse")
		pe.SetScenario("parse-error")
		Expect(pe.SendRaw([]byte("{not json\n"), true)).To(Succeed())
		f.pushFrame(refusal())
		f.pushFrame(streamed(`{"id":null,"v":1}`))
		f.pushFrame(streamed(`{"id":null,"v":2}`))
		answers(pe, 3)
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}), "the second error is a stray")

		Expect(pe.SendRaw([]byte("{not json\n"), true)).To(Succeed())
		f.pushFrame(refusal())
		answers(pe, 1)
		pe.SetScenario("next")
		f.pushFrame(streamed(`{"id":null,"v":3}`))
		answers(pe, 1)
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail", "fail"}), "an error after the scenario ended is a stray")
	})

	It("leaves no room over Streamable HTTP, where the POST's answer is the answer", func() {
		pe, f, obs := newSSEPeer("http")
		Expect(pe.SendRaw([]byte("{not json\n"), true)).To(Succeed())
		f.pushFrame(refusal())
		f.pushFrame(streamed(`{"id":null,"v":1}`))
		answers(pe, 2)
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
	})
})

var _ = Describe("an HTTP exchange that wirecheck's --timeout ends", func() {
	timedOut := func(key string) transport.Frame {
		f := ended(key, "no response headers within 1s (--timeout)")
		f.HTTP.TimedOut = true
		return f
	}

	It("fails the response rule of an ordinary request", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		f.pushFrame(timedOut("1"))
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue())
		Expect(obs.verdicts("MINI-TIMELY-1")).To(Equal([]string{"fail"}))
	})

	It("is no finding for a patient request (a tool call: MCP bounds no response time), whose wait still ends", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":2,"method":"x"}`))
		pe.Patient(c)
		f.pushFrame(timedOut("2"))
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue())
		Expect(c.Response.HTTP.TimedOut).To(BeTrue())
		Expect(obs.verdicts("MINI-TIMELY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ONE-1")).To(BeEmpty())
	})
})
