package report

import (
	"fmt"
	"io"
	"strings"
)

// formats maps every accepted name to its canonical one, in the order
// Formats lists them.
var formats = []struct {
	name    string
	aliases []string
	write   func(io.Writer, *Report) error
}{
	{"console", nil, func(w io.Writer, r *Report) error { return WriteConsole(w, r, ConsoleOptions{}) }},
	{"json", nil, WriteJSON},
	{"junit", nil, WriteJUnit},
	{"html", nil, WriteHTML},
	{"markdown", []string{"md"}, WriteMarkdown},
	{"github", nil, WriteGitHub},
}

// Formats lists the canonical format names Write accepts.
func Formats() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}

// canonical resolves a format name or alias, case-insensitively.
func canonical(format string) (int, bool) {
	name := strings.ToLower(strings.TrimSpace(format))
	for i, f := range formats {
		if f.name == name {
			return i, true
		}
		for _, a := range f.aliases {
			if a == name {
				return i, true
			}
		}
	}
	return 0, false
}

func unknownFormat(format string) error {
	return fmt.Errorf("unknown report format %q (valid: %s; md is short for markdown)", format, strings.Join(Formats(), ", "))
}

// Write renders r in the named format. Console output written this way has
// no colour: it is going to a file or pipe chosen by name, not a terminal.
func Write(format string, w io.Writer, r *Report) error {
	i, ok := canonical(format)
	if !ok {
		return unknownFormat(format)
	}
	return formats[i].write(w, r)
}

// ParseSpec splits the value of --report FORMAT=PATH. The format comes back
// canonical ("md" → "markdown"); the path is everything after the first
// '=', so paths may contain '='. The path "-" is passed through for the
// caller to read as standard output. "github" alone means github=-: the
// Actions runner reads its annotations from the step's output.
func ParseSpec(s string) (format, path string, err error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok && strings.EqualFold(strings.TrimSpace(s), "github") {
		return "github", "-", nil
	}
	if !ok {
		return "", "", fmt.Errorf("--report %q: want FORMAT=PATH, e.g. junit=reports/junit.xml (formats: %s)", s, strings.Join(Formats(), ", "))
	}
	if strings.TrimSpace(name) == "" {
		return "", "", fmt.Errorf("--report %q: the format before '=' is empty (formats: %s)", s, strings.Join(Formats(), ", "))
	}
	i, known := canonical(name)
	if !known {
		return "", "", fmt.Errorf("--report %q: %w", s, unknownFormat(name))
	}
	if path == "" {
		return "", "", fmt.Errorf("--report %q: the path after '=' is empty", s)
	}
	return formats[i].name, path, nil
}
