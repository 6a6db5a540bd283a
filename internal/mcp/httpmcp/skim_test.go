package httpmcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The transport reads messages by skimming them; what it reads must be
// what it read when it decoded each one whole (schema.Decode): these
// references are that reading.

func refElements(v any) []any {
	if arr, ok := v.([]any); ok {
		return arr
	}
	return []any{v}
}

func refParse(b []byte) []httpmcp.Message {
	v, err := schema.Decode(b)
	if err != nil {
		return nil
	}
	var out []httpmcp.Message
	for _, e := range refElements(v) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var msg httpmcp.Message
		msg.Method, _ = m["method"].(string)
		var id any
		if id, msg.HasID = m["id"]; msg.HasID {
			msg.Key = transport.IDKey(id)
		}
		_, hasResult := m["result"]
		_, msg.IsError = m["error"]
		msg.Response = msg.Method == "" && (hasResult || msg.IsError)
		if r, ok := m["result"].(map[string]any); ok {
			msg.Version, _ = r["protocolVersion"].(string)
		}
		if msg.Method != "" || msg.Response {
			out = append(out, msg)
		}
	}
	return out
}

func refClassify(b []byte) httpmcp.Outgoing {
	v, err := schema.Decode(b)
	if err != nil {
		return httpmcp.Outgoing{Kind: 0}
	}
	one := func(v any) (httpmcp.Outgoing, bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return httpmcp.Outgoing{}, false
		}
		method, _ := m["method"].(string)
		id, hasID := m["id"]
		switch {
		case method != "" && hasID && id != nil:
			return httpmcp.Outgoing{Kind: 1, Method: method, Key: transport.IDKey(id)}, true
		case method != "" && !hasID:
			return httpmcp.Outgoing{Kind: 2, Method: method}, true
		case method == "" && hasID && (m["result"] != nil || m["error"] != nil):
			return httpmcp.Outgoing{Kind: 2}, true
		}
		return httpmcp.Outgoing{}, false
	}
	var o httpmcp.Outgoing
	if arr, ok := v.([]any); ok {
		o = httpmcp.Outgoing{Kind: 2, Batch: true}
		if len(arr) == 0 {
			return httpmcp.Outgoing{Batch: true}
		}
		for _, e := range arr {
			m, ok := one(e)
			if !ok {
				return httpmcp.Outgoing{Batch: true}
			}
			if m.Kind == 1 {
				o.Kind = 1
				o.Keys = append(o.Keys, m.Key)
			}
		}
	} else {
		o, _ = one(v)
		if o.Kind == 1 {
			o.Keys = []string{o.Key}
		}
		m, _ := v.(map[string]any)
		params, _ := m["params"].(map[string]any)
		meta, _ := params["_meta"].(map[string]any)
		o.Revision, _ = meta["io.modelcontextprotocol/protocolVersion"].(string)
	}
	o.Valid = o.Kind != 0 && refValid(v, b)
	return o
}

func refValid(v any, b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, e := range refElements(v) {
		m, _ := e.(map[string]any)
		if m["jsonrpc"] != "2.0" {
			return false
		}
		switch m["id"].(type) {
		case nil, string, json.Number:
		default:
			return false
		}
		switch m["params"].(type) {
		case nil, map[string]any, []any:
		default:
			return false
		}
		if p, has := m["params"]; has && p == nil {
			return false
		}
	}
	return true
}

func refShape(b []byte) int {
	v, err := schema.Decode([]byte(strings.TrimSpace(string(b))))
	switch {
	case err != nil:
		return 0
	case fmt.Sprintf("%T", v) == "map[string]interface {}":
		return 1
	case fmt.Sprintf("%T", v) == "[]interface {}":
		return 2
	}
	return 0
}

// rpcText draws a JSON-RPC message as a hostile peer might write one:
// the members the transport reads spelled with escapes, duplicated, of
// every type, among others, nested, in batches.
func rpcText(t *rapid.T, depth int) string {
	ws := func() string {
		return rapid.SampledFrom([]string{"", "", " ", "\t", "\n", "\r\n"}).Draw(t, "ws")
	}
	if depth > 3 || rapid.IntRange(0, 9).Draw(t, "leaf") == 0 {
		return rapid.SampledFrom([]string{
			"null", "true", "false", "0", "-1", "1.5e3", "9007199254740993", "01", "1.", "-",
			`"2.0"`, `"x"`, `"a<b"`, `"a&b"`, `"\u00e9"`, `"é"`, "\"\xff\"", `"\ud800"`, `"a\"b"`, `"\/"`,
			`"2025-06-18"`, `"initialize"`, `"tools/list"`, `""`, `"\x"`, "\"\x01\"", `{}`, `[]`,
		}).Draw(t, "leafValue")
	}
	if rapid.IntRange(0, 4).Draw(t, "array") == 0 {
		n := rapid.IntRange(0, 3).Draw(t, "elems")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + rpcText(t, depth+1) + ws()
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	n := rapid.IntRange(0, 5).Draw(t, "members")
	parts := make([]string, n)
	for i := range parts {
		key := rapid.SampledFrom([]string{
			`"jsonrpc"`, `"id"`, `"method"`, `"result"`, `"error"`, `"params"`, `"_meta"`,
			`"protocolVersion"`, `"io.modelcontextprotocol/protocolVersion"`, `"io.modelcontextprotocol\/protocolVersion"`,
			`"met\u0068od"`, `"\u0069d"`, `"id "`, `"ID"`, "\"id\xff\"", `"other"`, `"re\sult"`,
		}).Draw(t, "key")
		parts[i] = ws() + key + ws() + ":" + ws() + rpcText(t, depth+1) + ws()
	}
	return "{" + strings.Join(parts, ",") + "}"
}

var _ = Describe("reading messages without decoding them", func() {
	mutate := func(t *rapid.T, text []byte) []byte {
		switch rapid.IntRange(0, 5).Draw(t, "mutation") {
		case 1:
			if len(text) > 0 {
				text[rapid.IntRange(0, len(text)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
			}
		case 2:
			text = text[:rapid.IntRange(0, len(text)).Draw(t, "cut")]
		case 3:
			text = append(text, rapid.SampledFrom([]string{" ", "\n", " 1", "x", "{}", ","}).Draw(t, "after")...)
		case 4:
			text = append([]byte(rapid.SampledFrom([]string{" ", "\ufeff", "x", "\n\t"}).Draw(t, "before")), text...)
		}
		return text
	}

	It("reads what decoding the message read, on any text", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			text := mutate(t, []byte(rpcText(t, 0)))
			g := NewWithT(t)
			_, err := schema.Decode(text)
			g.Expect(httpmcp.WellFormed(text)).To(Equal(err == nil), "input %q", text)
			g.Expect(httpmcp.ParseMessages(text)).To(Equal(refParse(text)), "input %q", text)
			g.Expect(httpmcp.Classify(text)).To(Equal(refClassify(text)), "input %q", text)
			g.Expect(httpmcp.SplitShape(text)).To(Equal(refShape(text)), "input %q", text)
		})
	})

	DescribeTable("agrees on nesting at and past encoding/json's limit", func(depth int) {
		text := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		_, err := schema.Decode(text)
		Expect(httpmcp.WellFormed(text)).To(Equal(err == nil))
	},
		Entry("at the fast decoder's limit", 1001),
		Entry("at encoding/json's", 10000),
		Entry("past it", 10001),
	)
})
