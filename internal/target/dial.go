package target

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/transport/httpmcp"
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
