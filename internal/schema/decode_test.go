package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/schema"
)

// reference is what Decode replaced: encoding/json through the validator's
// own loader. Decode must agree with it on every input.
func reference(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

func expectAgrees(g Gomega, raw []byte) {
	want, wantErr := reference(raw)
	got, err := schema.Decode(raw)
	if wantErr != nil {
		g.Expect(err).To(MatchError(wantErr.Error()), "input %q", raw)
		return
	}
	g.Expect(err).NotTo(HaveOccurred(), "input %q", raw)
	if want == nil {
		g.Expect(got).To(BeNil(), "input %q", raw)
		return
	}
	g.Expect(got).To(Equal(want), "input %q", raw)
}

// jsonText draws a JSON text the way a hostile peer might write one:
// every whitespace byte, escapes of every kind (surrogate pairs, lone
// halves, a half before an ordinary escape), raw multi-byte and invalid
// UTF-8, duplicate keys, numbers in every form and some that are not,
// and deep nesting.
func jsonText(t *rapid.T, depth int) string {
	ws := func() string {
		return rapid.SampledFrom([]string{"", "", " ", "\t", "\n", "\r\n", "  \t"}).Draw(t, "ws")
	}
	kind := rapid.IntRange(0, 7).Draw(t, "kind")
	if depth > 4 && kind >= 6 {
		kind = 2
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal")
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "1", "-12", "123456789012345678901234567890", "1.5", "-0.25e+10",
			"2E-3", "1e5", "0.0", "9007199254740993", "01", "1.", "-", ".5", "1e", "+1", "0x10", "1.5e+", "-a"}).Draw(t, "number")
	case 2, 3:
		return jsonString(t)
	case 4, 5:
		return fmt.Sprint(rapid.IntRange(-1000, 1000).Draw(t, "int"))
	case 6:
		n := rapid.IntRange(0, 4).Draw(t, "elems")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + jsonText(t, depth+1) + ws()
		}
		return "[" + ws() + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 4).Draw(t, "members")
		parts := make([]string, n)
		for i := range parts {
			key := jsonString(t)
			if rapid.IntRange(0, 2).Draw(t, "duplicate") == 0 {
				key = rapid.SampledFrom([]string{`"k"`, `"type"`, `"id"`}).Draw(t, "key")
			}
			parts[i] = ws() + key + ws() + ":" + ws() + jsonText(t, depth+1) + ws()
		}
		return "{" + ws() + strings.Join(parts, ",") + "}"
	}
}

func jsonString(t *rapid.T) string {
	pieces := rapid.SliceOfN(rapid.SampledFrom([]string{
		"a", "k", "hello", "type", "id", "jsonrpc", " ", "é", "日本", "😀", "\x7f",
		`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\uFFFF`, `\u0000`,
		`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\ud800\ud800`, `\ud800\udc00x`,
		"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		`\'`, `\x`, `\u12`, "\x01", "\t",
	}), 0, 6).Draw(t, "pieces")
	return `"` + strings.Join(pieces, "") + `"`
}

var _ = Describe("Decode", func() {
	It("agrees with encoding/json, value and error, on any text", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			g := NewWithT(t)
			text := []byte(jsonText(t, 0))
			switch rapid.IntRange(0, 5).Draw(t, "mutation") {
			case 1: // a byte replaced
				if len(text) > 0 {
					i := rapid.IntRange(0, len(text)-1).Draw(t, "at")
					text[i] = rapid.Byte().Draw(t, "byte")
				}
			case 2: // cut short
				text = text[:rapid.IntRange(0, len(text)).Draw(t, "cut")]
			case 3: // something after the value
				text = append(text, rapid.SampledFrom([]string{" ", "\n", " 1", "x", "{}", ",", "\x00"}).Draw(t, "after")...)
			case 4: // before it
				text = append([]byte(rapid.SampledFrom([]string{" ", "\ufeff", "x", "\n\t"}).Draw(t, "before")), text...)
			}
			expectAgrees(g, text)
		})
	})

	DescribeTable("the cases encoding/json words its own way", func(text string) {
		expectAgrees(Default, []byte(text))
	},
		Entry("the last duplicate key wins", `{"a":1,"a":2}`),
		Entry("empty containers are not nil", `{"a":[],"b":{}}`),
		Entry("numbers keep their text", `[1.50, -0, 1E+2, 123456789012345678901234567890]`),
		Entry("a lone high surrogate", `"\ud800"`),
		Entry("a high surrogate before an ordinary escape", `"\ud800\u0041"`),
		Entry("a pair", `"\ud83d\ude00"`),
		Entry("invalid UTF-8", "\"a\xffb\xc3\""),
		Entry("an escaped apostrophe (not JSON)", `"\'"`),
		Entry("a control character", "\"a\x01\""),
		Entry("two values", `1 2`),
		Entry("garbage after an object", `{"a":1} x`),
		Entry("whitespace all round", " \t\r\n{\"a\" : [ 1 , 2 ] }\n"),
		Entry("nothing", ``),
		Entry("a leading zero", `012`),
		Entry("nesting near the fast path's limit", strings.Repeat("[", 1001)+strings.Repeat("]", 1001)),
		Entry("nesting past encoding/json's limit", strings.Repeat("[", 10001)+strings.Repeat("]", 10001)),
	)

	It("does not allocate the common member names", func() {
		// The same frame, its names each one letter off the interned
		// ones: without the interning both allocate alike.
		known := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
		other := []byte(`{"jsonrpX":"2.0","iX":1,"methoX":"tools/call","paramX":{"namX":"echo","argumentX":{"texX":"hi"}}}`)
		k := testing.AllocsPerRun(50, func() { _, _ = schema.Decode(known) })
		o := testing.AllocsPerRun(50, func() { _, _ = schema.Decode(other) })
		Expect(k).To(BeNumerically("<=", o-7), "allocations: %v with the common names, %v without", k, o)
		v, err := schema.Decode(known)
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(map[string]any{"jsonrpc": "2.0", "id": json.Number("1"), "method": "tools/call",
			"params": map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}}))
	})

	It("skips a value to its last byte, as Decode reads it", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			text := jsonText(t, 0)
			if _, err := schema.Decode([]byte(text)); err != nil || strings.TrimSpace(text) != text {
				t.Skip("not one value without whitespace round it")
			}
			after := rapid.SampledFrom([]string{"", ",", "}", "]", " "}).Draw(t, "after")
			n, ok := schema.SkipValue([]byte(text + after))
			if !ok || n != len(text) {
				t.Fatalf("skip of %q: %d, %v; want %d", text+after, n, ok, len(text))
			}
		})
	})

	It("keeps the precision of large integers", func() {
		v, err := schema.Decode([]byte(`{"id":9007199254740993}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(map[string]any{"id": json.Number("9007199254740993")}))
	})
})
