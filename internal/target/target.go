// Package target says how the server under test is reached: a command to
// launch (its argv, environment and working directory) and, for the HTTP
// transports, a URL and headers. A Target launches or connects, and it
// renders itself as the command line that reaches the same server again,
// with secrets as placeholders, for reports and reproduce lines.
package target

import (
	"fmt"
	"os"
	"strings"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// Target is how to reach one server. The zero value reaches nothing.
type Target struct {
	// Argv is the command to launch; Argv[0] is looked up in PATH.
	Argv []string
	// Env holds KEY=VALUE pairs added to wirecheck's own environment.
	Env []string
	// Cwd is the server's working directory; empty means wirecheck's own.
	Cwd string
	// Transport is "" or "stdio" (NDJSON on the process's stdin and
	// stdout), "http" (Streamable HTTP) or "sse" (the legacy HTTP+SSE
	// transport).
	Transport string
	// URL is the endpoint over HTTP (for sse: the stream's URL). With Argv
	// it is a template: "{port}" stands for the port wirecheck picks.
	URL string
	// Headers are "Name: value" lines sent with every HTTP request to the
	// endpoint's origin (--header); secret values never leave String/Line.
	Headers []string
}

// Launch starts a fresh server process and returns its transport.
func (t Target) Launch() (transport.Transport, error) {
	return transport.Launch(transport.Options{Command: t.Argv, Dir: t.Cwd, Env: t.Env})
}

// Check refuses a target that cannot be launched as given: an Env entry
// that is no KEY=VALUE, a Cwd that is no directory. Its errors name the
// flag that sets the field (--env, --cwd).
func (t Target) Check() error {
	for _, e := range t.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", e)
		}
	}
	if st, err := os.Stat(t.Cwd); t.Cwd != "" && (err != nil || !st.IsDir()) {
		return fmt.Errorf("--cwd %q: not a directory", t.Cwd)
	}
	return nil
}
