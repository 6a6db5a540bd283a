package target

import (
	"context"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// dialOptions are what Launch hands a transport reached by URL.
type dialOptions = transport.DialOptions

// dial connects a transport reached by URL (the registered Kind named by
// o.Kind); tests stand in for it (export_test). Its errors are start
// failures: the CLI exits 3 with them.
var dial = func(o dialOptions) (transport.Transport, error) {
	t, err := transport.DialKind(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrStart, err)
	}
	return t, nil
}

// detect names the transport of a running server (the registered
// transport.Kind.Detect); tests stand in for it (export_test).
var detect = func(o dialOptions, revision string) (string, string) {
	k, ok := transport.ByURL()
	if !ok || k.Detect == nil {
		return k.Name, ""
	}
	return k.Detect(o, revision)
}

// Detect names the transport of a running server given by URL alone (no
// --transport): the transport a URL alone is reached over asks the server
// how it answers (transport.ByURL, Kind.Detect, each exchange bounded by
// timeout), and says why in Detected. revision is the one the run asks
// for ("": the module's default). Any other target comes back with its
// transport named (Kind), nothing sent.
func (t Target) Detect(timeout time.Duration, revision string) Target {
	// A server no connection reaches is not asked (the run says why it
	// never began), nor is its name looked up again and again.
	if t.Transport == "" && t.URL != "" && len(t.Argv) == 0 && t.Reach(context.Background(), timeout) == nil {
		o := dialOptions{URL: t.URL, Headers: expandHeaders(t.Headers), Timeout: timeout, MaxFrame: t.MaxFrame}
		t.Transport, t.Detected = detect(o, revision)
	}
	t.Transport = t.Kind()
	return t
}
