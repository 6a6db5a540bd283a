// Package redact removes credentials from text before it is stored in a
// transcript or printed in a report: a server under test, or the user's own
// command line, must never leak a token into a CI log or a vendor's report.
package redact

import (
	"regexp"
	"strings"
)

// Mask replaces a secret.
const Mask = "[REDACTED]"

var authValue = regexp.MustCompile(`(?i)(authorization"?\s*[:=]\s*"?)((?:bearer|basic|token)\s+)?[^\s",}]+`)

// Text redacts Authorization header values ("Authorization: Bearer x",
// "authorization":"x") wherever they appear. The common case, no such word,
// costs one case-insensitive scan.
func Text(s string) string {
	if !containsFold(s, "authorization") {
		return s
	}
	return authValue.ReplaceAllString(s, "${1}${2}"+Mask)
}

var placeholder = regexp.MustCompile(`^\{[a-z_]+\}$`)

var secretName = regexp.MustCompile(`(?i)(token|secret|passw|api_?key|auth|credential|private)`)

// EnvValue redacts the value of a KEY=VALUE setting whose key names a
// secret, for reproduce lines and report targets.
func EnvValue(kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	// A placeholder wirecheck fills at launch ("{client_secret}") is
	// the same on every rerun and says nothing of the secret.
	if ok && secretName.MatchString(k) && !placeholder.MatchString(v) {
		return k + "=" + Mask
	}
	return kv
}

// containsFold reports whether s holds sub, an ASCII lower-case word, in any
// case. Every transcript line is scanned, so a position is ruled out by its
// first byte before EqualFold runs: ASCII-only matching is exact here, for
// no non-ASCII rune folds to a letter of "authorization" (only K and s have
// such folds, the Kelvin sign and the long s).
func containsFold(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	c := sub[0]
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 == c && strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}
