package httpmcp

import (
	"bytes"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The transport reads a few members of every message it sends and
// receives (method, id, result, error, ...), while the peer decodes and
// judges the whole frame. Decoding every body and event here as well
// (schema.Decode) built each frame a second time, and twice for a JSON
// body: a tenth of what a run allocated. A skim checks the syntax and
// builds nothing but the members asked for.

// maxNesting is encoding/json's limit (and so schema.Decode's, which
// leaves deep documents to it): a document nested deeper is no JSON to
// it, and must be none here.
const maxNesting = 10000

// skim walks JSON text without building it.
type skim struct {
	b []byte
	i int
}

// wellFormed reports whether b is exactly one JSON value, surrounded by
// whitespace at most: whether schema.Decode(b) succeeds.
func wellFormed(b []byte) bool {
	s := skim{b: b}
	s.space()
	if !s.value(0) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

func (s *skim) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips the value at s.i, within depth enclosing containers.
func (s *skim) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return depth < maxNesting && s.object(depth+1)
	case c == '[':
		return depth < maxNesting && s.array(depth+1)
	case c == '"':
		return s.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *skim) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

func (s *skim) object(depth int) bool {
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		if s.space(); s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !s.value(depth) {
			return false
		}
		if more, ok := s.more('}'); !ok || !more {
			return ok
		}
	}
}

func (s *skim) array(depth int) bool {
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		if more, ok := s.more(']'); !ok || !more {
			return ok
		}
	}
}

func (s *skim) more(end byte) (more, ok bool) {
	if s.space(); s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		s.space()
		return true, true
	case end:
		s.i++
		return false, true
	}
	return false, false
}

// str skips a string: any byte from 0x20 up (bytes that are no UTF-8
// included: a decoder reads them as U+FFFD), and the escapes JSON has.
func (s *skim) str() bool {
	s.i++ // "
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < ' ':
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex(s.b[s.i+2]) || !isHex(s.b[s.i+3]) || !isHex(s.b[s.i+4]) || !isHex(s.b[s.i+5]) {
					return false
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *skim) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *skim) digits() int {
	from := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - from
}

// The walks below take text wellFormed accepted (or a value within it).

// elementsOf is the values of a well-formed array, or the value itself.
func elementsOf(b []byte) [][]byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return [][]byte{b}
	}
	var out [][]byte
	s := skim{b: b, i: 1}
	s.space()
	for s.i < len(s.b) && s.b[s.i] != ']' {
		from := s.i
		s.value(0)
		out = append(out, s.b[from:s.i])
		s.more(']')
	}
	return out
}

// members are the members a message's transport reads, each the raw
// value of the last member of that name (the last of duplicate keys wins,
// as a decoder has it), nil when there is none.
type members struct {
	method, id, result, error, jsonrpc, params []byte
}

// membersOf reads the members of a well-formed object; ok is false when
// b is no object.
func membersOf(b []byte) (m members, ok bool) {
	ok = eachMember(b, func(key, val []byte) {
		switch {
		case keyIs(key, "method"):
			m.method = val
		case keyIs(key, "id"):
			m.id = val
		case keyIs(key, "result"):
			m.result = val
		case keyIs(key, "error"):
			m.error = val
		case keyIs(key, "jsonrpc"):
			m.jsonrpc = val
		case keyIs(key, "params"):
			m.params = val
		}
	})
	return m, ok
}

// member is the raw value of the last member named name of b, nil when b
// is no object or has none.
func member(b []byte, name string) []byte {
	var got []byte
	eachMember(b, func(key, val []byte) {
		if keyIs(key, name) {
			got = val
		}
	})
	return got
}

// eachMember calls f with each member's key (quoted, as it came) and
// value of a well-formed object; false when b is no object.
func eachMember(b []byte, f func(key, val []byte)) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	s := skim{b: b, i: 1}
	s.space()
	for s.i < len(s.b) && s.b[s.i] == '"' {
		from := s.i
		s.str()
		key := s.b[from:s.i]
		s.space()
		s.i++ // :
		s.space()
		from = s.i
		s.value(0)
		f(key, s.b[from:s.i])
		s.more('}')
	}
	return true
}

// keyIs reports whether a quoted key decodes to name (an ASCII name).
func keyIs(key []byte, name string) bool {
	in := key[1 : len(key)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		// Unescaped, its bytes are its text: a byte that is no UTF-8
		// reads as U+FFFD, which no ASCII name holds.
		return string(in) == name
	}
	s, _ := decodeString(key)
	return s == name
}

// decodeString is a raw value's string, ok false when it is no string.
func decodeString(val []byte) (string, bool) {
	if len(val) == 0 || val[0] != '"' {
		return "", false
	}
	v, _ := schema.Decode(val)
	s, ok := v.(string)
	return s, ok
}

// isNull: absent or null, what a decoded map's lookup gives nil for.
func isNull(val []byte) bool { return val == nil || string(val) == "null" }

// idKey is transport.IDKey of a raw id's value.
func idKey(val []byte) string {
	if plainID(val) {
		// What encoding/json writes back for a number (json.Number keeps
		// its text) or a string with nothing to escape: the bytes as
		// they came.
		return string(val)
	}
	v, _ := schema.Decode(val)
	return transport.IDKey(v)
}

// plainID reports whether val is a number, or a string of printable ASCII
// that encoding/json writes unescaped (it escapes <, > and &).
func plainID(val []byte) bool {
	if len(val) == 0 {
		return false
	}
	if c := val[0]; c == '-' || '0' <= c && c <= '9' {
		return true
	}
	if val[0] != '"' || len(val) < 2 {
		return false
	}
	for _, c := range val[1 : len(val)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
