package peer_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("the peer", func() {
	It("matches a response to its request by id and validates it against its kind", func() {
		pe, f, obs := newPeer(nil)
		c, err := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":1,"v":1,"result":"hi"}`)
		in, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind.Name).To(Equal("echo result"))
		Expect(obs.verdicts("MINI-ECHO-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-V-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"pass"}))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
	})

	It("fails the kind's rule when the frame breaks its schema, and frame rules on every frame of the role", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":"a","method":"echo"}`))
		f.push(`{"id":"a","v":2,"result":42}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-ECHO-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-V-1")).To(Equal([]string{"fail"}))
	})

	It("reports a second response to one request", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		f.push(`{"id":1,"v":1}`)
		f.push(`{"id":1,"v":1}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []string { return obs.verdicts("MINI-ONE-1") }).Should(Equal([]string{"pass", "fail"}))
	})

	It("tracks a request built as a value like one given as bytes: a string id from the value, a number id with its JSON type", func() {
		pe, f, obs := newPeer(nil)
		c, err := pe.RequestValue(map[string]any{"id": "s1", "method": "echo"}, []byte(`{"id":"s1","method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Key).To(Equal(`"s1"`))
		Expect(c.Method).To(Equal("echo"))
		n, err := pe.RequestValue(map[string]any{"id": 5, "method": "x"}, []byte(`{"id":5,"method":"x"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(n.Key).To(Equal("5"))
		f.push(`{"id":"s1","v":1,"result":"hi"}`)
		f.push(`{"id":"5","v":1}`)
		in, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind.Name).To(Equal("echo result"))
		_, err = pe.Wait(n, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(n.Mismatch).To(Equal("type"))
		Expect(obs.verdicts("MINI-ID-TYPE-1")).To(Equal([]string{"pass", "fail"}))
	})

	It("recognises an id echoed with another JSON type", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":7,"method":"x"}`))
		pe.Request([]byte(`{"id":8,"method":"x"}`))
		f.push(`{"id":"7","v":1}`)
		in, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Call).To(Equal(c))
		Expect(c.Mismatch).To(Equal("type"))
		Expect(obs.verdicts("MINI-ID-TYPE-1")).To(Equal([]string{"fail"}))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"pass"}))
	})

	It("takes a response with an unknown id as the answer of the only request in flight, and says the id was wrong", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":"q","method":"x"}`))
		f.push(`{"id":"zzz","v":1}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Mismatch).To(Equal("value"))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"fail"}))
	})

	It("takes it so while a raw line owed an answer carries no id (a notification gives the server none to answer with): the wait ends with that answer", func() {
		pe, f, obs := newPeer(nil)
		Expect(pe.SendRaw([]byte(`{"method":"note"}`+"\n"), true)).To(Succeed())
		c, _ := pe.Request([]byte(`{"id":"q","method":"x"}`))
		f.push(`{"id":"q-x","v":1}`)
		// The bound only keeps a broken peer from hanging the test.
		in, err := pe.Wait(c, 30*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Call).To(Equal(c))
		Expect(c.Mismatch).To(Equal("value"))
		Expect(obs.verdicts("MINI-ECHO-ID-1")).To(Equal([]string{"fail"}))
	})

	It("does not take it so while a raw line owed an answer names an id the server may have read from it", func() {
		pe, f, _ := newPeer(nil)
		Expect(pe.SendRaw([]byte(`{"id":"r","method":"x",}`+"\n"), true)).To(Succeed())
		c, _ := pe.Request([]byte(`{"id":"q","method":"x"}`))
		f.push(`{"id":"r-x","v":1}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Call).To(BeNil())
		_, err = pe.Wait(c, 0)
		Expect(err).To(MatchError(peer.ErrTimeout))
	})

	It("ends the waits of requests in flight once each has had a response whose id matches none of them: none is owed any more", func() {
		pe, f, obs := newPeer(nil)
		var calls []*peer.Call
		for _, id := range []string{"a", "b", "c"} {
			c, err := pe.Request([]byte(`{"id":"` + id + `","method":"x"}`))
			Expect(err).NotTo(HaveOccurred())
			calls = append(calls, c)
		}
		for _, id := range []string{"a-x", "b-x", "c-x"} {
			f.push(`{"id":"` + id + `","v":1}`)
		}
		for _, c := range calls {
			// The bound only keeps a broken peer from hanging the test.
			_, err := pe.Wait(c, 30*time.Second)
			Expect(err).To(MatchError(peer.ErrUnmatched))
			Expect(errors.Is(err, peer.ErrTimeout)).To(BeTrue(), "callers that tell only answered from unanswered read it as no answer")
		}
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail", "fail", "fail"}))
	})

	It("keeps waiting while fewer such responses came than requests are in flight, or came before a request was sent", func() {
		pe, f, _ := newPeer(nil)
		a, _ := pe.Request([]byte(`{"id":"a","method":"x"}`))
		a2, _ := pe.Request([]byte(`{"id":"a2","method":"x"}`))
		stray := func(id string) {
			f.push(`{"id":"` + id + `","v":1}`)
			in, err := pe.Next(time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(in.Call).To(BeNil())
		}
		notYet := func(cs ...*peer.Call) {
			for _, c := range cs {
				_, err := pe.Wait(c, 0)
				Expect(err).To(MatchError(peer.ErrTimeout))
				Expect(err).NotTo(MatchError(peer.ErrUnmatched))
			}
		}
		stray("s1")
		notYet(a, a2)
		stray("s2")
		// Two strays, both before b was sent: neither answers b.
		b, _ := pe.Request([]byte(`{"id":"b","method":"x"}`))
		notYet(a, a2, b)
		f.push(`{"id":"s3","v":1}`)
		_, err := pe.Wait(b, 30*time.Second)
		Expect(err).To(MatchError(peer.ErrUnmatched))
	})

	It("reports a response to a request never sent as a stray", func() {
		pe, f, obs := newPeer(nil)
		f.push(`{"id":99,"v":1}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Call).To(BeNil())
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
	})

	It("accepts one null-id answer per raw line that may be answered, and no more", func() {
		pe, f, obs := newPeer(nil)
		Expect(pe.SendRaw([]byte("{oops\n"), true)).To(Succeed())
		f.push(`{"id":null,"v":1}`)
		f.push(`{"id":null,"v":1}`)
		Eventually(func() int { return pe.Frames() }).Should(Equal(2))
		Expect(obs.verdicts("MINI-STRAY-1")).To(Equal([]string{"fail"}))
	})

	It("keeps events with the request in flight and rejects them after its response", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":5,"method":"run"}`))
		f.push(`{"id":5,"event":{"n":1}}`)
		f.push(`{"id":5,"event":{"n":2}}`)
		f.push(`{"id":5,"v":1}`)
		f.push(`{"id":5,"event":{"n":3}}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []string { return obs.verdicts("MINI-EVENT-1") }).Should(Equal([]string{"pass", "pass", "fail"}))
		Expect(c.Events).To(HaveLen(2))
	})

	It("answers a request the server sends through the handler", func() {
		pe, f, _ := newPeer(func(in *peer.Inbound) []byte {
			id, _ := in.Field("/id")
			return []byte(`{"id":` + peer.Key(id) + `,"result":"pong"}`)
		})
		f.push(`{"id":"s1","method":"ping"}`)
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Kind.Name).To(Equal("server request"))
		Eventually(f.lastSent).Should(Equal(`{"id":"s1","result":"pong"}`))
	})

	DescribeTable("rejects frames that are not one JSON value per line, and says why",
		func(fr transport.Frame, why string) {
			pe, f, obs := newPeer(nil)
			f.pushFrame(fr)
			in, err := pe.Next(time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(in.Problem).To(ContainSubstring(why))
			Expect(obs.verdicts("MINI-JSON-1")).To(Equal([]string{"fail"}))
		},
		Entry("not JSON", transport.Frame{Raw: []byte("hello")}, "not JSON"),
		Entry("two values on a line", transport.Frame{Raw: []byte(`{"a":1}{"b":2}`)}, "not JSON"),
		Entry("an empty line", transport.Frame{Raw: []byte{}}, "empty line"),
		Entry("a line cut off at exit", transport.Frame{Raw: []byte(`{"a":`), Partial: true}, "middle of a line"),
	)

	It("routes a frame with invalid UTF-8 but still fails it", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		f.push("{\"id\":1,\"v\":1,\"result\":\"\xff\"}")
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-JSON-1")).To(Equal([]string{"fail"}))
	})

	It("reports a frame of no known kind", func() {
		pe, f, obs := newPeer(nil)
		f.push(`[1,2,3]`)
		_, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"fail"}))
	})

	It("judges the frames that come after SetProtocol by the new protocol", func() {
		pe, f, obs := newPeer(nil)
		p, _ := miniProtocol()
		none := *p
		none.Kinds = nil
		c, _ := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		f.push(`{"id":1,"v":1,"result":"hi"}`)
		_, err := pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		pe.SetProtocol(&none)
		f.push(`{"id":1,"v":1,"result":"hi"}`)
		_, err = pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(obs.verdicts("MINI-KNOWN-1")).To(Equal([]string{"pass", "fail"}))
	})

	It("ends waits when the server's output ends", func() {
		pe, f, _ := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		f.Close()
		_, err := pe.Wait(c, 5*time.Second)
		Expect(err).To(MatchError(peer.ErrExited))
		_, err = pe.Next(5 * time.Second)
		Expect(err).To(MatchError(peer.ErrExited))
	})

	It("times a wait out", func() {
		pe, _, _ := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		_, err := pe.Wait(c, 50*time.Millisecond)
		Expect(err).To(MatchError(peer.ErrTimeout))
	})

	It("bounds the inbox against a flood of unanswered frames", func() {
		pe, f, _ := newPeer(nil)
		for i := 0; i < 5000; i++ {
			f.push(`{"method":"note"}`)
		}
		Eventually(pe.Frames, 30*time.Second).Should(Equal(5000)) // -race on a loaded machine judges a few thousand a second
		n := 0
		for {
			if _, err := pe.Next(10 * time.Millisecond); err != nil {
				break
			}
			n++
		}
		Expect(n).To(BeNumerically("<=", 4096))
	})
})

var _ = Describe("Pointer and Equal", func() {
	It("resolves JSON pointers with escapes and array indexes", func() {
		v := map[string]any{"a/b": map[string]any{"c~d": []any{"x", "y"}}}
		got, ok := peer.Pointer(v, "/a~1b/c~0d/1")
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal("y"))
		_, ok = peer.Pointer(v, "/a~1b/c~0d/9")
		Expect(ok).To(BeFalse())
	})
})

var _ = Describe("frame rules of some revisions", func() {
	It("judge the frames of those revisions only", func() {
		p, _ := miniProtocol()
		p.Rule("MINI-V-1").Versions = []string{"v2"}
		k := p.Kind("response")
		rules := func(version string) []string {
			p.Version = version
			var out []string
			for _, c := range peer.SchemaChecks(p, k, "", map[string]any{"id": 1}) {
				out = append(out, c.Rule)
			}
			return out
		}
		Expect(rules("v1")).NotTo(ContainElement("MINI-V-1"))
		Expect(rules("v2")).To(ContainElement("MINI-V-1"))
		Expect(rules("")).To(ContainElement("MINI-V-1"), "an unversioned run applies every rule")
	})
})

var _ = Describe("a request named in a message", func() {
	DescribeTable("says what it lacked instead of leaving a gap",
		func(key, method, want string) { Expect(peer.DescribeRequest(key, method)).To(Equal(want)) },
		Entry("id and method", `"f44"`, "tools/call", `request id "f44" (tools/call)`),
		Entry("no method", `"f44"`, "", `request id "f44" (no method)`),
		Entry("no id", "", "ping", "a request without an id (ping)"),
	)

	It("is named by the call the peer tracks", func() {
		pe, _, _ := newPeer(nil)
		c, err := pe.Request([]byte(`{"id":"f44","params":{}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Describe()).To(Equal(`request id "f44" (no method)`))
	})
})
