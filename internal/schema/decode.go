package schema

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Decode parses one frame the way the validator wants it (numbers as
// json.Number, so large integers keep their precision), and rejects
// anything after the first value.
//
// Every frame sent and received is decoded, so this is a hot path: a
// single-pass parser builds the value, where encoding/json scans the bytes
// twice and decodes through reflection (three to four times slower, see
// BenchmarkDecode). It takes only what it is sure of: any input it does not
// accept as exactly one RFC 8259 value goes to jsonschema.UnmarshalJSON,
// so an error reads exactly as encoding/json words it, and a value it
// returns is the one encoding/json returns (TestDecodeAgrees checks both
// on generated and mutated input): invalid UTF-8 and lone surrogates
// become U+FFFD, the last of duplicate keys wins, empty containers are
// non-nil.
func Decode(raw []byte) (any, error) {
	d := decoder{b: raw}
	d.space()
	if v, ok := d.value(0); ok {
		if d.space(); d.i == len(d.b) {
			return v, nil
		}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// maxDepth is far below encoding/json's limit (10,000), so a document
// nested this deep is always left to it, and so is its error.
const maxDepth = 1000

type decoder struct {
	b []byte
	i int
	// scratch is where slowStr rebuilds a string, kept for the next one:
	// a string is allocated once, as the string it is.
	scratch []byte
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > maxDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *decoder) literal(word string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return false
	}
	d.i += len(word)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.name()
		if !ok {
			return nil, false
		}
		if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		if more, ok := d.more('}'); !ok || !more {
			return m, ok
		}
	}
}

func (d *decoder) array(depth int) (any, bool) {
	d.i++ // [
	a := make([]any, 0)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.more(']'); !ok || !more {
			return a, ok
		}
	}
}

// more reads what follows a member or an element: a comma (more follows)
// or the container's closing byte.
func (d *decoder) more(end byte) (more, ok bool) {
	if d.space(); d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.space()
		return true, true
	case end:
		d.i++
		return false, true
	}
	return false, false
}

// number takes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and keeps its
// text, as json.Number does.
func (d *decoder) number() (any, bool) {
	from := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.b[from:d.i]), true
}

func (d *decoder) digits() int {
	from := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - from
}

// str reads a string at d.i (its opening quote). Plain ASCII, the usual
// case, is copied once; the rest is rebuilt byte by byte.
func (d *decoder) str() (string, bool) {
	d.i++ // "
	from := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(d.b[from : d.i-1]), true
		case c == '\\' || c >= utf8.RuneSelf:
			return d.slowStr(from)
		case c < ' ':
			return "", false
		}
		d.i++
	}
	return "", false
}

// name reads a member name at d.i (its opening quote). The names of
// JSON Schema's keywords and of JSON-RPC's and MCP's members recur in
// every schema and frame: one of those, plain ASCII, is the interned
// string, not a new one (the lookup of string(b) allocates nothing).
func (d *decoder) name() (string, bool) {
	from := d.i + 1
	if end := bytes.IndexByte(d.b[from:], '"'); end >= 0 && end <= maxKnownKey {
		if k, ok := knownKeys[string(d.b[from:from+end])]; ok {
			d.i = from + end + 1
			return k, true
		}
	}
	return d.str()
}

// maxKnownKey is the length of the longest of knownKeys.
const maxKnownKey = 20

// knownKeys are member names common enough to intern; none needs an
// escape, so the bytes up to the first quote are the whole name.
var knownKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		// JSON Schema
		"$schema", "$ref", "$defs", "definitions", "type", "description", "title", "properties",
		"required", "items", "additionalProperties", "enum", "const", "anyOf", "oneOf", "allOf",
		"format", "default", "minimum", "maximum", "pattern", "examples", "not", "$comment",
		// JSON-RPC and MCP
		"jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "_meta",
		"name", "text", "content", "tools", "inputSchema", "outputSchema", "annotations", "mimeType",
		"uri", "arguments", "progressToken", "capabilities", "serverInfo", "protocolVersion",
		"version", "isError", "structuredContent", "nextCursor", "cursor", "resources", "prompts",
		"level", "logger", "progress", "total", "listChanged", "subscribe", "instructions",
		"blob", "resource", "messages", "role", "taskId", "status",
	} {
		if len(k) > maxKnownKey {
			panic("schema: knownKeys: " + k + " is longer than maxKnownKey")
		}
		m[k] = k
	}
	return m
}()

func (d *decoder) slowStr(from int) (string, bool) {
	out := append(d.scratch[:0], d.b[from:d.i]...)
	defer func() { d.scratch = out[:0] }()
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			// Each byte of a malformed sequence is one U+FFFD, as
			// encoding/json has it.
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, unicode.ReplacementChar)
			} else {
				out = append(out, d.b[d.i:d.i+n]...)
			}
			d.i += n
		case c != '\\':
			out = append(out, c)
			d.i++
		default:
			if d.i+1 >= len(d.b) {
				return "", false
			}
			switch e := d.b[d.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.b[d.i+2:])
				if !ok {
					return "", false
				}
				d.i += 6
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; anything else makes this
					// half U+FFFD and leaves what follows to be read
					// on its own.
					if len(d.b) >= d.i+6 && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
						if r2, ok := hex4(d.b[d.i+2:]); ok {
							if p := utf16.DecodeRune(r, r2); p != unicode.ReplacementChar {
								out = utf8.AppendRune(out, p)
								d.i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			d.i += 2
		}
	}
	return "", false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
