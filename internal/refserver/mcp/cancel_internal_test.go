package mcp

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
)

var _ = Describe("cancellation on a core that clients share", func() {
	// Two clients of the sessionless 2026-07-28 core call the slow tool
	// with the same id. One closes its stream (its cancellation), and a
	// third posts notifications/cancelled naming that id: neither may
	// touch the other client's call, which must still be answered.
	It("cancels only the call whose stream closed", func() {
		f := NewFront(refserver.Options{}, false)
		DeferCleanup(f.Close)
		s := f.sharedCore(discoverRev())
		const id = `"wc-tools-call-195"`
		call := func(tok string) []byte {
			b, err := json.Marshal(obj{"jsonrpc": "2.0", "id": "wc-tools-call-195", "method": "tools/call",
				"params": obj{"name": "slow", "arguments": obj{"durationMs": 300},
					"_meta": obj{metaVersion: discoverRev(), metaCaps: obj{}, "progressToken": tok}}})
			Expect(err).NotTo(HaveOccurred())
			return append(b, '\n')
		}
		next := func(ex *exchange) obj {
			var line []byte
			Eventually(ex.ch).WithTimeout(wait).Should(Receive(&line))
			var m obj
			Expect(json.Unmarshal(line, &m)).To(Succeed())
			return m
		}
		a := s.open(id, "tools/call", `"a"`)
		b := s.open(id, "tools/call", `"b"`)
		for _, x := range []struct {
			ex  *exchange
			tok string
		}{{a, "a"}, {b, "b"}} {
			_, ok := s.feed(nil, call(x.tok), x.ex)
			Expect(ok).To(BeTrue())
			// Its first progress: the call is running.
			Expect(next(x.ex)).To(HaveKeyWithValue("method", "notifications/progress"))
		}
		s.gone(a)
		cancel, _ := json.Marshal(obj{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": obj{"requestId": "wc-tools-call-195"}})
		_, ok := s.take(nil, append(cancel, '\n'))
		Expect(ok).To(BeTrue())

		Expect(next(b)).To(HaveKeyWithValue("method", "notifications/progress"))
		Expect(next(b)).To(HaveKey("result"), "b's call, never cancelled, is answered")
		// a's call was cancelled: nothing of it comes anywhere.
		Consistently(s.get.ch).WithTimeout(400 * time.Millisecond).ShouldNot(Receive())
	})

	// The same with two subscriptions of one id, and a server that answers
	// a subscription it ends (fault listen-answer-cancel): closing one
	// stream ends that subscription, never the other client's.
	It("ends only the subscription whose stream closed", func() {
		f := NewFront(refserver.Options{Faults: []string{"listen-answer-cancel"}}, false)
		DeferCleanup(f.Close)
		s := f.sharedCore(discoverRev())
		listen, err := json.Marshal(obj{"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
			"params": obj{"notifications": obj{"toolsListChanged": true}, "_meta": obj{metaVersion: discoverRev(), metaCaps: obj{}}}})
		Expect(err).NotTo(HaveOccurred())
		a := s.open("7", "subscriptions/listen", "")
		b := s.open("7", "subscriptions/listen", "")
		for _, ex := range []*exchange{a, b} {
			_, ok := s.feed(nil, append(listen, '\n'), ex)
			Expect(ok).To(BeTrue())
			var line []byte
			Eventually(ex.ch).WithTimeout(wait).Should(Receive(&line))
			Expect(string(line)).To(ContainSubstring("notifications/subscriptions/acknowledged"))
		}
		s.gone(a)
		// The cancellation has been read once a later line has.
		_, ok := s.take(nil, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"))
		Expect(ok).To(BeTrue())
		Expect(b.ch).NotTo(Receive(), "b's subscription goes on, unanswered")
	})
})
