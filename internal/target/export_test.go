package target

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// DialOptions is what Launch hands the HTTP transport.
type DialOptions = dialOptions

// SetDial stands a test's function in for the HTTP transport's Dial and
// returns a function that puts the real one back.
func SetDial(f func(DialOptions) (transport.Transport, error)) (restore func()) {
	old := dial
	dial = f
	return func() { dial = old }
}

// SetDetect stands a test's function in for httpmcp.Detect and returns a
// function that puts the real one back.
func SetDetect(f func(DialOptions, string) (string, string)) (restore func()) {
	old := detect
	detect = f
	return func() { detect = old }
}

// SetConnect stands a test's function in for the readiness poll's TCP
// connect and returns a function that puts the real one back.
func SetConnect(f func(network, addr string, d time.Duration) (net.Conn, error)) (restore func()) {
	old := connect
	connect = f
	return func() { connect = old }
}

// Knock is one try of the readiness wait; Answered what it returns when
// the server answered.
var Knock = knock

const Answered = answered

// SetReachDial stands a test's function in for Reach's connection and
// returns a function that puts the real one back.
func SetReachDial(f func(ctx context.Context, network, addr string) (net.Conn, error)) (restore func()) {
	old := reachDial
	reachDial = f
	return func() { reachDial = old }
}

// SetReachProxy stands a test's function in for the proxy the environment
// names, and returns a function that puts the real one back.
func SetReachProxy(f func(*http.Request) (*url.URL, error)) (restore func()) {
	old := reachProxy
	reachProxy = f
	return func() { reachProxy = old }
}
