package httpmcp

import (
	"context"
	"net"
)

// Loopback is loopback, for its table.
var Loopback = loopback

// StandInDialer makes f open the connections of every transport dialled
// from now on (it sees each address before any name is resolved), until
// the returned func restores the real dialer.
func StandInDialer(f func(ctx context.Context, network, addr string) (net.Conn, error)) (restore func()) {
	old := dialContext
	dialContext = f
	return func() { dialContext = old }
}
