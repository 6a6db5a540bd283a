package target

import (
	"regexp"
	"strings"

	"github.com/wirecheck/wirecheck/internal/redact"
)

// String is the server command as a shell reads it ({port} as written),
// or the URL of a running server, credentials masked: the target of
// reports and the tail of every reproduce line.
func (t Target) String() string {
	if t.Serve != nil && len(t.Argv) == 0 {
		return "(in-process server)"
	}
	if len(t.Argv) == 0 && t.URL != "" {
		return MaskURL(t.URL)
	}
	words := make([]string, len(t.Argv))
	for i, w := range t.Argv {
		words[i] = Quote(redact.Text(w))
	}
	return strings.Join(words, " ")
}

// MaskURL masks what a URL may carry of credentials: its userinfo and
// every query value (an API key in ?key=… is common). It works on the
// text, so a template with {port} is masked as well.
func MaskURL(raw string) string {
	rest, frag, hasFrag := strings.Cut(raw, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	if scheme, after, ok := strings.Cut(rest, "://"); ok {
		host, path := after, ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			host, path = after[:i], after[i:]
		}
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = redact.Mask + host[i:]
		}
		rest = scheme + "://" + host + path
	}
	if hasQuery {
		pairs := strings.Split(query, "&")
		for i, p := range pairs {
			if k, v, ok := strings.Cut(p, "="); ok && v != "" {
				pairs[i] = k + "=" + redact.Mask
			}
		}
		rest += "?" + strings.Join(pairs, "&")
	}
	if hasFrag {
		rest += "#" + frag
	}
	return rest
}

// secretHeader matches the names of headers whose values are credentials.
var secretHeader = regexp.MustCompile(`(?i)(auth|cookie|token|key|secret|passw|credential|session)`)

// HeaderWord is a --header as a report or a rerun line may show it: as
// written when its value refers to the environment (${VAR}) or its name
// says nothing secret, else with the value masked.
func HeaderWord(h string) string {
	name, value, _ := strings.Cut(h, ":")
	if secretHeader.MatchString(name) && !varRef.MatchString(value) {
		return name + ": " + redact.Mask
	}
	return h
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// Quote quotes a word so a POSIX shell reads it back unchanged: bare when
// it holds nothing the shell interprets, else in single quotes.
func Quote(s string) string {
	if shellSafe.MatchString(s) && !strings.HasPrefix(s, "=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
