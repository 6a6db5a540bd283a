package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// Variants are legal choices a correct server may make where the
// specification allows more than one (specs/mcp.yaml variants: says which
// sentence allows each). The reference server takes them on request so
// the suite is proven to accept every one.

func (s *server) v(name string) bool { return s.variants[name] }

// pageSize is the number of items per page of a list: one with the
// variant one-per-page, so every list is paginated.
func (s *server) pageSize(n int) int {
	if s.v("one-per-page") {
		return 1
	}
	return n
}

// bareRefused reports whether the variant bare (tools only, no optional
// capability) refuses a method of a capability it does not declare.
func (s *server) bareRefused(method string) bool {
	if !s.v("bare") {
		return false
	}
	for _, p := range []string{"resources/", "prompts/", "logging/", "completion/"} {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// served is the _meta the variant meta-everywhere adds to its results
// and notifications (basic/index#meta: implementations may attach
// metadata under their own prefix).
func (s *server) served(m obj) obj {
	if !s.v("meta-everywhere") {
		return m
	}
	meta, _ := m["_meta"].(obj)
	if meta == nil {
		meta = obj{}
		m["_meta"] = meta
	}
	meta["com.example.wirecheck/served-by"] = "reference"
	return m
}

// trace writes what the server reads to stderr (variant stderr-logs).
func (s *server) trace(method string, id any) {
	if s.v("stderr-logs") {
		fmt.Fprintf(s.log, "DEBUG handling %s (id %v)\n", method, id)
	}
}

// invalidID is the id an Invalid Request error carries: the request's
// where it can be read, null always with the variant invalid-request-null-id
// (JSON-RPC 2.0 §5: "If there was an error in detecting the id in the
// Request object (e.g. Parse error/Invalid Request), it MUST be Null").
func (s *server) invalidID(m obj) any {
	if s.v("invalid-request-null-id") {
		return nil
	}
	return readableID(m)
}

// randomToken is 64 random bits in hex (variant random-ids): an id no
// other run makes.
func randomToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
