package protocols

import (
	"fmt"
	"strings"
)

// Reach is how a command asks to reach the server under test besides its
// command: --url, --transport and --header.
type Reach struct {
	URL, Transport string
	Headers        []string
}

// Check refuses a way of reaching the server that b's transports do not
// offer (every built-in protocol is reached over stdio only). Its errors
// name the flag at fault.
func (r Reach) Check(b *Bundle) error {
	id, tr := b.Protocol.ID, strings.Join(b.Protocol.Transports, ", ")
	switch {
	case r.URL != "":
		return fmt.Errorf("--url: protocol %s is reached over %s only; launch the server with '-- CMD [ARGS…]'", id, tr)
	case r.Transport != "stdio":
		return fmt.Errorf("--transport %q: protocol %s supports %s", r.Transport, id, tr)
	case len(r.Headers) > 0:
		return fmt.Errorf("--header applies to HTTP transports only; this run uses stdio")
	}
	return nil
}
