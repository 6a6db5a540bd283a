package httpmcp_test

import (
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
)

// benchFrames are what the transport reads most: an initialize answer, a
// tools/list answer, a notification with text full of escapes.
var benchFrames = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"example-servers/everything","version":"1.0.0"}}}`),
	[]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echoes back the input","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}},{"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}]}}`),
	[]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line one\nline \"two\"\tend \u00e9t\u00e9 日本 \ud83d\ude00"}}`),
}

// BenchmarkParseMessages measures how the transport reads the messages
// of a frame (a skim of its JSON) and, alternating in the same run, the
// decode of the whole frame it replaced (refParse). x-baseline is the
// skim's time over the decode's: below 1 is faster.
func BenchmarkParseMessages(b *testing.B) {
	var ours, base time.Duration
	for i := 0; i < b.N; i++ {
		f := benchFrames[i%len(benchFrames)]
		start := time.Now()
		if len(httpmcp.ParseMessages(f)) != 1 {
			b.Fatal("no message")
		}
		ours += time.Since(start)
		start = time.Now()
		if len(refParse(f)) != 1 {
			b.Fatal("no message")
		}
		base += time.Since(start)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "skim-ns/op")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(ours)/float64(base), "x-baseline")
}
