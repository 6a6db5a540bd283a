package target

import (
	"regexp"
	"strings"

	"github.com/wirecheck/wirecheck/internal/redact"
)

// String is the server command as a shell reads it, credentials masked:
// the target of reports and the tail of every reproduce line.
func (t Target) String() string {
	words := make([]string, len(t.Argv))
	for i, w := range t.Argv {
		words[i] = Quote(redact.Text(w))
	}
	return strings.Join(words, " ")
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
