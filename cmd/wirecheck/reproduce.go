package main

import (
	"regexp"
	"strings"

	"github.com/wirecheck/wirecheck/internal/redact"
	"github.com/wirecheck/wirecheck/internal/runner"
)

// again is a command line a user is told to run again: what run, fuzz and
// replay print (a finding's Reproduce, fuzz's replay line, the comment in a
// saved reproducer). Every setting that shapes the server or the verdict is
// carried, so the line, pasted into a shell, does what the printed run did.
type again struct {
	sub     string   // the subcommand: run or replay
	head    []string // what follows it: --scenario NAME, or the files
	t       *targetFlags
	level   string // the --level, written when not the subcommand's default
	params  []string
	mcpVer  string
	extra   []string // further flags, already as words
	command []string // the server command after "--"
}

// defaultLevel is each subcommand's --level default.
var defaultLevel = map[string]string{"run": "must", "replay": "may"}

// line builds the command line, quoted for a POSIX shell. A secret is a
// placeholder: an --env value whose name says secret becomes "$NAME" (the
// shell fills it from the user's environment, where secrets live), and an
// Authorization value in the server's arguments is masked.
func (a again) line() string {
	words := []string{"wirecheck", a.sub}
	t := a.t
	// run reads as "run --protocol P --scenario S", replay as "replay FILE".
	if t.protocol != "" && a.sub == "run" {
		words = append(words, "--protocol", shellQuote(t.protocol))
	}
	for _, h := range a.head {
		words = append(words, shellQuote(h))
	}
	if t.protocol != "" && a.sub != "run" {
		words = append(words, "--protocol", shellQuote(t.protocol))
	}
	if t.cwd != "" {
		words = append(words, "--cwd", shellQuote(t.cwd))
	}
	for _, e := range t.env {
		words = append(words, "--env", envWord(e))
	}
	// Both subcommands a line can name take runner's defaults; fuzz's own
	// shorter timeout must travel with its reproducers.
	if t.timeout != 0 && t.timeout != runner.DefaultTimeout {
		words = append(words, "--timeout", t.timeout.String())
	}
	if t.startupTimeout != 0 && t.startupTimeout != runner.DefaultStartupTimeout {
		words = append(words, "--startup-timeout", t.startupTimeout.String())
	}
	if a.level != "" && !strings.EqualFold(a.level, defaultLevel[a.sub]) {
		words = append(words, "--level", shellQuote(strings.ToLower(a.level)))
	}
	for _, p := range a.params {
		words = append(words, "--param", shellQuote(p))
	}
	if a.mcpVer != "" {
		words = append(words, "--mcp-version", shellQuote(a.mcpVer))
	}
	words = append(words, a.extra...)
	words = append(words, "--")
	return strings.Join(words, " ") + " " + describe(a.command)
}

// describe is the server command as a shell reads it, credentials masked:
// the target of reports and the tail of every reproduce line.
func describe(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellQuote(redact.Text(w))
	}
	return strings.Join(words, " ")
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envWord writes KEY=VALUE for --env, a secret value as the shell variable
// of the same name.
func envWord(kv string) string {
	if red := redact.EnvValue(kv); red != kv {
		k, _, _ := strings.Cut(kv, "=")
		if envName.MatchString(k) {
			return k + `="$` + k + `"`
		}
		return shellQuote(red)
	}
	return shellQuote(kv)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes a word so a POSIX shell reads it back unchanged: bare
// when it holds nothing the shell interprets, else in single quotes.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) && !strings.HasPrefix(s, "=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
