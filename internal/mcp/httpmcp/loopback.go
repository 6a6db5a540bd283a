package httpmcp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// dialContext opens every connection of the transport; tests stand in
// for it to see each address wirecheck would reach (a name is resolved
// in it, so a host refused before it is never even looked up).
var dialContext = (&net.Dialer{Timeout: dialTimeout}).DialContext

// guard is the transport's one way out: every request, each redirect hop
// included, passes its RoundTrip. To a server wirecheck launched it sends
// nothing beyond loopback (docs/design.md, "What done means" 8): a URL the
// server names elsewhere (a metadata document beside its authorization
// server) is refused with transport.OffLoopback before any lookup or
// connection. With --url the user named the address, and a real
// deployment's documents live elsewhere: they are followed.
type guard struct{ c *client }

func (g guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.c.o.Process != nil && !g.c.onBox(req.URL) {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &transport.OffLoopback{URL: req.URL.Redacted()}
	}
	return g.c.ht.RoundTrip(req)
}

// onBox reports whether a launched server's request may go to u: a
// loopback host, or the host the server is reached at (127.0.0.1 unless
// the user's --url named another).
func (c *client) onBox(u *url.URL) bool {
	h := u.Hostname()
	return strings.EqualFold(h, c.home) || loopback(h)
}

// loopback: localhost, 127.0.0.0/8 or ::1 (an IPv4-mapped form
// included).
func loopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
