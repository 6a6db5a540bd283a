// Package sse reads Server-Sent Events streams (the WHATWG event-stream
// format) as the MCP HTTP transports send them: bounded, no HTTP in it.
package sse

// Event is one dispatched event of an event stream.
type Event struct {
	// ID is the event's id field; HasID tells an empty id from none.
	ID    string
	HasID bool
	// Type is the event field; "" means the default type, "message".
	Type string
	// Data is the data lines joined with "\n".
	Data string
	// Retry is the reconnection time the event asked for, in milliseconds
	// (0: none).
	Retry int
}
