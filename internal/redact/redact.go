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
	if !hasAuthorization(s) {
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

// hasAuthorization reports whether s holds "authorization" in any case.
// Every transcript line is scanned, base64 images among them, so the scan
// jumps from one z to the next (the word's rarest letter, found by
// IndexByte) and compares the word around it. ASCII-only matching is exact
// here: no non-ASCII rune folds to a letter of the word (only k and s have
// such folds, the Kelvin sign and the long s).
func hasAuthorization(s string) bool {
	const word, z = "authorization", 7 // word[z] == 'z'
	for _, c := range [2]byte{'z', 'Z'} {
		for i := 0; i < len(s); {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			j += i
			if at := j - z; at >= 0 && at+len(word) <= len(s) && strings.EqualFold(s[at:at+len(word)], word) {
				return true
			}
			i = j + 1
		}
	}
	return false
}
