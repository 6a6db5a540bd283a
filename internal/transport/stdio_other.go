//go:build !unix

package transport

import (
	"fmt"
	"io"
)

// Launch needs process groups and non-blocking pipes, which this port of
// the stdio transport only has on Unix.
func Launch(opts Options) (Transport, error) {
	return nil, fmt.Errorf("%w: the stdio transport needs a Unix system", ErrStart)
}

// ServeFunc is a server run in wirecheck's own process (see the Unix port).
type ServeFunc func(in io.Reader, out io.Writer) error

// InProcess shares the stdio transport's pipes, Unix only here.
func InProcess(serve ServeFunc, opts Options) (Transport, error) {
	return nil, fmt.Errorf("%w: the in-process transport needs a Unix system", ErrStart)
}

// KillAll has no server to kill where none can be launched.
func KillAll() {}
