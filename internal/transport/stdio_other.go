//go:build !unix

package transport

import "fmt"

// Launch needs process groups and non-blocking pipes, which this port of
// the stdio transport only has on Unix.
func Launch(opts Options) (Transport, error) {
	return nil, fmt.Errorf("%w: the stdio transport needs a Unix system", ErrStart)
}
