// Package target says how the server under test is reached: a command to
// launch (its argv, environment and working directory) and, for the HTTP
// transports, a URL and headers. A Target launches or connects, and it
// renders itself as the command line that reaches the same server again,
// with secrets as placeholders, for reports and reproduce lines.
package target

import (
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
}

// Launch starts a fresh server process and returns its transport.
func (t Target) Launch() (transport.Transport, error) {
	return transport.Launch(transport.Options{Command: t.Argv, Dir: t.Cwd, Env: t.Env})
}
