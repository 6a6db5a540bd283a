package sse_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
)

// benchStream is a POST's answer as servers send it: a priming event,
// progress notifications, the response.
var benchStream = "id: 1\ndata:\nretry: 1000\n\n" +
	strings.Repeat("event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1,\"total\":4}}\n\n", 3) +
	"event: message\nid: 5\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + strings.Repeat("x", 2000) + "\"}]}}\n\n"

// BenchmarkReader measures reading a stream with a new Reader (closed,
// as the transport does) and, alternating in the same run, with the
// byte-at-a-time reader it replaced (refReader). x-baseline is Reader's
// time over the baseline's: below 1 is faster.
func BenchmarkReader(b *testing.B) {
	var ours, base time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r := sse.NewReader(strings.NewReader(benchStream), 1<<20, 1<<20)
		n := drain(b, r.Next)
		r.Close()
		ours += time.Since(start)
		start = time.Now()
		if drain(b, sse.NewRefReader(strings.NewReader(benchStream), 1<<20, 1<<20).Next) != n {
			b.Fatal("the readers read different events")
		}
		base += time.Since(start)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "reader-ns/op")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(ours)/float64(base), "x-baseline")
}

func drain(b *testing.B, next func() (sse.Event, error)) int {
	n := 0
	for {
		_, err := next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}
