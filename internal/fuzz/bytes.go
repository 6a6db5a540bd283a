package fuzz

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"pgregory.net/rapid"
)

// malformation is one way of breaking a line at the byte level. make gets a
// valid encoded request to damage (without its newline) and returns the
// line to write, newline included.
//
// Lines are built as strings, each in one allocation of its final size:
// a step carries its bytes as a string (the reproducer is text), and the
// large ones (a 1 MiB string, 100,000 brackets) were otherwise copied
// five times on their way to the pipe — filled, spliced, given their
// newline, turned into the step's string, then into bytes again
// (BenchmarkMalformations).
type malformation struct {
	name  string
	label string // what a failure after it is grouped under
	make  func(t *rapid.T, valid []byte) string
}

// longLine is past the 64 KiB that many line readers default to.
const longLine = 80 << 10

var malformations = []malformation{
	{"truncated", "truncated JSON", func(t *rapid.T, v []byte) string {
		cut := rapid.IntRange(1, max(1, len(v)-1)).Draw(t, "cut")
		return line(string(v[:cut]))
	}},
	{"invalid-utf8", "invalid UTF-8 in a string", func(t *rapid.T, v []byte) string {
		at := insideString(v)
		bad := rapid.SampledFrom([]string{"\xff", "\xc3\x28", "\xed\xa0\x80", "\xf0\x28\x8c\xbc"}).Draw(t, "bytes")
		return line(string(v[:at]), bad, string(v[at:]))
	}},
	{"non-object", "a JSON value that is not an object", func(t *rapid.T, _ []byte) string {
		return line(rapid.SampledFrom([]string{"null", "[]", "42", `"tools/list"`, "true", "[{}]", "-0.5e3"}).Draw(t, "value"))
	}},
	{"deep-nesting", "deeply nested JSON", func(t *rapid.T, _ []byte) string {
		depth := rapid.SampledFrom([]int{64, 1000, 100000}).Draw(t, "depth")
		open, close := "[", "]"
		if rapid.Bool().Draw(t, "objects") {
			open, close = `{"a":`, "}"
		}
		return shared(fmt.Sprint("nesting ", open, depth), func() string {
			var b strings.Builder
			b.Grow(depth*(len(open)+len(close)) + 2)
			repeat(&b, open, depth)
			b.WriteByte('1')
			repeat(&b, close, depth)
			b.WriteByte('\n')
			return b.String()
		})
	}},
	{"huge-string", "a string of 70 KiB or more", func(t *rapid.T, v []byte) string {
		n := rapid.SampledFrom([]int{70 << 10, 1 << 20}).Draw(t, "size")
		at := insideString(v)
		var b strings.Builder
		b.Grow(len(v) + n + 1)
		b.Write(v[:at])
		repeat(&b, "x", n)
		b.Write(v[at:])
		b.WriteByte('\n')
		return b.String()
	}},
	{"huge-number", "a number out of any range", func(t *rapid.T, v []byte) string {
		num := rapid.SampledFrom([]string{"1e999999", "123456789012345678901234567890123456789", "-0.0000000000000000000000000000001", "1" + strings.Repeat("0", 5000)}).Draw(t, "number")
		return line(`{"id":`, num, `,"method":"x"}`)
	}},
	{"bom", "a byte-order mark before the JSON", func(_ *rapid.T, v []byte) string { return line("\xef\xbb\xbf", string(v)) }},
	{"nul", "a NUL byte", func(t *rapid.T, v []byte) string {
		at := rapid.IntRange(0, len(v)).Draw(t, "at")
		return line(string(v[:at]), "\x00", string(v[at:]))
	}},
	{"cr", "a CR before the newline", func(_ *rapid.T, v []byte) string { return line(string(v), "\r") }},
	{"long-garbage", "an 80 KiB line of garbage", func(t *rapid.T, _ []byte) string {
		fill := rapid.SampledFrom([]string{"a", "{", "\"", " "}).Draw(t, "fill")
		return shared("garbage "+fill, func() string {
			var b strings.Builder
			b.Grow(longLine + 1)
			repeat(&b, fill, longLine)
			b.WriteByte('\n')
			return b.String()
		})
	}},
	{"two-on-a-line", "two requests on one line", func(_ *rapid.T, v []byte) string { return line(string(v), " ", string(v)) }},
	{"whitespace", "a line of only whitespace", func(t *rapid.T, _ []byte) string {
		return rapid.SampledFrom([]string{" \n", "\t\n", "\r\n", " \t \n"}).Draw(t, "ws")
	}},
}

// lines are the malformed lines that depend on nothing but their drawn
// parameters (a few of each), built once and shared: a kept process holds
// every line it was sent in its history, and eight lanes held some 11 MB
// of the same deeply nested lines, each built anew (half a megabyte for
// 100,000 levels of objects).
var lines sync.Map

// shared returns the line key names, built by build the first time.
func shared(key string, build func() string) string {
	if l, ok := lines.Load(key); ok {
		return l.(string)
	}
	l, _ := lines.LoadOrStore(key, build())
	return l.(string)
}

// line joins parts and a newline.
func line(parts ...string) string {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p)
	}
	b.WriteByte('\n')
	return b.String()
}

// repeat writes s n times, a block of copies at a time: strings.Repeat
// would allocate the whole run once more.
func repeat(b *strings.Builder, s string, n int) {
	const block = 4 << 10
	chunk := strings.Repeat(s, min(n, block))
	for ; n > 0; n -= block {
		b.WriteString(chunk[:min(n, block)*len(s)])
	}
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
