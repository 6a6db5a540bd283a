package peer_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("a frame over wirecheck's --max-frame", func() {
	It("is wirecheck's limit, named with its flag, not a framing failure of the server", func() {
		pe, f, obs := newPeer(nil)
		f.pushFrame(transport.Frame{Raw: []byte(`{"a":"xxxx`), Oversize: true, Limit: 1 << 20})
		in, err := pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Problem).To(Equal("the server sent a frame of more than 1MiB, wirecheck's --max-frame; raise it to judge this frame"))
		Expect(obs.verdicts("MINI-JSON-1")).To(Equal([]string{"error"}))
	})

	It("ends the wait of the request whose id its first bytes carry, at once and unjudged", func() {
		pe, f, obs := newPeer(nil)
		c, err := pe.Request([]byte(`{"id":7,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.pushFrame(transport.Frame{Raw: []byte(`{"v":1,"id":7,"result":{"blob":"AAAA`), Oversize: true, Limit: 4 << 20})
		_, err = pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue(), "%v", err)
		Expect(errors.Is(err, peer.ErrOverCap)).To(BeTrue(), "a scenario may go on without this one answer")
		Expect(err).To(MatchError(ContainSubstring("--max-frame")))
		Expect(obs.verdicts("MINI-JSON-1")).To(Equal([]string{"error"}))
		Expect(obs.verdicts("MINI-TIMELY-1")).To(Equal([]string{"error"}))
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"error"}))
		Expect(pe.InFlight()).To(BeEmpty())
	})

	It("leaves a request it cannot tie by id waiting, and says the frame may have been its answer", func() {
		pe, f, _ := newPeer(nil)
		c, err := pe.Request([]byte(`{"id":8,"method":"echo"}`))
		Expect(err).NotTo(HaveOccurred())
		f.pushFrame(transport.Frame{Raw: []byte(`{"result":{"blob":"AAAA`), Oversize: true, Limit: 4 << 20})
		_, err = pe.Next(time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(pe.InFlight()).To(HaveLen(1))
		Expect(pe.OverCapAfter(c.Seq)).To(ContainSubstring("which may have been this answer"))
		Expect(pe.OverCapAfter(c.Seq + 100)).To(BeEmpty())
	})

	It("ends an HTTP exchange whose answer went over the cap unjudged", func() {
		pe, f, obs := newPeer(nil)
		c, _ := pe.Request([]byte(`{"id":1,"method":"x"}`))
		fr := ended("1", "a body over wirecheck's --max-frame 1MiB")
		fr.HTTP.OverCap = true
		f.pushFrame(fr)
		_, err := pe.Wait(c, time.Minute)
		Expect(errors.Is(err, peer.ErrRefused)).To(BeTrue())
		Expect(errors.Is(err, peer.ErrOverCap)).To(BeTrue())
		Expect(obs.verdicts("MINI-TIMELY-1")).To(Equal([]string{"error"}))
		Expect(obs.verdicts("MINI-ONE-1")).To(Equal([]string{"error"}))
	})
})
