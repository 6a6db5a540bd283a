package fuzz

import (
	"bytes"
	"strings"

	"pgregory.net/rapid"
)

// malformation is one way of breaking a line at the byte level. make gets a
// valid encoded request to damage (without its newline) and returns the
// bytes to write, newline included.
type malformation struct {
	name  string
	label string // what a failure after it is grouped under
	make  func(t *rapid.T, valid []byte) []byte
}

// longLine is past the 64 KiB that many line readers default to.
const longLine = 80 << 10

var malformations = []malformation{
	{"truncated", "truncated JSON", func(t *rapid.T, v []byte) []byte {
		cut := rapid.IntRange(1, max(1, len(v)-1)).Draw(t, "cut")
		return line(v[:cut])
	}},
	{"invalid-utf8", "invalid UTF-8 in a string", func(t *rapid.T, v []byte) []byte {
		at := insideString(v)
		bad := rapid.SampledFrom([]string{"\xff", "\xc3\x28", "\xed\xa0\x80", "\xf0\x28\x8c\xbc"}).Draw(t, "bytes")
		return line(splice(v, at, bad))
	}},
	{"non-object", "a JSON value that is not an object", func(t *rapid.T, _ []byte) []byte {
		return line([]byte(rapid.SampledFrom([]string{"null", "[]", "42", `"tools/list"`, "true", "[{}]", "-0.5e3"}).Draw(t, "value")))
	}},
	{"deep-nesting", "deeply nested JSON", func(t *rapid.T, _ []byte) []byte {
		depth := rapid.SampledFrom([]int{64, 1000, 100000}).Draw(t, "depth")
		open, close := "[", "]"
		if rapid.Bool().Draw(t, "objects") {
			open, close = `{"a":`, "}"
		}
		return line([]byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)))
	}},
	{"huge-string", "a string of 70 KiB or more", func(t *rapid.T, v []byte) []byte {
		n := rapid.SampledFrom([]int{70 << 10, 1 << 20}).Draw(t, "size")
		return line(splice(v, insideString(v), strings.Repeat("x", n)))
	}},
	{"huge-number", "a number out of any range", func(t *rapid.T, v []byte) []byte {
		num := rapid.SampledFrom([]string{"1e999999", "123456789012345678901234567890123456789", "-0.0000000000000000000000000000001", "1" + strings.Repeat("0", 5000)}).Draw(t, "number")
		return line([]byte(`{"id":` + num + `,"method":"x"}`))
	}},
	{"bom", "a byte-order mark before the JSON", func(_ *rapid.T, v []byte) []byte { return line(append([]byte("\xef\xbb\xbf"), v...)) }},
	{"nul", "a NUL byte", func(t *rapid.T, v []byte) []byte {
		at := rapid.IntRange(0, len(v)).Draw(t, "at")
		return line(splice(v, at, "\x00"))
	}},
	{"cr", "a CR before the newline", func(_ *rapid.T, v []byte) []byte { return append(append([]byte{}, v...), '\r', '\n') }},
	{"long-garbage", "an 80 KiB line of garbage", func(t *rapid.T, _ []byte) []byte {
		return line(bytes.Repeat([]byte(rapid.SampledFrom([]string{"a", "{", "\"", " "}).Draw(t, "fill")), longLine))
	}},
	{"two-on-a-line", "two requests on one line", func(_ *rapid.T, v []byte) []byte { return line(append(append(append([]byte{}, v...), ' '), v...)) }},
	{"whitespace", "a line of only whitespace", func(t *rapid.T, _ []byte) []byte {
		return []byte(rapid.SampledFrom([]string{" \n", "\t\n", "\r\n", " \t \n"}).Draw(t, "ws"))
	}},
}

func line(b []byte) []byte { return append(append([]byte{}, b...), '\n') }

func splice(b []byte, at int, s string) []byte {
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:at]...)
	out = append(out, s...)
	return append(out, b[at:]...)
}

// insideString finds a position inside the first string value, so the
// damage lands where a parser reads text (or the end when there is none).
func insideString(v []byte) int {
	i := bytes.Index(v, []byte(`":"`))
	if i < 0 {
		return len(v)
	}
	return i + 3
}
