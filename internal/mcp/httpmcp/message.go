package httpmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// What a POST carries decides what its answer must be: a request wants a
// JSON-RPC answer, a notification or a response wants 202.
const (
	kindInvalid      = iota // not JSON-RPC: a raw probe, answered by whatever comes
	kindRequest             // a request (or a batch holding one)
	kindNotification        // a notification, a response, or a batch of only those
)

// outgoing is what the transport needs to know of a message it sends.
type outgoing struct {
	kind   int
	method string
	// key is the request's id key, the peer's (the id's JSON text, as
	// peer.Key writes it); keys lists every request of a batch.
	key   string
	keys  []string
	batch bool
	// revision is the protocol version a single message names in its
	// _meta (2026-07-28 carries it in every request), "" when none.
	revision string
}

// metaVersion is where a 2026-07-28 message names its revision.
const metaVersion = "io.modelcontextprotocol/protocolVersion"

// message is what the transport reads of one message it receives.
type message struct {
	method   string
	hasID    bool
	key      string
	response bool // result or error, no method
	isError  bool
	// version is result.protocolVersion (of an initialize answer).
	version string
}

func decode(b []byte) (any, bool) {
	// schema.Decode is encoding/json's decoding with UseNumber and nothing
	// after the value, in one pass: every body and every frame sent comes
	// through here, and encoding/json's decoder was a tenth of what a run
	// allocates.
	v, err := schema.Decode(b)
	return v, err == nil
}

func classify(b []byte) outgoing {
	v, ok := decode(b)
	if !ok {
		return outgoing{kind: kindInvalid}
	}
	one := func(v any) (outgoing, bool) {
		m, ok := v.(map[string]any)
		if !ok {
			return outgoing{kind: kindInvalid}, false
		}
		method, _ := m["method"].(string)
		id, hasID := m["id"]
		switch {
		case method != "" && hasID && id != nil:
			return outgoing{kind: kindRequest, method: method, key: transport.IDKey(id)}, true
		case method != "" && !hasID:
			return outgoing{kind: kindNotification, method: method}, true
		case method == "" && hasID && (m["result"] != nil || m["error"] != nil):
			return outgoing{kind: kindNotification}, true
		}
		return outgoing{kind: kindInvalid}, false
	}
	if arr, ok := v.([]any); ok {
		o := outgoing{kind: kindNotification, batch: true}
		if len(arr) == 0 {
			return outgoing{kind: kindInvalid, batch: true}
		}
		for _, e := range arr {
			m, ok := one(e)
			if !ok {
				return outgoing{kind: kindInvalid, batch: true}
			}
			if m.kind == kindRequest {
				o.kind = kindRequest
				o.keys = append(o.keys, m.key)
			}
		}
		return o
	}
	o, _ := one(v)
	if o.kind == kindRequest {
		o.keys = []string{o.key}
	}
	m, _ := v.(map[string]any)
	params, _ := m["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	o.revision, _ = meta[metaVersion].(string)
	return o
}

// valid reports whether a body sent is well-formed JSON-RPC: UTF-8 (JSON
// text is), every message an object tagged "jsonrpc": "2.0" that
// classify recognised, its id (if any) a string, number or null, its
// params (if any) an object or array (JSON-RPC 2.0 §4, §4.2). Schema
// validity of the params is not asked: those are valid messages a server
// may answer with an error.
func valid(o outgoing, b []byte) bool {
	if o.kind == kindInvalid || !utf8.Valid(b) {
		return false
	}
	v, _ := decode(b)
	for _, e := range elements(v) {
		m, _ := e.(map[string]any)
		if m["jsonrpc"] != "2.0" {
			return false
		}
		switch m["id"].(type) {
		case nil, string, json.Number:
		default:
			return false
		}
		switch m["params"].(type) {
		case nil, map[string]any, []any:
		default:
			return false
		}
		if p, has := m["params"]; has && p == nil {
			return false
		}
	}
	return true
}

// parseMessages reads the JSON-RPC messages of one frame: an object, or
// the objects of an array (a batch, or responses batched in one event).
func parseMessages(b []byte) []message {
	v, ok := decode(b)
	if !ok {
		return nil
	}
	var out []message
	for _, e := range elements(v) {
		if m, ok := messageOf(e); ok {
			out = append(out, m)
		}
	}
	return out
}

func elements(v any) []any {
	if arr, ok := v.([]any); ok {
		return arr
	}
	return []any{v}
}

func messageOf(v any) (message, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return message{}, false
	}
	var msg message
	msg.method, _ = m["method"].(string)
	var id any
	id, msg.hasID = m["id"]
	if msg.hasID {
		msg.key = transport.IDKey(id)
	}
	_, hasResult := m["result"]
	_, msg.isError = m["error"]
	msg.response = msg.method == "" && (hasResult || msg.isError)
	if r, ok := m["result"].(map[string]any); ok {
		msg.version, _ = r["protocolVersion"].(string)
	}
	return msg, msg.method != "" || msg.response
}

// Shapes of a JSON body.
const (
	shapeOther  = iota // not one JSON value (two objects, NDJSON, text)
	shapeObject        // one JSON object
	shapeArray         // one JSON array
)

// splitBody is a body's frames: one JSON value as it came (an array, a
// batch's answer, stays whole, as on stdio), else the whole body as one
// frame for the peer to judge; and the body's shape. A body of several
// JSON values (NDJSON) is that frame, MCP-HTTP-1's evidence, followed by
// each value as a message, so the response in it answers its request
// rather than the run failing for want of it.
func splitBody(b []byte) (frames [][]byte, shape int) {
	t := bytes.TrimSpace(b)
	v, ok := decode(t)
	if !ok {
		frames = [][]byte{b}
		if vs := jsonValues(t); len(vs) > 1 {
			frames = append(frames, vs...)
		}
		return frames, shapeOther
	}
	switch v.(type) {
	case map[string]any:
		return [][]byte{t}, shapeObject
	case []any:
		return [][]byte{t}, shapeArray
	}
	return [][]byte{t}, shapeOther
}

// jsonValues splits a body of JSON values one after another; nil when it
// is not only JSON values.
func jsonValues(b []byte) [][]byte {
	d := json.NewDecoder(bytes.NewReader(b))
	var out [][]byte
	for {
		var v json.RawMessage
		if err := d.Decode(&v); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			return nil
		}
		out = append(out, v)
	}
}
