package protocols

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// Reach is how a command asks to reach the server under test besides its
// command: --url, --transport and --header.
type Reach struct {
	URL, Transport string
	Headers        []string
}

// Check refuses a way of reaching the server that b's transports (the
// spec's top-level transports:, the one place a protocol says how it is
// reached) do not offer. Its errors name the flag at
// fault; the shape of the URL and the headers is target.Target.Check's.
func (r Reach) Check(b *Bundle) error {
	id, offers := b.Protocol.ID, b.Protocol.Transports
	// The target's defaults: the protocol's one transport, else stdio, or
	// over a URL alone the transport registered for one.
	tr := target.Target{Transport: r.Default(b), URL: r.URL}.Kind()
	overHTTP := slices.ContainsFunc(offers, transport.OverURL)
	switch {
	case r.URL != "" && !overHTTP:
		return fmt.Errorf("--url: protocol %s is reached over %s only; launch the server with '-- CMD [ARGS…]'", id, strings.Join(offers, ", "))
	case !slices.Contains(offers, tr):
		return fmt.Errorf("--transport %q: protocol %s supports %s", tr, id, strings.Join(offers, ", "))
	case len(r.Headers) > 0 && !transport.OverURL(tr):
		return fmt.Errorf("--header applies to HTTP transports only; this run uses stdio")
	}
	return nil
}

// Default is the transport named, else the one transport b's protocol
// is reached over ("" when it offers more: the target's defaults
// decide). A server of such a protocol is not asked which transport it
// speaks (Target.Detect): an authorization server would be sent MCP's
// initialize.
func (r Reach) Default(b *Bundle) string {
	if tr := b.Protocol.Transports; r.Transport == "" && len(tr) == 1 {
		return tr[0]
	}
	return r.Transport
}
