package mcp

import (
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// The suite asks the spec's revision table (specs/mcp.yaml, features:)
// what a revision has; it never compares revision ids.

// modern reports whether the run's revision has no initialize handshake:
// server/discover, and every request carries its revision, capabilities
// and client in _meta (2026-07-28).
func modern(e *scenario.Env) bool { return e.Protocol.Has(e.Protocol.Version, revtable.Discover) }

// newestWith is the newest revision with feature f, in the spec's order
// ("" with none).
func newestWith(p *spec.Protocol, f revtable.Feature) string {
	if p == nil || p.Versions == nil {
		return ""
	}
	vs := p.Versions.With(f)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// modernVersion is the newest revision without the handshake.
func modernVersion(e *scenario.Env) string { return newestWith(e.Protocol, revtable.Discover) }

// legacyLatest is the newest revision with the initialize handshake: what
// a 2026-07-28 run falls back to when the server does not implement
// server/discover.
func legacyLatest(e *scenario.Env) string { return newestWith(e.Protocol, revtable.Handshake) }

// headerVersion is the first revision whose clients send
// MCP-Protocol-Version.
func headerVersion(e *scenario.Env) string {
	if vs := e.Protocol.Versions.With(revtable.VersionHeader); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// headerless is the revision a server supporting earlier clients takes a
// request without MCP-Protocol-Version as: the newest with Streamable
// HTTP and no header.
func headerless(e *scenario.Env) string {
	out := ""
	for _, v := range e.Protocol.Versions.With(revtable.StreamableHTTP) {
		if !e.Protocol.Has(v, revtable.VersionHeader) {
			out = v
		}
	}
	return out
}
