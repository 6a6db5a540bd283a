package gen

import (
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

var (
	alnum = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	// textRune leans on readable characters but keeps arbitrary Unicode
	// (controls, BOM, RTL override, astral planes) in the mix: this is a
	// fuzzer, and peers mishandling such text is worth finding.
	textRune = rapid.OneOf(
		rapid.RuneFrom(alnum),
		rapid.RuneFrom(alnum),
		rapid.RuneFrom([]rune(" -_.,:/@#'\"\\")),
		rapid.Rune(),
	)
	keyRune = rapid.OneOf(
		rapid.RuneFrom(alnum),
		rapid.RuneFrom(alnum),
		rapid.RuneFrom(alnum),
		rapid.RuneFrom([]rune("_-.$/~")),
		rapid.Rune(),
	)
)

// stringRules is the merged string keywords of a conjunction.
type stringRules struct {
	minLen, maxLen int // maxLen < 0: unbounded
	formats        []*jsonschema.Format
	patterns       []jsonschema.Regexp
}

func mergeStrings(f *flat) stringRules {
	sr := stringRules{maxLen: -1}
	for _, n := range f.nodes {
		s := n.s
		if s.MinLength != nil {
			sr.minLen = max(sr.minLen, *s.MinLength)
		}
		if s.MaxLength != nil && (sr.maxLen < 0 || *s.MaxLength < sr.maxLen) {
			sr.maxLen = *s.MaxLength
		}
		if s.Format != nil {
			sr.formats = append(sr.formats, s.Format)
		}
		if s.Pattern != nil {
			sr.patterns = append(sr.patterns, s.Pattern)
		}
	}
	return sr
}

func (sr *stringRules) accepts(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < sr.minLen || (sr.maxLen >= 0 && n > sr.maxLen) {
		return false
	}
	for _, p := range sr.patterns {
		if !p.MatchString(s) {
			return false
		}
	}
	for _, fm := range sr.formats {
		if fm.Validate(s) != nil {
			return false
		}
	}
	return true
}

func (r *run) str(t *rapid.T, f *flat) string {
	sr := mergeStrings(f)
	hi := max(sr.minLen, r.o.MaxStringLen)
	if sr.maxLen >= 0 && sr.maxLen < hi {
		hi = sr.maxLen
	}
	if sr.minLen > hi {
		skipf(t, "minLength %d exceeds maxLength %d", sr.minLen, sr.maxLen)
	}
	if len(sr.formats) > 0 {
		if fg, ok := formatGens[sr.formats[0].Name]; ok {
			s := fg(t)
			if !sr.accepts(s) {
				skipf(t, "%s string does not meet the other string keywords", sr.formats[0].Name)
			}
			return s
		}
	}
	if len(sr.patterns) > 0 {
		return r.patterned(t, &sr, hi)
	}
	s := rapid.StringOfN(textRune, sr.minLen, hi, -1).Draw(t, "string")
	if len(sr.formats) > 0 && !sr.accepts(s) {
		skipf(t, "no generator for format %q", sr.formats[0].Name)
	}
	return s
}

// patterned walks the first pattern's syntax tree to produce a match, then
// pads it to minLength. JSON Schema patterns are unanchored searches, so a
// match stays a match when text is appended (unless the pattern ends in $)
// or prepended (unless it starts with ^); both are tried.
func (r *run) patterned(t *rapid.T, sr *stringRules, hi int) string {
	syn, err := parsePattern(sr.patterns[0].String())
	for range 8 {
		var s string
		if err == nil {
			var b strings.Builder
			walkRegexp(t, &b, syn, sr.minLen)
			s = b.String()
		} else {
			s = rapid.StringOfN(textRune, sr.minLen, hi, -1).Draw(t, "string")
		}
		if sr.accepts(s) {
			return s
		}
		if n := utf8.RuneCountInString(s); n < sr.minLen {
			pad := rapid.StringOfN(rapid.RuneFrom(alnum), sr.minLen-n, sr.minLen-n, -1).Draw(t, "pad")
			for _, c := range []string{s + pad, pad + s} {
				if sr.accepts(c) {
					return c
				}
			}
		}
	}
	skipf(t, "no string found for pattern %q", sr.patterns[0])
	return ""
}
