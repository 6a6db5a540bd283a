package gen

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	"pgregory.net/rapid"
)

var patternCache sync.Map // pattern source -> *syntax.Regexp or error

func parsePattern(src string) (*syntax.Regexp, error) {
	if v, ok := patternCache.Load(src); ok {
		if re, ok := v.(*syntax.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	// syntax.Perl is what regexp.Compile uses, and the jsonschema compiler
	// already accepted the pattern with regexp.Compile.
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		patternCache.Store(src, err)
		return nil, err
	}
	patternCache.Store(src, re)
	return re, nil
}

// repeatSlack is how many repetitions beyond the minimum an unbounded (or
// very wide) quantifier may produce.
const repeatSlack = 3

// walkRegexp writes one string in the language of re. Anchors and word
// boundaries emit nothing; the caller checks the result against the real
// regexp, which is what makes ignoring them safe. minLen lets quantifiers
// stretch so that patterns like ^[a-z]+$ can reach a minLength.
func walkRegexp(t *rapid.T, b *strings.Builder, re *syntax.Regexp, minLen int) {
	switch re.Op {
	case syntax.OpNoMatch:
		reject("pattern matches nothing")
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(t, re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		c := anyRune(t)
		if c == '\n' && re.Op == syntax.OpAnyCharNotNL {
			c = ' '
		}
		b.WriteRune(c)
	case syntax.OpCapture:
		walkRegexp(t, b, re.Sub[0], minLen)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			walkRegexp(t, b, sub, minLen)
		}
	case syntax.OpAlternate:
		walkRegexp(t, b, re.Sub[index(t, len(re.Sub), "alternative")], minLen)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		limit := lo + max(repeatSlack, minLen)
		if hi < 0 || hi > limit {
			hi = limit
		}
		for range intIn(t, lo, hi, "repeat") {
			walkRegexp(t, b, re.Sub[0], minLen)
		}
	}
	// OpEmptyMatch, OpBeginLine, OpEndLine, OpBeginText, OpEndText,
	// OpWordBoundary, OpNoWordBoundary: nothing to write.
}

// classRune picks from a character class, preferring its printable ASCII
// part (what a schema author had in mind) and shrinking towards it.
func classRune(t *rapid.T, ranges []rune) rune {
	var ascii []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], 0x20), min(ranges[i+1], 0x7e)
		if lo <= hi {
			ascii = append(ascii, lo, hi)
		}
	}
	set := ranges
	if len(ascii) > 0 && intIn(t, 0, 3, "exotic") < 3 {
		set = ascii
	}
	if len(set) < 2 {
		reject("empty character class")
	}
	i := 2 * rapid.IntRange(0, len(set)/2-1).Draw(t, "range")
	c := rune(rapid.IntRange(int(set[i]), int(set[i+1])).Draw(t, "rune"))
	if !utf8.ValidRune(c) {
		c = set[i]
	}
	return c
}

func anyRune(t *rapid.T) rune {
	if intIn(t, 0, 3, "exotic") < 3 {
		return rune(intIn(t, 0x20, 0x7e, "rune"))
	}
	return runeGen.Draw(t, "rune")
}
