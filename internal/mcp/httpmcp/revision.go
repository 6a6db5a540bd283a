package httpmcp

import (
	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// What the transport asks of MCP's revision table (specs/mcp.yaml): it
// never compares revision ids itself.

// resumesStreams: a broken SSE stream is resumed with Last-Event-ID (2026-07-28
// servers ignore it).
func resumesStreams(rev string) bool { return mcprevisions.Has(rev, revtable.ResumableStreams) }

// retriesBeforeClose: a server closing a stream early owes a retry field.
func retriesBeforeClose(rev string) bool {
	return mcprevisions.Has(rev, revtable.RetryBeforeClose)
}

// primes: a stream opens with a priming event.
func primes(rev string) bool { return mcprevisions.Has(rev, revtable.PrimingEvents) }

// namesRevisionInMeta: every request names its revision in _meta, and
// every POST carries MCP-Protocol-Version.
func namesRevisionInMeta(rev string) bool { return mcprevisions.Has(rev, revtable.RequiredMeta) }

// sendsVersionHeader: clients send MCP-Protocol-Version after the
// handshake.
func sendsVersionHeader(rev string) bool { return mcprevisions.Has(rev, revtable.VersionHeader) }
