// Package target says how the server under test is reached: a command to
// launch (its argv, environment and working directory) and, for the HTTP
// transports, a URL and headers. A Target launches or connects, and it
// renders itself as the command line that reaches the same server again,
// with secrets as placeholders, for reports and reproduce lines.
package target

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
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
	// stdout), or a transport reached by URL that a module registered
	// (transport.Register). "" with a URL is the one a URL alone is
	// reached over (transport.ByURL).
	Transport string
	// URL is the endpoint over HTTP. With Argv it is a template: "{port}"
	// stands for the port wirecheck picks.
	URL string
	// Headers are "Name: value" lines sent with every HTTP request to the
	// endpoint's origin (--header), as the user wrote them: "${VAR}" in a
	// value is read from the environment when the target is launched, so
	// a rerun line can carry the reference and not the secret.
	Headers []string
	// Paths are the endpoint paths of a launched server by transport
	// (the protocol's spec `endpoints:`); unset, the transport's own
	// (transport.Kind.Path).
	Paths map[string]string
	// Serve, set, is a server in wirecheck's own process (a Go test of a
	// server's code, package conformance) reached as a launched one on
	// stdio: each launch runs it afresh behind its own pipes.
	Serve transport.ServeFunc
	// MaxFrame caps one frame read from the server (a stdout line, an
	// HTTP body, a stream event): --max-frame. 0 is the transport's
	// default (transport.DefaultMaxFrame).
	MaxFrame int
	// Detected says why the transport is what it is when the user named
	// none for a running server (see Detect): the report carries it.
	Detected string
	// Client makes Argv a client under test (--role client): wirecheck
	// plays its server, listening over the transport (Kind.Listen), and
	// the transport's placeholder (Placeholder) in Argv and the Env
	// values becomes the endpoint the client is to reach.
	Client bool
	// Binary is the wirecheck executable the stdio endpoint execs to
	// connect back (the client role on stdio).
	Binary string
}

// The client role's placeholders: what a client's arguments or --env
// values write where wirecheck's server endpoint goes. (A listener may
// fill more words, the credentials it provisions the client with:
// transport.Provisioner.)
const (
	// ServerCommand is, on stdio, the path of an executable the client
	// launches as its server.
	ServerCommand = "{server}"
	// ServerURL is, over HTTP, the URL wirecheck serves on.
	ServerURL = "{url}"
)

// Placeholder is the word the client role replaces with the endpoint
// over the target's transport.
func (t Target) Placeholder() string {
	if t.OverHTTP() {
		return ServerURL
	}
	return ServerCommand
}

// Port is what Argv words, Env values and the URL of a launched HTTP
// server write where the port wirecheck picks goes.
const Port = "{port}"

// Kind is the transport the target is reached over, a registered
// transport's name: "stdio" by default, the transport a URL alone is
// reached over with a URL.
func (t Target) Kind() string {
	if t.Transport != "" {
		return t.Transport
	}
	if k, ok := transport.ByURL(); ok && t.URL != "" {
		return k.Name
	}
	return transport.Stdio
}

// OverHTTP reports whether the target speaks one of the HTTP transports
// (one reached by URL).
func (t Target) OverHTTP() bool { return transport.OverURL(t.Kind()) }

// FixedPort reports whether a launched HTTP server listens on a port the
// user chose (a --url without {port}): two of its processes at once would
// fight over the port.
func (t Target) FixedPort() bool {
	return t.OverHTTP() && len(t.Argv) > 0 && t.URL != "" && !strings.Contains(t.URL, Port)
}

// Check refuses a target that cannot be launched or reached as given. Its
// errors name the flag that sets the field at fault (--env, --cwd,
// --transport, --url, --header).
func (t Target) Check() error {
	for _, e := range t.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", e)
		}
	}
	if st, err := os.Stat(t.Cwd); t.Cwd != "" && (err != nil || !st.IsDir()) {
		return fmt.Errorf("--cwd %q: not a directory", t.Cwd)
	}
	if _, ok := transport.Lookup(t.Transport); !ok && t.Transport != "" {
		return fmt.Errorf("--transport %q: want %s", t.Transport, transport.Alternatives(transport.Names()))
	}
	if t.Client {
		return t.checkClient()
	}
	if t.URL != "" {
		if err := checkURL(t.URL, len(t.Argv) > 0); err != nil {
			return err
		}
		if !transport.OverURL(t.Kind()) {
			return fmt.Errorf("--url with --transport %s: a URL is reached over %s", t.Kind(), transport.Alternatives(transport.URLNames()))
		}
		if len(t.Argv) > 0 && t.Transport == "" {
			return fmt.Errorf("--url with a server command: say how the server is reached, %s", transport.Alternatives(flagWords(transport.URLNames())))
		}
	}
	if len(t.Headers) > 0 && !t.OverHTTP() {
		return fmt.Errorf("--header applies to HTTP transports only; this run uses stdio")
	}
	for _, h := range t.Headers {
		if err := checkHeader(h); err != nil {
			return err
		}
	}
	if t.OverHTTP() && len(t.Argv) > 0 && t.URL == "" && !t.hasPort() {
		return fmt.Errorf("--transport %s: wirecheck picks the server's port; put %s in the server's arguments, an --env value or --url", t.Kind(), Port)
	}
	return nil
}

// checkClient is Check of a client under test.
func (t Target) checkClient() error {
	if t.URL != "" {
		return fmt.Errorf("--url with --role client: wirecheck is the server and picks its own endpoint; put %s in the client's arguments or an --env value", ServerURL)
	}
	if len(t.Argv) == 0 {
		return fmt.Errorf("--role client: give the client's command after --, with %s where the server goes", t.Placeholder())
	}
	if len(t.Headers) > 0 {
		return fmt.Errorf("--header: wirecheck sends no HTTP request to a client under test")
	}
	if !t.has(t.Placeholder()) {
		return fmt.Errorf("--role client: the client's command names no %s; put it in an argument or an --env value where the client takes its server's %s", t.Placeholder(), map[bool]string{true: "URL", false: "command"}[t.OverHTTP()])
	}
	if k, _ := transport.Lookup(t.Kind()); k.Listen == nil {
		return fmt.Errorf("--role client with --transport %s: wirecheck cannot serve a client over it", t.Kind())
	}
	return nil
}

// flagWords are names as --transport flags: "--transport NAME".
func flagWords(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--transport " + n
	}
	return out
}

// hasPort reports whether {port} appears in an argument or an --env value.
func (t Target) hasPort() bool { return t.has(Port) }

// has reports whether word appears in an argument or an --env value.
func (t Target) has(word string) bool {
	for _, w := range t.Argv {
		if strings.Contains(w, word) {
			return true
		}
	}
	for _, e := range t.Env {
		if _, v, _ := strings.Cut(e, "="); strings.Contains(v, word) {
			return true
		}
	}
	return false
}

// checkURL refuses what is no http or https URL with a host; a template
// (launched) may hold {port}.
func checkURL(raw string, template bool) error {
	s := raw
	if template {
		s = strings.ReplaceAll(s, Port, "1")
	} else if strings.Contains(s, Port) {
		return fmt.Errorf("--url %q: %s stands for the port of a server wirecheck launches; give the command after '--' with --transport %s", raw, Port, transport.Alternatives(transport.URLNames()))
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("--url %q: not a URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("--url %q: want an http:// or https:// URL", raw)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("--url %q: no host", raw)
	}
	return nil
}

// tchar is RFC 9110's token: what a header's name is made of.
var tchar = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// checkHeader refuses a header that is no "Name: value" line or refers
// to an environment variable that is not set.
func checkHeader(h string) error {
	name, value, ok := strings.Cut(h, ":")
	switch {
	case strings.ContainsAny(h, "\r\n\x00"):
		return fmt.Errorf("--header %q: a header is one line (no CR, LF or NUL)", h)
	case !ok || !tchar.MatchString(name):
		return fmt.Errorf("--header %q: want 'Name: value' with a token name", h)
	}
	for _, m := range varRef.FindAllStringSubmatch(value, -1) {
		if _, set := os.LookupEnv(m[1]); !set {
			return fmt.Errorf("--header %s: ${%s} is not set in the environment", name, m[1])
		}
	}
	return nil
}

// expandHeaders replaces each ${VAR} in the header values by the
// variable's value: what goes on the wire.
func expandHeaders(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		name, value, _ := strings.Cut(h, ":")
		value = varRef.ReplaceAllStringFunc(value, func(m string) string { return os.Getenv(m[2 : len(m)-1]) })
		out[i] = name + ":" + value
	}
	return out
}
