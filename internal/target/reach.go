package target

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Unreachable is the error of a running server (--url alone) that the
// run's first connection did not reach: nothing answered before any HTTP
// exchange could begin, so the run never began, as when a command cannot
// be started. A server reached once and gone later is the run's finding,
// not this.
type Unreachable struct {
	// URL is the --url as a report may show it (no password).
	URL string
	// Cause says in plain words what happened ("nothing is listening on
	// 127.0.0.1:9 (connection refused)").
	Cause string
	// Check says what to check.
	Check string
	// Within, set, is how long the connection was waited for (a
	// connection that neither opened nor failed).
	Within time.Duration
}

func (e *Unreachable) Error() string { return e.Cause }

// defaultReach bounds Reach when its caller names no bound: --timeout's
// default.
const defaultReach = 5 * time.Second

// reachDial opens the connection Reach tries, and reachProxy names the
// proxy it goes through (as the HTTP transports' do); tests stand in for
// them.
var (
	reachDial  = (&net.Dialer{}).DialContext
	reachProxy = http.ProxyFromEnvironment
)

// Reach opens one connection to a running server given by URL alone, as
// the run's transport would (through the proxy the environment names for
// the URL, if any), completes the TLS handshake over https, and closes
// it: no HTTP request is sent, so it costs the server no session. The
// error is an *Unreachable when the connection fails before any HTTP
// exchange could begin (nothing listening, a host that does not resolve,
// a failed handshake, nothing in timeout); nil for any other target, and
// when ctx ends the try first (an interrupt is no verdict on the server).
func (t Target) Reach(ctx context.Context, timeout time.Duration) error {
	if t.Serve != nil || len(t.Argv) > 0 || t.URL == "" {
		return nil
	}
	u, err := url.Parse(t.URL)
	if err != nil || u.Host == "" {
		// Target.Check refuses such a URL before any run.
		return nil
	}
	if timeout <= 0 {
		timeout = defaultReach
	}
	un := &Unreachable{URL: u.Redacted()}
	addr, tlsName, via := hostPort(u), tlsName(u), ""
	if p, err := reachProxy(&http.Request{URL: u}); err == nil && p != nil {
		// The first connection goes to the proxy; what lies beyond it the
		// proxy answers in HTTP, which the run judges.
		addr, tlsName, via = hostPort(p), "", " (the proxy the environment names for "+u.Host+")"
	}
	host, _, _ := net.SplitHostPort(addr)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var c net.Conn
	if invalidName(host) {
		// RFC 6761 §6.4: a name under .invalid resolves to nothing, and
		// resolvers "SHOULD always return immediately with a negative
		// response"; no DNS server need be asked.
		err = &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	} else {
		c, err = reachDial(ctx, "tcp", addr)
	}
	if parent.Err() != nil {
		if c != nil {
			c.Close()
		}
		return nil
	}
	if err != nil {
		un.Cause, un.Check = connectFailure(err, addr, host, via, timeout)
		if un.Cause == "" {
			return nil
		}
		if isTimeout(err) {
			un.Within = timeout
		}
		return un
	}
	defer c.Close()
	if tlsName == "" {
		return nil
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	err = tls.Client(c, &tls.Config{ServerName: tlsName, NextProtos: []string{"h2", "http/1.1"}}).HandshakeContext(ctx)
	if err == nil || parent.Err() != nil {
		return nil
	}
	un.Cause, un.Check = handshakeFailure(err, addr, tlsName, timeout)
	if isTimeout(err) {
		un.Within = timeout
	}
	return un
}

// invalidName reports whether host is under the special-use domain
// .invalid (RFC 6761 §6.4).
func invalidName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "invalid" || strings.HasSuffix(h, ".invalid")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// connectFailure says why a connection to addr (host's) failed and what
// to check; "" when the error is none of a server not reached (then the
// run goes on and judges what it finds).
func connectFailure(err error, addr, host, via string, timeout time.Duration) (cause, check string) {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("the host %s does not resolve%s (no such host)", host, via),
			"the host name in --url (a typo?), and that this machine's DNS knows it"
	case errors.As(err, &dns):
		return fmt.Sprintf("the host %s could not be looked up%s: %s", host, via, dns.Err),
			"this machine's DNS (its resolver answered no address), and the host name in --url"
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing is listening on %s%s (connection refused)", addr, via),
			"that the server is running and listening on " + addr + ", and that --url names its host and port"
	case isTimeout(err):
		return fmt.Sprintf("no connection to %s%s within %s (--timeout): nothing answered it", addr, via, timeout),
			"that the host is up and that no firewall drops the connection; --timeout if the network is slow"
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return fmt.Sprintf("no route to %s%s (%s)", addr, via, plainErr(err)),
			"that this machine's network reaches the host in --url"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Sprintf("the connection to %s%s failed (%s)", addr, via, plainErr(err)),
			"that the server is running and listening on " + addr
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Sprintf("no connection to %s%s: %s", addr, via, plainErr(err)),
			"that the server is running and listening on " + addr + ", and that --url names its host and port"
	}
	return "", ""
}

// handshakeFailure says why the TLS handshake with addr failed and what
// to check.
func handshakeFailure(err error, addr, name string, timeout time.Duration) (cause, check string) {
	var (
		unknown   x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		rec       tls.RecordHeaderError
		verifyErr *tls.CertificateVerificationError
	)
	const tlsCheck = "that the server serves HTTPS on that port (else --url begins http://)"
	switch {
	case errors.As(err, &unknown):
		return fmt.Sprintf("the TLS handshake with %s failed: its certificate is signed by an authority this machine does not trust", addr),
			"the server's certificate chain, or add its authority to this machine's trusted ones (SSL_CERT_FILE)"
	case errors.As(err, &hostname):
		return fmt.Sprintf("the TLS handshake with %s failed: its certificate is not valid for %s", addr, name),
			"that --url names the host the server's certificate is for"
	case errors.As(err, &invalid):
		return fmt.Sprintf("the TLS handshake with %s failed: its certificate is not valid (%s)", addr, plainErr(invalid)),
			"the server's certificate (its dates, its use)"
	case errors.As(err, &verifyErr):
		return fmt.Sprintf("the TLS handshake with %s failed: its certificate does not verify (%s)", addr, plainErr(verifyErr.Err)),
			"the server's certificate"
	case errors.As(err, &rec):
		return fmt.Sprintf("the TLS handshake with %s failed: what answered there does not speak TLS", addr),
			tlsCheck
	case isTimeout(err):
		return fmt.Sprintf("the TLS handshake with %s got no answer within %s (--timeout)", addr, timeout),
			tlsCheck
	}
	return fmt.Sprintf("the TLS handshake with %s failed: %s", addr, plainErr(err)), tlsCheck
}

// plainErr is err's last words: a system call's error without the
// address and operation the cause already names.
func plainErr(err error) string {
	var se *net.OpError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}
