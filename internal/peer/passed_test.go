package peer_test

import (
	"reflect"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
)

var _ = Describe("the cache of passes", Serial, func() {
	// echo answers the request of a fresh peer with body and returns the
	// verdicts of the kind's rule. The peers of a run share their schemas.
	var (
		proto *spec.Protocol
		reg   *schema.Registry
	)
	BeforeEach(func() { proto, reg = miniFrom("mini-at.yaml") })
	echo := func(body string) []string {
		GinkgoHelper()
		f := newFake()
		obs := &observations{}
		pe := peer.New(peer.Options{Protocol: proto, Schemas: reg, Transport: f, Recorder: transcript.NewRecorder(), Observe: obs.add})
		DeferCleanup(pe.Close)
		c, err := pe.Request([]byte(`{"id":1,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.push(body)
		_, err = pe.Wait(c, time.Second)
		Expect(err).NotTo(HaveOccurred())
		return obs.verdicts("MINI-ECHO-1")
	}

	It("judges a part another peer saw pass without validating it again, and still fails what differs", func() {
		n := peer.Passes()
		Expect(echo(`{"id":1,"v":1,"result":"cached part"}`)).To(Equal([]string{"pass"}))
		Expect(peer.Passes()).To(Equal(n + 1))
		n++
		Expect(echo(`{"v":1,"result":"cached part","id":1}`)).To(Equal([]string{"pass"}))
		Expect(peer.Passes()).To(Equal(n), "the same part, found in the cache")
		Expect(echo(`{"id":1,"v":1,"result":7}`)).To(Equal([]string{"fail"}))
		// Of duplicate members the last is the value judged.
		Expect(echo(`{"id":1,"v":1,"result":"cached part","result":8}`)).To(Equal([]string{"fail"}))
		Expect(peer.Passes()).To(Equal(n), "no failure is kept")
	})

	It("finds the bytes of the member whose value the decoder keeps, or none", func() {
		key := rapid.SampledFrom([]string{`"result"`, `"id"`, `"re\u0073ult"`, `"x\"y"`, `"resultx"`})
		val := rapid.SampledFrom([]string{`1`, `-2.5e3`, `"s"`, `"}\"]{"`, `{"result":{}}`, `[1,{"a":"]"},[]]`, `null`, `true`, `{}`, `[]`, `"\u00e9\\"`})
		ws := rapid.SampledFrom([]string{"", " ", "\n\t "})
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			var b strings.Builder
			b.WriteString(ws.Draw(t, "w0") + "{")
			for i, n := 0, rapid.IntRange(0, 5).Draw(t, "n"); i < n; i++ {
				if i > 0 {
					b.WriteString("," + ws.Draw(t, "wc"))
				}
				b.WriteString(key.Draw(t, "k") + ws.Draw(t, "wk") + ":" + ws.Draw(t, "wv") + val.Draw(t, "v") + ws.Draw(t, "we"))
			}
			b.WriteString("}" + ws.Draw(t, "w1"))
			raw := []byte(b.String())
			v, err := schema.Decode(raw)
			if err != nil {
				t.Fatalf("generated %s: %v", raw, err)
			}
			want, present := peer.Pointer(v, "/result")
			got, ok := peer.Part(raw, "/result")
			if !ok {
				if present && !strings.Contains(string(raw), `\`) {
					t.Fatalf("no part for /result in %s", raw)
				}
				return
			}
			gv, err := schema.Decode(got)
			if err != nil || !present || !reflect.DeepEqual(gv, want) {
				t.Fatalf("part %s of %s is not the value %#v", got, raw, want)
			}
		})
	})

	It("takes only one member of the top-level object", func() {
		for _, at := range []string{"", "/", "/result/x", "/a~1b", "/b"} {
			_, ok := peer.Part([]byte(`{"result":1,"a/b":2,"0":3}`), at)
			Expect(ok).To(BeFalse(), at)
		}
		_, ok := peer.Part([]byte(`[{"result":1}]`), "/result")
		Expect(ok).To(BeFalse())
	})
})
