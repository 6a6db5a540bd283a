package target

import (
	"errors"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// dialOptions mirror httpmcp.Options (PLAN12.md) until the HTTP
// transport lands; this file goes when it does, and dial calls
// httpmcp.Dial.
type dialOptions struct {
	URL     string
	Kind    string
	Headers []string
	Process transport.Transport
	Timeout time.Duration
}

// errNoHTTP is what dialling says before the HTTP transport exists.
var errNoHTTP = errors.New("the HTTP transport is not built into this wirecheck yet")

// dial is replaced by tests that stand in for the HTTP transport.
var dial = func(o dialOptions) (transport.Transport, error) {
	return nil, fmt.Errorf("%w: %w", transport.ErrStart, errNoHTTP)
}
