package target

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/redact"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Rerun is what a wirecheck command line a user is told to run again says
// besides the target: a finding's Reproduce, fuzz's replay line, the
// comment in a saved reproducer. Every setting that shapes the server or
// the verdict is carried, so the line, pasted into a shell, does what the
// printed run did. A zero field is the command's default and is left out.
type Rerun struct {
	Command  string   // the subcommand: run or replay
	Head     []string // what follows it: --scenario NAME, or the files
	Protocol string
	Timeout  time.Duration
	Startup  time.Duration // --startup-timeout
	Level    string
	Params   []string // KEY=VALUE, the revision's key excluded
	Revision string
	Rules    []string
	Seed     uint64
}

// Line renders the command line that reruns r against t, quoted for a
// POSIX shell. A secret is a placeholder: an Env value whose name says
// secret becomes "$NAME" (the shell fills it from the user's environment,
// where secrets live), an Authorization value in Argv is masked, and so
// are the credentials of a URL and the value of a --header whose name says
// secret (unless it is written as ${VAR}, which the rerun reads from the
// environment as this run did).
func (t Target) Line(r Rerun) string {
	words := []string{"wirecheck", r.Command}
	// run reads as "run --protocol P --scenario S", replay as "replay FILE".
	if r.Protocol != "" && r.Command == "run" {
		words = append(words, "--protocol", Quote(r.Protocol))
	}
	for _, h := range r.Head {
		words = append(words, Quote(h))
	}
	if r.Protocol != "" && r.Command != "run" {
		words = append(words, "--protocol", Quote(r.Protocol))
	}
	if t.Client {
		words = append(words, "--role", "client")
	}
	if t.OverHTTP() {
		words = append(words, "--transport", t.Kind())
	}
	if t.URL != "" {
		words = append(words, "--url", Quote(MaskURL(t.URL)))
	}
	for _, h := range t.Headers {
		words = append(words, "--header", Quote(HeaderWord(h)))
	}
	if t.Cwd != "" {
		words = append(words, "--cwd", Quote(t.Cwd))
	}
	for _, e := range t.Env {
		words = append(words, "--env", envWord(e))
	}
	if t.MaxFrame != 0 && t.MaxFrame != transport.DefaultMaxFrame {
		words = append(words, "--max-frame", transport.SizeString(t.MaxFrame))
	}
	if r.Timeout != 0 {
		words = append(words, "--timeout", r.Timeout.String())
	}
	if r.Startup != 0 {
		words = append(words, "--startup-timeout", r.Startup.String())
	}
	if r.Level != "" {
		words = append(words, "--level", Quote(strings.ToLower(r.Level)))
	}
	for _, p := range r.Params {
		// A setting that names a secret (a client secret) is masked, as
		// an --env one is: a rerun line goes into CI logs and reports.
		words = append(words, "--param", Quote(redact.EnvValue(p)))
	}
	if r.Revision != "" {
		words = append(words, "--revision", Quote(r.Revision))
	}
	for _, g := range r.Rules {
		words = append(words, "--rules", Quote(g))
	}
	if r.Seed != 0 {
		words = append(words, "--seed", strconv.FormatUint(r.Seed, 10))
	}
	if len(t.Argv) == 0 {
		return strings.Join(words, " ")
	}
	return strings.Join(words, " ") + " -- " + t.String()
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
		return Quote(red)
	}
	return Quote(kv)
}
