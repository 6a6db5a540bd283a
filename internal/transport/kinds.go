package transport

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind is a transport a server is reached over, as --transport and a
// spec's `transports:` name it. Stdio is the engine's own; a protocol
// module registers the others (Register) from its package's init, so the
// engine, which reads them here (the target, the spec, the CLI's
// messages), names none of them.
type Kind struct {
	// Name is the --transport value and the spec's name for it.
	Name string
	// Title is the transport as a reader of a report knows it.
	Title string
	// Path is the URL path a launched server serves the transport on
	// when the protocol's spec (`endpoints:`) names none.
	Path string
	// Dial reaches a server at o.URL: one wirecheck launched (o.Process
	// set) or one already running. Nil for a transport not reached by URL
	// (stdio); a Kind with Dial is one of the "HTTP transports".
	Dial func(o DialOptions) (Transport, error)
	// Detect, set, names the transport of a running server at o.URL when
	// the user named none, and says why; the Kind that has it is the one
	// a URL alone is reached over. revision is the one the run asks for,
	// "" for the module's default.
	Detect func(o DialOptions, revision string) (name, why string)
	// Listen, set, makes the endpoint a client under test connects to
	// when wirecheck plays the server (--role client); nil for a
	// transport without a client role.
	Listen func(o ListenOptions) (Listener, error)
}

// DialOptions are what a Kind's Dial and Detect are handed.
type DialOptions struct {
	// URL is the endpoint to reach.
	URL string
	// Kind is the registered transport's Name.
	Kind string
	// Headers are "Name: value" lines sent with every request to the
	// endpoint's origin, environment references already read.
	Headers []string
	// Process is the launched server, nil for a URL alone.
	Process Transport
	// Timeout bounds one exchange (--timeout); 0 is the transport's
	// default.
	Timeout time.Duration
	// MaxFrame caps one frame read (--max-frame); 0 is DefaultMaxFrame.
	MaxFrame int
}

// Stdio is the engine's own transport: NDJSON on a launched process's
// stdin and stdout.
const Stdio = "stdio"

var (
	kindsMu sync.RWMutex
	kinds   = []Kind{{Name: Stdio, Title: Stdio}}
)

// Register adds a transport. It is called from a package's init, before
// any flag or spec is read; a name registered twice, or a Kind without a
// name or a Dial, is a programming error.
func Register(k Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if k.Name == "" || k.Dial == nil {
		panic("transport: Register needs a Name and a Dial")
	}
	for _, o := range kinds {
		if o.Name == k.Name {
			panic("transport: " + k.Name + " registered twice")
		}
	}
	if k.Title == "" {
		k.Title = k.Name
	}
	kinds = append(kinds, k)
}

// Lookup is the registered transport called name.
func Lookup(name string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Names are the registered transports' names, stdio first, then in the
// order they were registered.
func Names() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// URLNames are the names of the transports reached by URL.
func URLNames() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	var out []string
	for _, k := range kinds {
		if k.Dial != nil {
			out = append(out, k.Name)
		}
	}
	return out
}

// ByURL is the transport a URL alone is reached over when the user names
// none: the one that detects (Kind.Detect), else the first reached by URL.
// ok is false when no transport reaching a URL is registered.
func ByURL() (k Kind, ok bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Detect != nil })
	if i < 0 {
		i = slices.IndexFunc(kinds, func(k Kind) bool { return k.Dial != nil })
	}
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Title is a transport as a reader of a report knows it, its name when
// none is registered.
func Title(name string) string {
	if k, ok := Lookup(name); ok {
		return k.Title
	}
	return name
}

// OverURL reports whether the transport called name is reached by URL.
func OverURL(name string) bool {
	k, ok := Lookup(name)
	return ok && k.Dial != nil
}

// Alternatives lists names for a message: "a", "a or b", "a, b or c".
func Alternatives(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// DialKind dials o.Kind's transport.
func DialKind(o DialOptions) (Transport, error) {
	k, ok := Lookup(o.Kind)
	if !ok || k.Dial == nil {
		return nil, fmt.Errorf("transport %q is not reached by URL (known: %s)", o.Kind, strings.Join(URLNames(), ", "))
	}
	return k.Dial(o)
}
