package httpmcp

import (
	"context"
	"net"
)

// Loopback is loopback, for its table.
var Loopback = loopback

// StandInDialer makes f open the connections of every transport dialled
// from now on (it sees each address before any name is resolved), until
// the returned func restores the real dialer.
func StandInDialer(f func(ctx context.Context, network, addr string) (net.Conn, error)) (restore func()) {
	shared.mu.Lock()
	old := dialContext
	dialContext = f
	shared.gen++
	shared.mu.Unlock()
	return func() {
		shared.mu.Lock()
		dialContext = old
		shared.gen++
		shared.mu.Unlock()
	}
}

// The message readers, for their agreement with a decoding reference.
var (
	WellFormed = wellFormed
	SplitShape = func(b []byte) int { _, shape := splitBody(b); return shape }
)

// Message is what parseMessages reads of one message, exported.
type Message struct {
	Method, Key, Version     string
	HasID, Response, IsError bool
}

// ParseMessages is parseMessages, exported.
func ParseMessages(b []byte) []Message {
	var out []Message
	for _, m := range parseMessages(b) {
		out = append(out, Message{m.method, m.key, m.version, m.hasID, m.response, m.isError})
	}
	return out
}

// Outgoing is what classify reads of a message sent, and valid's answer.
type Outgoing struct {
	Kind                  int
	Method, Key, Revision string
	Keys                  []string
	Batch, Valid          bool
}

// Classify is classify and valid, exported.
func Classify(b []byte) Outgoing {
	o := classify(b)
	return Outgoing{o.kind, o.method, o.key, o.revision, o.keys, o.batch, valid(o, b)}
}
