package peer_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// recorder is a judge that keeps what it was shown and fails every
// notification, so a test sees where its verdicts land.
type recorder struct {
	mu       sync.Mutex
	sent     []string
	calls    []*peer.Call
	received []string
}

func (r *recorder) Sent(raw []byte, c *peer.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, string(raw))
	r.calls = append(r.calls, c)
}

func (r *recorder) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	r.mu.Lock()
	r.received = append(r.received, string(in.Kind.Role)+" "+method)
	r.mu.Unlock()
	if in.Kind.Role == spec.RoleNotification {
		v.Fail("MINI-JUDGED-1", in.Seq, "judged", "", "")
	}
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.received...)
}

var _ = Describe("the frame judge", func() {
	It("is made per peer and shown every frame, both ways, its verdicts in the frame's scenario", func() {
		p, reg := miniProtocol()
		f := newFake()
		obs := &observations{}
		made := 0
		var j *recorder
		pe := peer.New(peer.Options{Protocol: p, Schemas: reg, Transport: f, Recorder: transcript.NewRecorder(), Observe: obs.add,
			Scenario: "one", Judge: func(*spec.Protocol) peer.Judge { made++; j = &recorder{}; return j },
			Handler: func(*peer.Inbound) []byte { return []byte(`{"id":"s1","result":{}}`) }})
		DeferCleanup(pe.Close)
		Expect(made).To(Equal(1))
		Expect(pe.Judge()).To(BeIdenticalTo(j))

		c, err := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(pe.SendRaw([]byte("{\"method\":\"note\"}\n"), false)).To(Succeed())
		f.push(`{"id":1,"v":1,"result":"hi"}`)
		_, err = pe.Wait(c, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		f.push(`{"id":"s1","method":"ask"}`)
		f.push(`{"method":"told"}`)
		Eventually(j.seen).Should(Equal([]string{"response echo", "request ", "notification "}))

		j.mu.Lock()
		Expect(j.sent).To(Equal([]string{`{"id":1,"method":"echo"}`, "{\"method\":\"note\"}\n", `{"id":"s1","result":{}}`}))
		Expect(j.calls[0]).To(BeIdenticalTo(c))
		Expect(j.calls[1]).To(BeNil())
		j.mu.Unlock()
		Eventually(func() []verdict.Observation {
			obs.mu.Lock()
			defer obs.mu.Unlock()
			var out []verdict.Observation
			for _, o := range obs.all {
				if o.Rule == "MINI-JUDGED-1" {
					out = append(out, o)
				}
			}
			return out
		}).Should(ConsistOf(And(HaveField("Scenario", "one"), HaveField("Verdict", verdict.Fail))))
	})

	It("gives a call's answer to any goroutine once it is routed, nothing before", func() {
		pe, f, _ := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":2,"method":"echo"}`))
		Expect(c.Answer()).To(BeNil())
		f.push(`{"id":2,"v":1,"result":"hi"}`)
		in, err := pe.Wait(c, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Answer()).To(BeIdenticalTo(in))
	})
})
