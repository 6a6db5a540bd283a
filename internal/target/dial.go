package target

import (
	"cmp"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// dialOptions are what Launch hands the HTTP transport.
type dialOptions = httpmcp.Options

// dial connects the HTTP transport; tests stand in for it (export_test).
// Its errors are start failures: the CLI exits 3 with them.
var dial = func(o dialOptions) (transport.Transport, error) {
	t, err := httpmcp.Dial(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrStart, err)
	}
	return t, nil
}

// detect names the transport of a running server; tests stand in for it
// (export_test).
var detect = httpmcp.Detect

// Detect names the transport of a running server given by URL alone (no
// --transport): Streamable HTTP, or the legacy HTTP+SSE transport where
// the server answers as one (httpmcp.Detect, at most two exchanges, each
// bounded by timeout), and says why in Detected. revision is the one the
// run asks for ("": the first with Streamable HTTP). Any other target
// comes back with its transport named (Kind), nothing sent.
func (t Target) Detect(timeout time.Duration, revision string) Target {
	if t.Transport == "" && t.URL != "" && len(t.Argv) == 0 {
		o := dialOptions{URL: t.URL, Headers: expandHeaders(t.Headers), Timeout: timeout, MaxFrame: t.MaxFrame}
		t.Transport, t.Detected = detect(o, cmp.Or(revision, "2025-03-26"))
	}
	t.Transport = t.Kind()
	return t
}
