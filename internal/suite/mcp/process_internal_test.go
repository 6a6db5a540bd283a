package mcp

import (
	"runtime"
	"weak"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// used is one server process that had a session and a silence, of which
// only weak pointers are left.
//
//go:noinline
func used() (weak.Pointer[peer.Peer], weak.Pointer[session]) {
	e := &scenario.Env{}
	e.SetPeer(&peer.Peer{})
	s := &session{}
	keep(e, s)
	silent(e, "server/discover was not answered", false)
	return weak.Make(e.Peer()), weak.Make(s)
}

var _ = Describe("what the suite knows about a server process", func() {
	It("belongs to that process: a new process starts with no session", func() {
		a := &scenario.Env{}
		a.SetPeer(&peer.Peer{})
		b := &scenario.Env{}
		b.SetPeer(&peer.Peer{})
		s := &session{}
		keep(a, s)
		silent(a, "server/discover was not answered within 1s", false)
		Expect(current(a)).To(BeIdenticalTo(s))
		Expect(current(b)).To(BeNil())
		why, _ := silentWhy(b)
		Expect(why).To(Equal("server/discover was not answered in time"))
		why, _ = silentWhy(a)
		Expect(why).To(Equal("server/discover was not answered within 1s"))
	})

	It("dies with the process's peer (no package-level map keeps it)", func() {
		p, s := used()
		// runtime.GC returns after a full cycle, by when weak pointers to
		// what nothing reaches are cleared.
		runtime.GC()
		Expect(p.Value()).To(BeNil(), "the peer is still reachable")
		Expect(s.Value()).To(BeNil(), "the session outlived its process")
	})
})
