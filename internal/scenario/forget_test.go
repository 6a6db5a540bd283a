package scenario_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("steps run one at a time (Env.Do, as the fuzzer runs them)", func() {
	var (
		e   *scenario.Env
		rec *transcript.Recorder
	)
	BeforeEach(func() {
		proto, err := spec.Parse("specs/demo.yaml", []byte(baseSpec), nil, verdict.Checks, nil)
		Expect(err).NotTo(HaveOccurred())
		t := &sink{frames: make(chan transport.Frame)}
		rec = transcript.NewRecorder()
		p := peer.New(peer.Options{Protocol: proto, Transport: t, Recorder: rec})
		DeferCleanup(p.Close)
		e = &scenario.Env{Timeout: 10 * time.Millisecond}
		e.SetPeer(p)
	})

	It("send a step's value as it is, and leave it as it was", func() {
		v := map[string]any{"id": "r1", "method": "x", "params": map[string]any{"a": []any{map[string]any{"b": "c"}}}}
		st := scenario.Step{Send: v, As: "r1"}
		Expect(e.Do(&st)).To(Succeed())
		Expect(rec.Slice(0, -1)).To(ContainElement(HaveField("Text", `{"id":"r1","method":"x","params":{"a":[{"b":"c"}]}}`)))
		Expect(st.Send).To(Equal(map[string]any{"id": "r1", "method": "x", "params": map[string]any{"a": []any{map[string]any{"b": "c"}}}}))
	})

	It("forget a send once told (ForgetNamed): no later step waits on it", func() {
		Expect(e.Do(&scenario.Step{Send: map[string]any{"id": "r1", "method": "x"}, As: "r1"})).To(Succeed())
		e.ForgetNamed("r1")
		Expect(e.Answer("r1")).To(BeNil())
		Expect(e.Do(&scenario.Step{Expect: "r1"})).To(MatchError(ContainSubstring(`expect "r1": no send step is named so`)))
	})
})
