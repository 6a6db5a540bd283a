package peer_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Answers to raw lines and to requests sent without an id (issue 10, false
// alarms 1 and 6): the answer is the answer whatever its shape, and it is
// judged by what the document says of such answers.
var _ = Describe("the answer to a raw line or an id-less request", func() {
	It("is taken as the answer even without an id key: a protocol frame, routed to the step waiting for it, no stray", func() {
		pe, f, obs := newPeer(nil)
		_, err := pe.Request([]byte(`{"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"v":1,"error":"no id"}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind).NotTo(BeNil())
		Expect(in.Invalid).To(BeTrue())
		Expect(pe.ProtocolFrames()).To(Equal(1))
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(BeEmpty())
	})

	It("still fails an id-less frame no line is owed as no frame of the protocol", func() {
		pe, f, obs := newPeer(nil)
		f.push(`{"level":"info"}`)
		Eventually(pe.Frames).Should(Equal(1))
		Eventually(func() []string { return obs.verdicts("MINI-KNOWN-1") }).Should(Equal([]string{"fail"}))
		Expect(pe.ProtocolFrames()).To(Equal(0))
	})

	It("takes the protocol's invalid kind, and frame rules kept to valid answers do not judge it", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte(`{"id":true,"method":"echo"}`+"\n"), true)).To(Succeed())
		f.push(`{"id":true,"v":1}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind.Name).To(Equal("answer to an invalid request"))
		Expect(obs.verdicts("MINI-ANSWER-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-ENVELOPE-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())

		// The same frame answering a tracked request is a valid answer,
		// judged by the envelope rule.
		c, err := pe.Request([]byte(`{"id":"a","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":"a","v":1}`)
		in, err = pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind.Name).To(Equal("response"))
		Expect(obs.verdicts("MINI-ENVELOPE-1")).To(Equal([]string{"pass"}))
	})

	It("leaves a frame that looks like no answer unclaimed (a log line while a raw line is owed), and takes the answer after it", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte(`{"method":"echo"}`+"\n"), true)).To(Succeed())
		f.push(`{"level":"info"}`)
		f.push(`{"v":1}`)
		first, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Kind).To(BeNil())
		answer, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(answer.Invalid).To(BeTrue())
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"fail", "pass"}))
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})

	It("judges the answer by the invalid kind's own rule", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte("[]\n"), true)).To(Succeed())
		f.push(`{"v":2}`)
		_, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ANSWER-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"pass"}))
	})
})

// A request the protocol's request schema rejects (an unknown method) may
// be answered as one whose id could not be taken.
var _ = Describe("the answer to a request that breaks the request schema", func() {
	It("may carry id null: routed to the request, the id check passes, judged by the invalid kind", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		c, err := pe.Request([]byte(`{"id":"u1","method":"nope"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Invalid).To(BeTrue())
		f.push(`{"id":null,"v":1}`)
		in, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Invalid).To(BeTrue())
		Expect(in.Kind.Name).To(Equal("answer to an invalid request"))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-ENVELOPE-1")).To(BeEmpty())
	})

	It("may carry no id at all when it is the only request in flight", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		c, _ := pe.Request([]byte(`{"id":"u2","method":"nope"}`))
		f.push(`{"v":1}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"pass"}))
	})

	It("still fails another id", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		c, _ := pe.Request([]byte(`{"id":"u3","method":"nope"}`))
		Expect(c.Invalid).To(BeTrue())
		f.push(`{"id":"other","v":1}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"fail"}))
	})

	It("takes a null id for the answer of the only valid request in flight (the id was not echoed)", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		v, err := pe.Request([]byte(`{"id":"e1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Invalid).To(BeFalse())
		f.push(`{"id":null,"v":1}`)
		_, err = pe.Wait(v, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"fail"}))
	})

	It("does not while a notification sent before may be what it answers, until a later request is answered", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte(`{"method":"note"}`+"\n"), false)).To(Succeed())
		v, err := pe.Request([]byte(`{"id":"e1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":null,"v":1}`)
		_, err = pe.Wait(v, 200*time.Millisecond)
		Expect(err).To(MatchError(peer.ErrTimeout))
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(BeEmpty())
		f.push(`{"id":"e1","v":1}`)
		_, err = pe.Wait(v, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
		// Answered past the notification: the guess is back on.
		w, err := pe.Request([]byte(`{"id":"e2","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":null,"v":1}`)
		_, err = pe.Wait(w, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass", "fail"}))
	})
})

var _ = Describe("requests held for one write (a pipeline)", func() {
	It("are all in flight before any is written, so an answer with a mangled id is no guess for the first", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		pe.Hold()
		a, err := pe.Request([]byte(`{"id":"a","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		b, err := pe.Request([]byte(`{"id":"b","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(f.lastSent()).To(BeEmpty(), "nothing written before Flush")
		Expect(pe.Flush()).To(Succeed())
		Expect(f.lastSent()).To(Equal(`{"id":"a","method":"echo"}` + "\n" + `{"id":"b","method":"echo"}` + "\n"))
		f.push(`{"id":"a-x","v":1}`)
		_, err = pe.Wait(a, 200*time.Millisecond)
		Expect(err).To(MatchError(peer.ErrTimeout))
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
		f.push(`{"id":"b","v":1}`)
		_, err = pe.Wait(b, time.Second)
		Expect(err).NotTo(HaveOccurred())
	})
})

// A server may answer a request it cannot take as one (JSON-RPC 2.0 §5:
// "If there was an error in detecting the id in the Request object (e.g.
// Parse error/Invalid Request), it MUST be Null") with id null, whatever
// else is in flight (issue 26: fuzz failed what run passes).
var _ = Describe("a null id while an invalid request is in flight with others", func() {
	It("answers the invalid request, not the valid one in flight with it", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		v, err := pe.Request([]byte(`{"id":"e1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		bad, err := pe.Request([]byte(`{"id":"u1","method":"nope"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":null,"v":1}`)
		in, err := pe.Wait(bad, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Invalid).To(BeTrue())
		f.push(`{"id":"e1","v":1}`)
		_, err = pe.Wait(v, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass", "pass"}))
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})

	It("answers each of two invalid requests in flight once", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		a, _ := pe.Request([]byte(`{"id":"u1","method":"nope"}`))
		b, _ := pe.Request([]byte(`{"id":"u2","method":""}`))
		Expect(b.Invalid).To(BeTrue(), "an empty method may be read as none")
		f.push(`{"id":null,"v":1}`)
		f.push(`{"id":null,"v":1}`)
		_, err := pe.Wait(a, time.Second)
		Expect(err).NotTo(HaveOccurred())
		_, err = pe.Wait(b, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass", "pass"}))
	})

	It("answers it once a raw line left unanswered is past: a later request was answered", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte(`{"method":"echo"} {"method":"echo"}`+"\n"), true)).To(Succeed())
		probe, err := pe.Request([]byte(`{"id":"p1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":"p1","v":1}`)
		_, err = pe.Wait(probe, time.Second)
		Expect(err).NotTo(HaveOccurred())
		bad, err := pe.Request([]byte(`{"id":"u1","method":"nope"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":null,"v":1}`)
		_, err = pe.Wait(bad, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})
})

// A fuzz campaign over HTTP took a raw POST's answer (a JSON-RPC batch
// answer, [{"id":null,…}], no id member of its own) for the invalid
// request in flight, then failed that request's own answer as a second
// one: the probe's answer had come first and marked the raw line stale,
// an ordering only one stdio stream gives.
var _ = Describe("an answer with no id that comes over HTTP after a later request was answered", func() {
	body := func(raw, key string) transport.Frame {
		return transport.Frame{Raw: []byte(raw), At: time.Now(), HTTP: &transport.Via{Exchange: 1, Verb: "POST", Status: 200, ContentType: "application/json", For: key}}
	}
	It("is the raw POST's answer, not the invalid request's in flight, which gets its own", func() {
		pe, f, obs := newPeerFrom("mini-invalid.yaml", nil)
		Expect(pe.SendRaw([]byte("[1]\n"), true)).To(Succeed())
		probe, err := pe.Request([]byte(`{"id":"p1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.pushFrame(body(`{"id":"p1","v":1}`, `"p1"`))
		_, err = pe.Wait(probe, time.Second)
		Expect(err).NotTo(HaveOccurred())
		bad, err := pe.Request([]byte(`{"id":"u9","method":"nope"}`))
		Expect(err).NotTo(HaveOccurred())
		f.pushFrame(body(`{"v":1}`, ""))
		raw, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(raw.Invalid).To(BeTrue())
		Expect(raw.Call).To(BeNil())
		f.pushFrame(body(`{"id":"u9","v":1}`, `"u9"`))
		in, err := pe.Wait(bad, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(in.Raw)).To(Equal(`{"id":"u9","v":1}`))
		Expect(obs.verdicts("MINI-STRAY-1")).To(BeEmpty())
	})
})
