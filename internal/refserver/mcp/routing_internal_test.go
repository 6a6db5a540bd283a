package mcp

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
)

var _ = Describe("the streams of a core that clients share", func() {
	// Two clients of the sessionless 2026-07-28 core, each numbering its
	// own ids (so both send the same one): the second's POST is open while
	// the first's call is handled, as under load. Each stream must carry
	// its own request's log and answer only, whichever stream is newest.
	It("sends each request's messages on that request's stream", func() {
		f := NewFront(refserver.Options{}, false)
		DeferCleanup(f.Close)
		s := f.sharedCore(discoverRev())
		call := func(tool string, args obj) []byte {
			b, err := json.Marshal(obj{"jsonrpc": "2.0", "id": "wc-tools-call-195", "method": "tools/call",
				"params": obj{"name": tool, "arguments": args, "_meta": obj{metaVersion: discoverRev(), metaCaps: obj{}, metaLogLevel: "info"}}})
			Expect(err).NotTo(HaveOccurred())
			return append(b, '\n')
		}
		a := s.open(`"wc-tools-call-195"`, "tools/call", "")
		b := s.open(`"wc-tools-call-195"`, "tools/call", "")
		// read is what ex carries up to its response.
		read := func(ex *exchange) []obj {
			var got []obj
			for {
				var line []byte
				Eventually(ex.ch).WithTimeout(wait).Should(Receive(&line))
				var m obj
				Expect(json.Unmarshal(line, &m)).To(Succeed())
				got = append(got, m)
				if isResponse(line) {
					return got
				}
			}
		}
		// a's handler runs to its end before b's line is read at all.
		_, ok := s.feed(nil, call("add", obj{"a": 1, "b": 2}), a)
		Expect(ok).To(BeTrue())
		fromA := read(a)
		_, ok = s.feed(nil, call("echo", obj{"text": "from b"}), b)
		Expect(ok).To(BeTrue())
		fromB := read(b)

		texts := func(ms []obj) []string {
			var out []string
			for _, m := range ms {
				out = append(out, compact(m))
			}
			return out
		}
		Expect(texts(fromA)).To(ConsistOf(ContainSubstring("calling add"), ContainSubstring(`"text":"3"`)), "a's stream")
		Expect(texts(fromB)).To(ConsistOf(ContainSubstring("calling echo"), ContainSubstring("from b")), "b's stream")
		Consistently(b.ch).WithTimeout(50 * time.Millisecond).ShouldNot(Receive())
	})
})

// wait bounds a wait for the core: generous, the machine is loaded.
const wait = 20 * time.Second

func compact(m obj) string {
	b, _ := json.Marshal(m)
	return string(b)
}
