package target

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// A launched HTTP server is ready when it answers on its port, not when
// the port accepts a TCP connection: the kernel accepts on any listener,
// also one the server binds only to let go of again (a check that the
// port is free, a framework that binds twice). A request sent to that one
// is reset when it closes, and the run would begin with a server that is
// not there yet.

// pollEvery is how often the readiness wait tries the port: often enough
// that a fast server is not kept waiting, rarely enough to cost nothing.
const pollEvery = 25 * time.Millisecond

// dialWait bounds the TCP connect of one try. Not pollEvery: on a loaded
// machine the dialling goroutine may run later than that after the kernel
// has connected, and the poll would never see the port open.
const dialWait = time.Second

// connect opens the readiness poll's connections; tests stand in for it.
var connect = net.DialTimeout

// What one try found.
const (
	refused  = iota // no connection: nothing listens yet
	dropped         // a connection accepted, then closed or reset before anything came back
	answered        // bytes came back (an HTTP answer, a TLS handshake): the server is there
	silent          // the connection held and nothing came back within the try's bound
)

// knock opens one connection to addr and asks what costs the server
// nothing: over plain HTTP "OPTIONS *", a request of the server as a whole
// (RFC 9110 §9.3.7) that reaches no protocol endpoint, so it opens no session;
// over TLS (tlsName set) the handshake alone. Any byte back is an answer.
// The try ends early when stop closes.
func knock(addr, tlsName string, bound time.Duration, stop ...<-chan struct{}) int {
	c, err := connect("tcp", addr, dialWait)
	if err != nil {
		return refused
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(bound))
	done := make(chan struct{})
	defer close(done)
	for _, ch := range stop {
		go func() {
			select {
			case <-ch:
				_ = c.SetDeadline(time.Now())
			case <-done:
			}
		}()
	}
	rc := &counted{Conn: c}
	if tlsName != "" {
		err = tls.Client(rc, &tls.Config{ServerName: tlsName}).Handshake()
	} else {
		_, err = fmt.Fprintf(rc, "OPTIONS * HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", addr)
		if err == nil {
			_, err = rc.Read(make([]byte, 1))
		}
	}
	var ne net.Error
	switch {
	case rc.n > 0:
		// A TLS handshake that fails to verify has still been answered.
		return answered
	case errors.As(err, &ne) && ne.Timeout():
		return silent
	}
	return dropped
}

// counted counts the bytes read from a connection.
type counted struct {
	net.Conn
	n int
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n += n
	return n, err
}

// tlsName is the server name of a TLS handshake with u's server, "" over
// plain HTTP.
func tlsName(u *url.URL) string {
	if u.Scheme != "https" {
		return ""
	}
	return u.Hostname()
}

// awaitReady knocks on addr every pollEvery until the server answers, the
// process exits, b.Startup passes or b.Abort closes. A connection that is
// accepted and then closed or reset with nothing sent back is no server
// yet, however often it happens; one that holds a try's bound (--timeout)
// without a word is taken as the server, which the run then judges, as a
// server that does not answer OPTIONS * may still speak its protocol.
func awaitReady(proc transport.Transport, addr, tlsName string, b Bounds) error {
	deadline := time.Now().Add(b.Startup)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	drops := 0
	for {
		bound := max(min(b.Timeout, time.Until(deadline)), dialWait)
		got := knock(addr, tlsName, bound, proc.Exited(), b.Abort)
		select {
		case <-proc.Exited():
			if drops > 0 || got != refused {
				return &NotReady{Cause: fmt.Sprintf("the server exited (%s) before it answered on %s", proc.ExitStatus(), addr)}
			}
			return &NotReady{Cause: fmt.Sprintf("the server exited (%s) before %s accepted a connection", proc.ExitStatus(), addr)}
		case <-b.Abort:
			return ErrAborted
		default:
		}
		switch got {
		case answered, silent:
			return nil
		case dropped:
			drops++
		}
		if !time.Now().Before(deadline) {
			if drops > 0 {
				return &NotReady{Cause: fmt.Sprintf("%s accepted a connection %s within %s (--startup-timeout) but closed or reset it before any answer "+
					"(a listener the server let go of: a check that the port is free, a framework that binds twice), and nothing answered there since; the server is still running",
					addr, times(drops), b.Startup)}
			}
			return &NotReady{Cause: fmt.Sprintf("nothing accepted a connection on %s within %s (--startup-timeout); the server is still running", addr, b.Startup)}
		}
		select {
		case <-tick.C:
		case <-proc.Exited():
		case <-b.Abort:
		}
	}
}

// times is "once", "twice", "N times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
