package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// BenchmarkGenerate measures generated values per second for a few
// representative schemas against a baseline in the same run: json.Marshal
// of a fixed MCP request, the cheapest thing the harness does with a value.
// The gen/marshal metric is how many marshals one generated value costs.
//
//	go test -run '^$' -bench Generate ./internal/gen/
func BenchmarkGenerate(b *testing.B) {
	schemas := []struct{ name, file, ref string }{
		{"flat-object", "testdata/object_closed.json", ""},
		{"formats", "testdata/formats_2020.json", ""},
		{"patterns", "testdata/patterns.json", ""},
		{"recursive", "testdata/json_value.json", ""},
		{"mcp-CallToolRequest", filepath.Join(mcpDir, "2025-06-18", "schema.json"), "#/definitions/CallToolRequest"},
		{"mcp-JSONRPCMessage", filepath.Join(mcpDir, "2025-11-25", "schema.json"), "#/$defs/JSONRPCMessage"},
	}

	fixed := map[string]any{
		"jsonrpc": "2.0", "id": json.Number("1"), "method": "tools/call",
		"params": map[string]any{"name": "weather", "arguments": map[string]any{"city": "Oslo", "days": json.Number("3")}},
	}
	var baseline time.Duration
	b.Run("baseline/json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(fixed); err != nil {
				b.Fatal(err)
			}
		}
		baseline = b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
	})

	for _, sc := range schemas {
		s, err := benchSchema(sc.file, sc.ref)
		if err != nil {
			b.Logf("skipping %s: %v", sc.name, err)
			continue
		}
		b.Run("Valid/"+sc.name, func(b *testing.B) {
			gen := Valid(s)
			seed := 0
			for b.Loop() {
				gen.Example(seed)
				seed++
			}
			report(b, baseline)
		})
		b.Run("Invalid/"+sc.name, func(b *testing.B) {
			if sc.name == "recursive" {
				b.Skip("accepts every value")
			}
			gen := Invalid(s)
			seed := 0
			for b.Loop() {
				gen.Example(seed)
				seed++
			}
			report(b, baseline)
		})
	}
}

func report(b *testing.B, baseline time.Duration) {
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
	if baseline > 0 {
		ratio := float64(per) / float64(baseline)
		b.ReportMetric(ratio, "gen/marshal")
		b.Logf("%s: %v per value, %.0fx json.Marshal (%v)", b.Name(), per, ratio, baseline)
	}
}

func benchSchema(file, ref string) (*jsonschema.Schema, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		return Compile(raw)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://bench/schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://bench/schema.json" + ref)
}
