package sse_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

// FuzzReader: whatever the stream, the reader neither panics nor returns
// an event over the cap, nor reads past the idle cap without an event.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"", "data: a\n\n", "\uFEFFdata: a\r\n\r\n", "id: 1\ndata:\n\n", ": c\r\r",
		"event: endpoint\ndata: /messages?x=1\n\n", "retry: 10\nid: \x00\n\n",
		"data: {\"jsonrpc\":\"2.0\"}\ndata\n\n", "data: 0123456789abcdef\n\n",
	} {
		f.Add([]byte(s))
	}
	const maxEvent, maxIdle = 16, 32
	f.Fuzz(func(t *testing.T, b []byte) {
		// One byte per read: what the reader consumed is what it parsed.
		cr := &countingReader{r: iotest.OneByteReader(bytes.NewReader(b))}
		r := sse.NewReader(cr, maxEvent, maxIdle)
		last := 0
		for {
			ev, err := r.Next()
			if len(ev.Data) > maxEvent {
				t.Fatalf("event of %d bytes over the cap %d", len(ev.Data), maxEvent)
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, sse.ErrEventTooLarge) && !errors.Is(err, sse.ErrNoEvent) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			// Between two events the reader consumed at most one
			// event's data lines ("data\n" adds one byte of data for
			// five read) and the idle cap of the rest.
			if n := cr.n - last; n > 8*(maxEvent+16)+maxIdle {
				t.Fatalf("read %d bytes for one event", n)
			}
			last = cr.n
		}
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
