// Package refserver holds what the built-in reference servers share: the
// one set of options every one of them is served with, so the registry
// of protocols holds each server's Serve function as it is, with no
// adapter per protocol.
package refserver

import "io"

// Options is what `wirecheck serve` passes to a reference server.
type Options struct {
	// Faults break rules on purpose (spec faults:).
	Faults []string
	// Variants are legal alternatives the server takes (spec variants:).
	Variants []string
	// Dir is the folder the server was started in; a server that reads
	// files of its own (sonde-serve's tool manifest) looks there.
	Dir string
	In  io.Reader
	Out io.Writer
	Log io.Writer
	// HTTP and SSE are the host:port a server serves Streamable HTTP or
	// the legacy HTTP+SSE transport on instead of stdio ("" = stdio); a
	// host left out is 127.0.0.1. Only servers whose protocol lists the
	// transport read them.
	HTTP, SSE string
	// Stop, closed, ends an HTTP server (SIGTERM); nil runs it until the
	// process ends.
	Stop <-chan struct{}
	// Args is, for a reference client (a role's module), the server it
	// connects to: the command to launch on stdio.
	Args []string
}

// Set turns a list of names (faults, variants) into a set.
func Set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
