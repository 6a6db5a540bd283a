package report

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The findings and rules of a report are written by hand, byte for byte
// as encoding/json indents them (MarshalIndent, two spaces): they are
// most of a report, and reflection followed by a second pass to indent
// was most of the time `run` spent writing it (10 ms of a run of every
// revision, its 1.4 MB report). The property test holds the two equal
// for any text a server can send.

// indentation is enough of the report's indentation for any depth the
// writer reaches (a transcript entry's fields: 5).
const indentation = "\n                    "

// newline starts a line at depth (two spaces each).
func newline(dst []byte, depth int) []byte {
	return append(dst, indentation[:1+2*depth]...)
}

// appendFinding appends f as MarshalIndent writes it at depth (its
// fields at depth+1), with a nil transcript as []. ok is false when an
// entry's time is not a JSON number (NaN, ±Inf): encoding/json then says
// why.
func appendFinding(dst []byte, f *Finding, depth int) ([]byte, bool) {
	in := depth + 1
	dst = append(dst, '{')
	dst = appendField(dst, in, "rule", string(f.Rule), true)
	dst = appendField(dst, in, "level", string(f.Level), false)
	dst = appendField(dst, in, "verdict", string(f.Verdict), false)
	dst = appendField(dst, in, "scenario", f.Scenario, false)
	dst = appendField(dst, in, "message", f.Message, false)
	dst = appendField(dst, in, "expected", f.Expected, false)
	dst = appendField(dst, in, "actual", f.Actual, false)
	dst = appendKey(dst, in, "transcript", false)
	if len(f.Transcript) == 0 {
		dst = append(dst, "[]"...)
	} else {
		dst = append(dst, '[')
		for i := range f.Transcript {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = newline(dst, in+1)
			var ok bool
			if dst, ok = appendEntry(dst, &f.Transcript[i], in+1); !ok {
				return dst, false
			}
		}
		dst = newline(dst, in)
		dst = append(dst, ']')
	}
	if f.Count != 0 {
		dst = appendKey(dst, in, "count", false)
		dst = strconv.AppendInt(dst, int64(f.Count), 10)
	}
	dst = appendOmitEmpty(dst, in, "reproduce", f.Reproduce)
	if f.Known {
		dst = appendKey(dst, in, "known", false)
		dst = append(dst, "true"...)
	}
	dst = appendOmitEmpty(dst, in, "revision", f.Revision)
	dst = appendOmitEmpty(dst, in, "cause", f.Cause)
	if len(f.Frames) > 0 {
		dst = appendKey(dst, in, "frames", false)
		dst = append(dst, '[')
		for i, n := range f.Frames {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = newline(dst, in+1)
			dst = strconv.AppendInt(dst, int64(n), 10)
		}
		dst = newline(dst, in)
		dst = append(dst, ']')
	}
	dst = appendOmitEmpty(dst, in, "unanswered", f.Unanswered)
	dst = newline(dst, depth)
	return append(dst, '}'), true
}

func appendEntry(dst []byte, e *transcript.Entry, depth int) ([]byte, bool) {
	in := depth + 1
	dst = append(dst, '{')
	dst = appendKey(dst, in, "seq", true)
	dst = strconv.AppendInt(dst, int64(e.Seq), 10)
	dst = appendKey(dst, in, "t_ms", false)
	var ok bool
	if dst, ok = appendFloat(dst, e.OffsetMS); !ok {
		return dst, false
	}
	dst = appendField(dst, in, "dir", string(e.Dir), false)
	dst = appendField(dst, in, "text", e.Text, false)
	dst = appendOmitEmpty(dst, in, "scenario", e.Scenario)
	if e.Truncated != 0 {
		dst = appendKey(dst, in, "truncated", false)
		dst = strconv.AppendInt(dst, int64(e.Truncated), 10)
	}
	dst = newline(dst, depth)
	return append(dst, '}'), true
}

// appendRule appends a catalogue entry as MarshalIndent writes it at
// depth.
func appendRule(dst []byte, r *verdict.Rule, depth int) []byte {
	in := depth + 1
	dst = append(dst, '{')
	dst = appendField(dst, in, "id", r.ID, true)
	dst = appendField(dst, in, "level", string(r.Level), false)
	dst = appendField(dst, in, "title", r.Title, false)
	dst = appendField(dst, in, "source", r.Source, false)
	dst = appendOmitEmpty(dst, in, "quote", r.Quote)
	dst = appendOmitEmpty(dst, in, "document", r.Document)
	dst = newline(dst, depth)
	return append(dst, '}')
}

// appendKey starts a member: the comma after the one before (none for
// the first), its line, its name (plain ASCII: no escaping).
func appendKey(dst []byte, depth int, name string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = newline(dst, depth)
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':', ' ')
}

func appendField(dst []byte, depth int, name, value string, first bool) []byte {
	return appendString(appendKey(dst, depth, name, first), value)
}

func appendOmitEmpty(dst []byte, depth int, name, value string) []byte {
	if value == "" {
		return dst
	}
	return appendField(dst, depth, name, value, false)
}

// appendFloat writes f as encoding/json does (ES6 number formatting);
// false for NaN and ±Inf, which JSON cannot hold.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 as e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// plain marks the ASCII bytes a JSON string holds as they are: not a
// control character, quote or backslash, nor '<', '>' and '&', which
// encoding/json escapes so that a report served as HTML runs nothing.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does: the escapes above, each
// invalid UTF-8 byte as \ufffd, U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
