package gen

import (
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

var (
	alnum = []rune("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	// textRunes is ordered from plain to awkward because rapid's draws,
	// and its shrinking, favour small indexes.
	textRunes = []rune("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -_.,:/@#'\"\\")
	keyRunes  = []rune("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-.$/~")
	runeGen   = rapid.Rune()
)

// exoticSlots is how many extra index values stand for "any Unicode rune"
// when a table allows it: controls, BOM, RTL override, astral planes. This
// is a fuzzer, and peers mishandling such text are worth finding.
const exoticSlots = 8

// text draws a string of lo..hi runes from table, plus arbitrary Unicode
// when exotic is set. It replaces rapid.StringOfN, whose per-rune
// generator composition was the single largest cost of generation.
func text(t *rapid.T, lo, hi int, table []rune, exotic bool) string {
	n := lo
	if hi > lo {
		n += index(t, hi-lo+1, "length")
	}
	slots := len(table)
	if exotic {
		slots += exoticSlots
	}
	var b strings.Builder
	for range n {
		if i := index(t, slots, "rune"); i < len(table) {
			b.WriteRune(table[i])
		} else {
			b.WriteRune(runeGen.Draw(t, "rune"))
		}
	}
	return b.String()
}

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
		reject("minLength %d exceeds maxLength %d", sr.minLen, sr.maxLen)
	}
	if len(sr.formats) > 0 {
		if fg, ok := formatGens[sr.formats[0].Name]; ok {
			s := fg(t)
			if !sr.accepts(s) {
				reject("%s string does not meet the other string keywords", sr.formats[0].Name)
			}
			return s
		}
	}
	if len(sr.patterns) > 0 {
		return r.patterned(t, &sr, hi)
	}
	s := text(t, sr.minLen, hi, textRunes, true)
	if len(sr.formats) > 0 && !sr.accepts(s) {
		reject("no generator for format %q", sr.formats[0].Name)
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
			s = text(t, sr.minLen, hi, textRunes, true)
		}
		if sr.accepts(s) {
			return s
		}
		if n := utf8.RuneCountInString(s); n < sr.minLen {
			pad := text(t, sr.minLen-n, sr.minLen-n, alnum, false)
			for _, c := range []string{s + pad, pad + s} {
				if sr.accepts(c) {
					return c
				}
			}
		}
	}
	reject("no string found for pattern %q", sr.patterns[0])
	return ""
}
