package transport

import (
	"encoding/json"
	"fmt"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// IDKey is the canonical JSON text of a decoded JSON-RPC id, so ids of
// different JSON types never collide: the key the peer tracks its calls
// by (peer.Key), and so the key a transport names a request by in
// Via.For, for a frame's End to find the pending call.
func IDKey(id any) string {
	b, err := json.Marshal(id)
	if err != nil {
		return fmt.Sprint(id)
	}
	return string(b)
}

// Via says how a frame came over HTTP. It is nil on stdio.
type Via struct {
	// Exchange numbers the HTTP exchanges of one transport, from 1.
	Exchange int
	// Verb is the request's method: POST, GET, DELETE.
	Verb        string
	Status      int
	ContentType string
	// Stream is set when the frame came as an event of a stream (a
	// response body that stays open); EventID is its id.
	Stream  bool
	EventID string
	// For is the key (peer's id key) of the JSON-RPC request the POST
	// carried, "" when it carried none (a notification, a raw body).
	For string
	// End is set on a frame with no Raw: why the exchange ended without a
	// JSON-RPC answer ("HTTP 500 text/html", "stream closed before the
	// response", "redirect loop"), so a pending call ends at once instead
	// of waiting out its timeout.
	End string
	// Dropped is set with End when the request's stream closed or broke
	// before its response, which the protocol may allow ("Disconnection
	// MAY occur at any time"): the transport's own check judges it, not
	// the response rules above it.
	Dropped bool
	// Authorization is set with End when authorization refused the
	// request: HTTP 401, or 403 with a WWW-Authenticate challenge
	// (insufficient scope). The authorization pages ask exactly that
	// answer of a server, so it owes the request no JSON-RPC response.
	Authorization bool
	// OverCap is set with End when the answer was a body or a stream event
	// over wirecheck's cap (MaxFrame): the server may well have answered,
	// wirecheck could not read it, so no rule of the server is judged.
	OverCap bool
	// TimedOut is set with End when wirecheck's --timeout ended the
	// exchange (no response headers, no answer in time).
	TimedOut bool
	// Unsent is set with End when the request was never sent: the
	// protocol gives no way to carry it over this transport (a value its
	// headers must repeat and cannot hold). No rule of the server is
	// judged by it.
	Unsent bool
}

// Launcher is a transport to a server wirecheck launched as a process
// (the leader of its own process group): PID is its process id, 0 when
// it was reached by URL alone or runs in wirecheck's own process. Where a
// launched server listens is read from the machine by it (a rule that it
// binds loopback only).
type Launcher interface {
	PID() int
}

// RequestCloser is a transport that can close the exchange of one request
// in flight, by the peer's key of its id: where closing a request's
// stream is its cancellation (a protocol's revision may say so). It reports
// whether the request's exchange was still running; once closed, nothing
// more of it reaches Recv.
type RequestCloser interface {
	CloseRequest(key string) bool
}

// Apart is a transport over which the server sends its answers apart from
// the requests that asked: on a stream of their own, tied to no request's
// status. A request the server refuses by status may then still get its
// error answer on the stream, before or after the refusal, so the peer
// takes the refusal as the answer and leaves room for one error after it.
type Apart interface {
	AnswersApart() bool
}

// Starter is a transport whose session begins before the first message:
// a stream that must first name where messages go. Started blocks until
// it has and says why it cannot; Awaits is what it waited for, as the
// report of a server that never began says it ("its stream to name …").
type Starter interface {
	Started() error
	Awaits() string
}

// Hooks let a transport judge what it sees below the peer (a status code,
// a content type) and note it in the transcript. The session wires them
// to the peer once both exist.
type Hooks struct {
	// Check reports a built-in check's outcome (verdict.Check* names).
	Check func(check string, v verdict.Verdict, msg, expected, actual string)
	// Note adds a line to the transcript and returns its sequence number.
	Note func(text string) int
}

// Hooked is a transport that takes Hooks.
type Hooked interface {
	SetHooks(Hooks)
}

// OffLoopback is the error of a request the HTTP transport did not send:
// to a host beyond loopback, named by a server wirecheck launched (a
// metadata document elsewhere). A launched server is the user's program
// on this machine, not an address they named: wirecheck sends nothing
// beyond loopback for it (docs/design.md, "What done means" 8). A check that
// wanted the answer skips with Named, never blames the server.
type OffLoopback struct {
	// URL is where the request would have gone, credentials masked.
	URL string
}

const offLoopbackWhy = "wirecheck sends nothing beyond loopback to a server it launched; run the server yourself and name it with --url to follow it"

func (e *OffLoopback) Error() string {
	return "not sent to " + e.URL + ", off this machine: " + offLoopbackWhy
}

// Named is what a check skipped for it says.
func (e *OffLoopback) Named() string {
	return "the server names " + e.URL + ", off this machine: " + offLoopbackWhy
}
