package mcp

import (
	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// What the scenarios of an MCP profile (internal/suite/sondehub, sophon)
// use of this suite: the session of the current process, requests in it
// (their frames judged by every MCP rule, as this suite's are), and HTTP
// probes noted in the transcript.

// Session is the MCP session of the current server process.
type Session struct {
	e *scenario.Env
	s *session
}

// Ensure returns the session of the current process, opening it (the
// handshake of the run's revision) if it has none.
func Ensure(e *scenario.Env) (*Session, error) {
	s, err := ensure(e)
	if err != nil {
		return nil, err
	}
	return &Session{e: e, s: s}, nil
}

// Call sends a request in the session and returns its answer.
func (s *Session) Call(method string, params map[string]any) (*peer.Inbound, error) {
	return s.s.call(s.e, method, params)
}

// Has reports whether the server declared capability c.
func (s *Session) Has(c string) bool { return s.s.has(c) }

// Version is the revision the session is judged by.
func (s *Session) Version() string { return s.s.version }

// Request is a JSON-RPC request with a fresh id, as this suite sends them.
func Request(method string, params any) map[string]any { return request(method, params) }

// InitRequest is the initialize request of revision v.
func InitRequest(v string) map[string]any { return initRequest(v) }

// Probe sends one HTTP probe and notes what it was and what came back in
// the transcript, returning the note's line as evidence (nil Result: no
// answer at all).
func Probe(e *scenario.Env, x httpmcp.Exchanger, what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	return exchange(e, x, what, ex)
}

// Answered says in a few words what a probe got.
func Answered(res *httpmcp.Result) string { return answered(res) }

// Served reports whether a probe was answered 2xx.
func Served(res *httpmcp.Result) bool { return served(res) }

// Messages are the JSON-RPC messages a probe's answer carried.
func Messages(res *httpmcp.Result, seq int) []*peer.Inbound { return messages(res, seq) }

// Show renders a value for a message, shortened.
func Show(v any) string { return show(v) }
