package schema_test

import (
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/schema"
)

// frames are what the peer decodes most: a tools/list answer of the
// sonde-serve reference server, a request, and a text full of escapes and
// non-ASCII.
var frames = [][]byte{
	[]byte(`{"id":1,"ok":true,"protocolVersion":"1.0.0","result":{"tools":[{"description":"Return the text it is given","inputSchema":{"type":"object","properties":{"text":{"type":"string","maxLength":256}},"required":["text"],"additionalProperties":false},"name":"echo"},{"description":"Deploy project","inputSchema":{"type":"object","properties":{"target":{"enum":["preview","production"]},"dryRun":{"type":"boolean"}},"required":["target"],"additionalProperties":false},"name":"deploy"},{"description":"Always fails at runtime (for error paths)","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false},"name":"fail"}]}}`),
	[]byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":7}}}`),
	[]byte(`{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"line one\nline \"two\"\tend \u00e9t\u00e9 日本 \ud83d\ude00"}],"isError":false}}`),
}

// BenchmarkDecode measures Decode and, alternating in the same run, the
// encoding/json decode it replaced (jsonschema.UnmarshalJSON) on the same
// frames. x-baseline is Decode's time over the baseline's: below 1 is
// faster.
func BenchmarkDecode(b *testing.B) {
	var ours, base time.Duration
	for i := 0; i < b.N; i++ {
		f := frames[i%len(frames)]
		start := time.Now()
		if _, err := schema.Decode(f); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		start = time.Now()
		if _, err := reference(f); err != nil {
			b.Fatal(err)
		}
		base += time.Since(start)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "decode-ns/op")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(ours)/float64(base), "x-baseline")
}
