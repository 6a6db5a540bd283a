package sse_test

import (
	"errors"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

// all reads every event of s, and the error that ended the stream.
func all(s string, maxEvent, maxIdle int) ([]sse.Event, error) {
	r := sse.NewReader(strings.NewReader(s), maxEvent, maxIdle)
	var evs []sse.Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// endless repeats s for ever: a stream that never ends.
type endless struct {
	s string
	i int
}

func (e *endless) Read(p []byte) (int, error) {
	for n := range p {
		p[n] = e.s[e.i%len(e.s)]
		e.i++
	}
	return len(p), nil
}

var _ = Describe("Reader", func() {
	It("splits lines at CR, LF and CRLF alike", func() {
		evs, err := all("data: a\r\rdata: b\n\ndata: c\r\n\r\n", 100, 100)
		Expect(err).To(Equal(io.EOF))
		Expect(evs).To(HaveLen(3))
		Expect([]string{evs[0].Data, evs[1].Data, evs[2].Data}).To(Equal([]string{"a", "b", "c"}))
	})

	It("skips a leading BOM, and only a leading one", func() {
		evs, _ := all("\uFEFFdata: a\n\n\uFEFFdata: b\n\n", 100, 100)
		Expect(evs).To(HaveLen(1))
		Expect(evs[0].Data).To(Equal("a"))
	})

	It("joins data lines with LF and keeps the event type", func() {
		evs, _ := all(": hello\nevent: message\ndata: {\"a\":\ndata:1}\n\n", 100, 100)
		Expect(evs).To(ConsistOf(sse.Event{Type: "message", Data: "{\"a\":\n1}"}))
	})

	It("takes a field name without a colon as a field with an empty value", func() {
		evs, _ := all("data\n\n", 100, 100)
		Expect(evs).To(ConsistOf(sse.Event{Data: ""}))
	})

	It("dispatches an empty data field but not a block without data, whose id still counts", func() {
		r := sse.NewReader(strings.NewReader("id: 7\n\nid: 8\ndata:\n\n"), 100, 100)
		ev, err := r.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev).To(Equal(sse.Event{ID: "8", HasID: true, Data: ""}))
		Expect(r.LastID()).To(Equal("8"))

		r = sse.NewReader(strings.NewReader("id: 7\nretry: 50\n\n"), 100, 100)
		_, err = r.Next()
		Expect(err).To(Equal(io.EOF))
		Expect(r.LastID()).To(Equal("7"))
		Expect(r.Retry()).To(Equal(50))
	})

	It("ignores an id holding NUL and a retry that is not all digits", func() {
		r := sse.NewReader(strings.NewReader("id: 1\n\nid: a\x00b\nretry: 5x\nretry: -1\ndata: x\n\n"), 100, 100)
		ev, err := r.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.HasID).To(BeFalse())
		Expect(ev.Retry).To(Equal(0))
		Expect(r.LastID()).To(Equal("1"))
	})

	It("drops an event cut off by the end of the stream", func() {
		evs, err := all("data: a\n\ndata: b\n", 100, 100)
		Expect(err).To(Equal(io.EOF))
		Expect(evs).To(HaveLen(1))
	})

	It("refuses an event over the cap, giving its first bytes", func() {
		_, err := all("data: "+strings.Repeat("x", 50)+"\n\n", 10, 100)
		Expect(errors.Is(err, sse.ErrEventTooLarge)).To(BeTrue())

		r := sse.NewReader(strings.NewReader(strings.Repeat("data: 12345\n", 10)+"\n"), 20, 100)
		ev, err := r.Next()
		Expect(err).To(MatchError(sse.ErrEventTooLarge))
		Expect(len(ev.Data)).To(BeNumerically("<=", 20))
		Expect(ev.Data).To(HavePrefix("12345\n12345"))
	})

	It("stops an endless data line, comment or keep-alive flood at its cap", func() {
		r := sse.NewReader(&endless{s: "data: " + strings.Repeat("x", 100)}, 1000, 1000)
		ev, err := r.Next()
		Expect(err).To(MatchError(sse.ErrEventTooLarge))
		Expect(ev.Data).To(HaveLen(1000))

		r = sse.NewReader(&endless{s: ":"}, 1000, 1000)
		_, err = r.Next()
		Expect(err).To(MatchError(sse.ErrNoEvent))

		r = sse.NewReader(&endless{s: ": keep-alive\n"}, 1000, 1000)
		_, err = r.Next()
		Expect(err).To(MatchError(sse.ErrNoEvent))

		r = sse.NewReader(&endless{s: "id: 1\n\n"}, 1000, 1000)
		_, err = r.Next()
		Expect(err).To(MatchError(sse.ErrNoEvent))
	})

	It("resets the idle count at each dispatched event", func() {
		s := strings.Repeat(": ping\ndata: x\n\n", 100)
		evs, err := all(s, 100, 20)
		Expect(err).To(Equal(io.EOF))
		Expect(evs).To(HaveLen(100))
	})
})

// chunked hands out its bytes in the sizes drawn, then the end.
type chunked struct {
	b     []byte
	sizes []int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n, c.sizes = c.sizes[0], c.sizes[1:]
	}
	n = min(n, len(p), len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

var _ = Describe("Reader's scan of its buffer", func() {
	It("reads every stream as the byte-at-a-time reader did, however it arrives", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			pieces := rapid.SliceOfN(rapid.SampledFrom([]string{
				"data: ", "data:", "data", "dat", "id: ", "id:", "event: ", "retry: ", "retry: 12", ": ", ":",
				"\n", "\r", "\r\n", "\n\n", "\r\r", "\uFEFF", "x", "yz", "12", " ", "\x00", "{\"a\":1}",
				strings.Repeat("x", 20), strings.Repeat("y", 70), strings.Repeat("z", 5000),
			}), 0, 40).Draw(t, "pieces")
			s := strings.Join(pieces, "")
			maxEvent := rapid.IntRange(1, 100).Draw(t, "maxEvent")
			maxIdle := rapid.IntRange(1, 200).Draw(t, "maxIdle")
			sizes := rapid.SliceOfN(rapid.IntRange(1, 5000), 0, 20).Draw(t, "sizes")
			ref := sse.NewRefReader(&chunked{b: []byte(s), sizes: sizes}, maxEvent, maxIdle)
			r := sse.NewReader(&chunked{b: []byte(s), sizes: sizes}, maxEvent, maxIdle)
			defer r.Close()
			for {
				want, wantErr := ref.Next()
				got, err := r.Next()
				if !errors.Is(err, wantErr) || got != want || r.LastID() != ref.LastID() || r.Retry() != ref.Retry() {
					t.Fatalf("stream %q (caps %d, %d): got %#v, %v (last id %q, retry %d); want %#v, %v (last id %q, retry %d)",
						s, maxEvent, maxIdle, got, err, r.LastID(), r.Retry(), want, wantErr, ref.LastID(), ref.Retry())
				}
				if err != nil {
					return
				}
			}
		})
	})
})
