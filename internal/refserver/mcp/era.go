package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
)

// What a server of 2026-07-28 only does with the traffic of an older
// Streamable HTTP client (basic/transports/streamable-http.mdx, Earlier
// Streamable HTTP Revisions): "HTTP GET or DELETE to the MCP endpoint:
// respond with `405 Method Not Allowed`", "An `Mcp-Session-Id` header on a
// request: ignore it, and do not mint or echo session IDs", "A
// `Last-Event-ID` header: ignore it; streams are not resumable." The
// reference server serves every revision (dual-era, which those sentences
// do not bind), and chooses to tell that traffic by the revision it names:
// a GET or DELETE whose MCP-Protocol-Version is 2026-07-28, a POST whose
// _meta names it. With the variant modern-only it is a server of
// 2026-07-28 only: it refuses initialize and answers every GET and DELETE
// 405. The faults that break those sentences are such a server, for the
// sentences to bind it.

// modernOnly: the variant modern-only, and the faults that break the
// sentences of a server of 2026-07-28 only (no-version-header-served: a
// server answering initialize supports older clients, which may serve a
// request without MCP-Protocol-Version).
func (f *Front) modernOnly() bool {
	return f.variants["modern-only"] || f.faults["modern-get-stream"] || f.faults["modern-session-checked"] || f.faults["modern-last-event-id-refused"] ||
		f.faults["no-version-header-served"]
}

// modernVerbRefused answers 405 to a GET or DELETE naming 2026-07-28 (any
// GET or DELETE when modern-only) and reports whether it did. The fault
// modern-get-stream serves them as a 2025 server does (a GET stream;
// DELETE without a session id 400); the variant dual-era-legacy-verbs
// answers them by its 2025 leg too, refusing one without a session id 400.
func (f *Front) modernVerbRefused(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodPost || f.faults["modern-get-stream"] {
		return false
	}
	named := discovers(r.Header.Get("MCP-Protocol-Version"))
	if named && f.variants["dual-era-legacy-verbs"] {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return false
		}
		http.Error(w, "Bad Request: Mcp-Session-Id header is required", http.StatusBadRequest)
		return true
	}
	if !named && !f.modernOnly() {
		return false
	}
	w.Header().Set("Allow", "POST")
	http.Error(w, "Method Not Allowed: revision 2026-07-28 has no GET stream and no sessions", http.StatusMethodNotAllowed)
	return true
}

// initializeRefused answers an initialize 400 with an
// UnsupportedProtocolVersionError naming 2026-07-28 when the server is of
// that revision only, and reports whether it did (basic/versioning: "A
// server that supports only modern versions SHOULD name the protocol
// versions it supports in any error it returns to an initialize request";
// the request lacks the headers of the revision, refused 400).
func (f *Front) initializeRefused(w http.ResponseWriter, msg message, body []byte) bool {
	if msg.method != "initialize" || msg.kind != "request" || !f.modernOnly() {
		return false
	}
	f.writeJSON(w, http.StatusBadRequest, initializeRefusal(msg.key, body))
	return true
}

// initializeRefusal is the error a server of 2026-07-28 only answers an
// initialize with: -32022, naming the revision it supports and the one
// asked for.
func initializeRefusal(key string, body []byte) []byte {
	var req struct {
		Params struct {
			ProtocolVersion any `json:"protocolVersion"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	b, _ := json.Marshal(obj{"jsonrpc": "2.0", "id": json.RawMessage(key), "error": obj{"code": -32022, "message": "Unsupported protocol version: this server speaks 2026-07-28 only, without initialize",
		"data": obj{"supported": []any{discoverRev()}, "requested": req.Params.ProtocolVersion}}})
	return b
}

// ignoresSession says whether a POST's Mcp-Session-Id is ignored: it
// names 2026-07-28, unless the fault modern-session-checked looks the id
// up as a 2025 server does.
func (f *Front) ignoresSession(msg message) bool {
	return msg.modern && !f.faults["modern-session-checked"]
}

// lastEventIDRefused is the fault modern-last-event-id-refused: a
// 2026-07-28 POST carrying Last-Event-ID refused 400, as if the header
// asked for a resumption. It reports whether it refused.
func (f *Front) lastEventIDRefused(w http.ResponseWriter, r *http.Request, msg message) bool {
	if !f.faults["modern-last-event-id-refused"] || !msg.modern || r.Header.Get("Last-Event-ID") == "" {
		return false
	}
	http.Error(w, "Bad Request: streams are not resumable", http.StatusBadRequest)
	return true
}

// versionRefusedPlain is the fault version-refused-plain: a 2026-07-28
// request whose _meta names a revision the server does not implement is
// refused 400 with a plain-text body, no UnsupportedProtocolVersionError
// (as mcp-go v1.2.1 does). It reports whether it refused.
func (f *Front) versionRefusedPlain(w http.ResponseWriter, msg message, body []byte) bool {
	if !f.faults["version-refused-plain"] || !msg.modern || msg.kind != "request" {
		return false
	}
	if m, ok := mcpheader.Read(body); !ok || discovers(m.Revision) {
		return false
	}
	http.Error(w, "Unsupported protocol version", http.StatusBadRequest)
	return true
}
