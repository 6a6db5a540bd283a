package httpmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
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

func classify(b []byte) outgoing {
	if !wellFormed(b) {
		return outgoing{kind: kindInvalid}
	}
	one := func(e []byte) (outgoing, members, bool) {
		m, ok := membersOf(e)
		if !ok {
			return outgoing{kind: kindInvalid}, m, false
		}
		method, _ := decodeString(m.method)
		hasID := m.id != nil
		switch {
		case method != "" && hasID && !isNull(m.id):
			return outgoing{kind: kindRequest, method: method, key: idKey(m.id)}, m, true
		case method != "" && !hasID:
			return outgoing{kind: kindNotification, method: method}, m, true
		case method == "" && hasID && (!isNull(m.result) || !isNull(m.error)):
			return outgoing{kind: kindNotification}, m, true
		}
		return outgoing{kind: kindInvalid}, m, false
	}
	t := bytes.TrimSpace(b)
	if t[0] == '[' {
		o := outgoing{kind: kindNotification, batch: true}
		elems := elementsOf(t)
		if len(elems) == 0 {
			return outgoing{kind: kindInvalid, batch: true}
		}
		for _, e := range elems {
			m, _, ok := one(e)
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
	o, m, _ := one(t)
	if o.kind == kindRequest {
		o.keys = []string{o.key}
	}
	o.revision, _ = decodeString(member(member(m.params, "_meta"), metaVersion))
	return o
}

// valid reports whether a body sent is well-formed JSON-RPC: UTF-8 (JSON
// text is), every message an object tagged "jsonrpc": "2.0" that
// classify recognised, its id (if any) a string, number or null, its
// params (if any) an object or array (JSON-RPC 2.0 §4, §4.2). Schema
// validity of the params is not asked: those are valid messages a server
// may answer with an error.
func valid(o outgoing, b []byte) bool {
	if o.kind == kindInvalid || !utf8.Valid(b) || !wellFormed(b) {
		return false
	}
	for _, e := range elementsOf(b) {
		m, _ := membersOf(e)
		if v, ok := decodeString(m.jsonrpc); !ok || v != "2.0" {
			return false
		}
		if !isNull(m.id) && m.id[0] != '"' && m.id[0] != '-' && (m.id[0] < '0' || m.id[0] > '9') {
			return false
		}
		if m.params != nil && m.params[0] != '{' && m.params[0] != '[' {
			return false
		}
	}
	return true
}

// parseMessages reads the JSON-RPC messages of one frame: an object, or
// the objects of an array (a batch, or responses batched in one event).
func parseMessages(b []byte) []message {
	if !wellFormed(b) {
		return nil
	}
	var out []message
	for _, e := range elementsOf(b) {
		if m, ok := messageOf(e); ok {
			out = append(out, m)
		}
	}
	return out
}

// messageOf reads one message of a well-formed frame.
func messageOf(e []byte) (message, bool) {
	m, ok := membersOf(e)
	if !ok {
		return message{}, false
	}
	var msg message
	msg.method, _ = decodeString(m.method)
	if msg.hasID = m.id != nil; msg.hasID {
		msg.key = idKey(m.id)
	}
	msg.isError = m.error != nil
	msg.response = msg.method == "" && (m.result != nil || msg.isError)
	msg.version, _ = decodeString(member(m.result, "protocolVersion"))
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
	if !wellFormed(t) {
		frames = [][]byte{b}
		if vs := jsonValues(t); len(vs) > 1 {
			frames = append(frames, vs...)
		}
		return frames, shapeOther
	}
	switch t[0] {
	case '{':
		return [][]byte{t}, shapeObject
	case '[':
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
