package peer_test

import (
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
)

type stateKey struct{}

type counter struct{ n int }

var _ = Describe("State", func() {
	It("makes a key's value once per peer and keeps it", func() {
		p := &peer.Peer{}
		made := 0
		mk := func() any { made++; return &counter{} }
		a := p.State(stateKey{}, mk).(*counter)
		a.n = 7
		b := p.State(stateKey{}, mk).(*counter)
		Expect(b).To(BeIdenticalTo(a))
		Expect(b.n).To(Equal(7))
		Expect(made).To(Equal(1))
	})

	It("keeps nothing across peers: a new process starts with nothing", func() {
		first, second := &peer.Peer{}, &peer.Peer{}
		first.State(stateKey{}, func() any { return &counter{n: 1} })
		got := second.State(stateKey{}, func() any { return &counter{n: 2} }).(*counter)
		Expect(got.n).To(Equal(2))
	})

	It("keeps keys apart", func() {
		type otherKey struct{}
		p := &peer.Peer{}
		p.State(stateKey{}, func() any { return &counter{n: 1} })
		Expect(p.State(otherKey{}, func() any { return &counter{n: 2} }).(*counter).n).To(Equal(2))
	})

	It("gives every concurrent caller the one value", func() {
		p := &peer.Peer{}
		var wg sync.WaitGroup
		got := make([]*counter, 16)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i] = p.State(stateKey{}, func() any { return &counter{} }).(*counter)
			}()
		}
		wg.Wait()
		for _, c := range got {
			Expect(c).To(BeIdenticalTo(got[0]))
		}
	})
})
