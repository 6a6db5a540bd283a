package httpserve

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Disturbances of a Streamable HTTP session (transport.Disturber): what
// wirecheck, a hostile server in a fuzz campaign, writes on the stream
// the client reads its server's messages from, below the messages. Each
// leaves the stream open, so the probe after it still reaches the
// client: its survival is what is judged, and the messages around it by
// the client frame judge. A stream broken or a session ended under the
// client is not among them yet (docs/mcp.md): the probe would have no
// stream to go on until the client opened one, which no sentence makes
// it do at once.
var disturbances = []string{"sse-unknown-event", "sse-odd-fields", "sse-oversized-event"}

// oversized is the size of sse-oversized-event's data: far past what a
// line reader's default buffer takes (bufio.Scanner's 64 KiB), well
// under any reasonable cap on a message.
const oversized = 2 << 20

// Disturbances are the session's; none over the legacy transport, whose
// one stream is the session.
func (c *Session) Disturbances() []string {
	if c.srv.legacy {
		return nil
	}
	return disturbances
}

// Disturb writes one disturbance on the stream wirecheck's messages go
// on; "" when no stream is open to write it on.
func (c *Session) Disturb(name string) (string, error) {
	var text, what string
	switch name {
	case "sse-unknown-event":
		// An event type MCP does not use: a client that dispatches by
		// type ignores it; its data is a message all the same.
		text = "event: wirecheck-unknown\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/wirecheck/unknown-event\"}\n\n"
		what = "an SSE event of type wirecheck-unknown"
	case "sse-odd-fields":
		// What the SSE format lets through, and a reader must skip: a
		// comment, a field it does not know, a line without a colon, a
		// retry that is no number, an id with a space; then a message
		// whose data spans two data lines.
		text = ": wirecheck comment\nwirecheck-field: x\nno-colon-here\nretry: soon\n\ndata: {\"jsonrpc\":\"2.0\",\ndata:  \"method\":\"notifications/wirecheck/two-lines\"}\n\n"
		what = "SSE lines a reader skips (a comment, unknown fields, a bad retry) and a message over two data lines"
	case "sse-oversized-event":
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/wirecheck/oversized", "params": map[string]any{"padding": strings.Repeat("w", oversized)}})
		text = "data: " + string(b) + "\n\n"
		what = fmt.Sprintf("an SSE event of %d bytes (a notification padded)", len(b))
	default:
		return "", fmt.Errorf("no disturbance %q (want one of %s)", name, strings.Join(disturbances, ", "))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return "", nil
	}
	st := c.streamFor()
	if st == nil || st.sink == nil {
		return "", nil
	}
	if err := st.sink.write(text); err != nil {
		st.broken()
		return "", nil
	}
	c.mu.Unlock()
	c.note("wirecheck wrote " + what + " on stream " + st.id)
	c.mu.Lock()
	return what, nil
}
