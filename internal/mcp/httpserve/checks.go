package httpserve

import "github.com/wirecheck/wirecheck/internal/verdict"

// The checks this transport decides about the client under test, reported
// through transport.Hooks.Check as a server-role transport reports its own
// (internal/mcp/httpmcp/checks.go). A spec's client rules name them in
// `checks:`.
const (
	// CheckAcceptPost: a POST's Accept lists both application/json and
	// text/event-stream.
	CheckAcceptPost = "http.client-accept-post"
	// CheckAcceptGet: a GET's Accept lists text/event-stream.
	CheckAcceptGet = "http.client-accept-get"
	// CheckContentType: a POST's body is labelled application/json.
	CheckContentType = "http.client-content-type"
	// CheckSessionID: every request after initialize carries the session
	// id wirecheck assigned.
	CheckSessionID = "http.client-session-id"
	// CheckVersionHeader: every request after initialize carries
	// MCP-Protocol-Version (from 2026-07-28 on: every POST, equal to the
	// body's _meta revision).
	CheckVersionHeader = "http.client-version-header"
	// CheckVersionNegotiated: that header names the negotiated revision.
	CheckVersionNegotiated = "http.client-version-negotiated"
	// CheckMetadataHeaders: Mcp-Method (and Mcp-Name where required)
	// mirror the body (2026-07-28, request metadata).
	CheckMetadataHeaders = "http.client-metadata-headers"
	// CheckDelete: a session the client leaves is ended with DELETE.
	// Judged when the listener closes: only then is the client done.
	CheckDelete = "http.client-delete"
	// CheckResumes: a stream wirecheck broke before its response is
	// resumed with GET and Last-Event-ID.
	CheckResumes = "http.client-resumes"
	// CheckRetry: that reconnection waits at least the retry field's time.
	CheckRetry = "http.client-retry"
	// CheckReinitialize: after a 404 for its session id the client starts
	// a new session with an initialize that carries no session id.
	CheckReinitialize = "http.client-reinitialize"
)

func init() {
	for _, c := range []string{CheckDelete, CheckResumes, CheckRetry, CheckReinitialize} {
		verdict.Register(c, "")
	}
	// Judged on every request: a report counts their failures.
	for _, c := range []string{CheckAcceptPost, CheckContentType, CheckSessionID, CheckVersionHeader, CheckVersionNegotiated, CheckMetadataHeaders} {
		verdict.Register(c, "requests")
	}
	verdict.Register(CheckAcceptGet, "GETs")
}
