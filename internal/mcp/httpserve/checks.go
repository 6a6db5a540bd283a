package httpserve

import "github.com/wirecheck/wirecheck/internal/verdict"

// The checks this transport decides about the client under test, reported
// through transport.Hooks.Check as a server-role transport reports its own
// (internal/mcp/httpmcp/checks.go). A spec's client rules name them in
// `checks:`.
const (
	// CheckAcceptPost: a POST's Accept lists both application/json and
	// text/event-stream.
	CheckAcceptPost = "client-http.accept-post"
	// CheckAcceptGet: a GET's Accept lists text/event-stream.
	CheckAcceptGet = "client-http.accept-get"
	// CheckSessionID: every request after initialize carries the session
	// id wirecheck assigned.
	CheckSessionID = "client-http.session-id"
	// CheckVersionHeader: every request after initialize carries
	// MCP-Protocol-Version (from 2026-07-28 on: every POST, equal to the
	// body's _meta revision).
	CheckVersionHeader = "client-http.version-header"
	// CheckVersionNegotiated: that header names the negotiated revision.
	CheckVersionNegotiated = "client-http.version-negotiated"
	// CheckMetadataHeaders: Mcp-Method (and Mcp-Name where required)
	// mirror the body (2026-07-28, request metadata).
	CheckMetadataHeaders = "client-http.metadata-headers"
	// CheckParamHeaders: a tools/call of a tool listed with x-mcp-header
	// annotations mirrors each argument with a value into its Mcp-Param
	// header (2026-07-28).
	CheckParamHeaders = "client-http.param-headers"
	// CheckParamEncoding: a mirrored value that cannot travel plain is
	// Base64-encoded in the sentinel form.
	CheckParamEncoding = "client-http.param-encoding"
	// CheckParamNull: a null argument is not mirrored.
	CheckParamNull = "client-http.param-null"
	// CheckDelete: a session the client leaves is ended with DELETE.
	// Judged when the listener closes: only then is the client done.
	CheckDelete = "client-http.delete"
	// CheckResumes: a stream wirecheck broke before its response is
	// resumed with GET and Last-Event-ID.
	CheckResumes = "client-http.resumes"
	// CheckRetry: that reconnection waits at least the retry field's time.
	CheckRetry = "client-http.retry"
	// CheckReinitialize: after a 404 for its session id the client starts
	// a new session with an initialize that carries no session id.
	CheckReinitialize = "client-http.reinitialize"
)

func init() {
	for _, c := range []string{CheckDelete, CheckResumes, CheckRetry, CheckReinitialize} {
		verdict.Register(c, "")
	}
	// Judged on every request: a report counts their failures.
	for _, c := range []string{CheckAcceptPost, CheckSessionID, CheckVersionHeader, CheckVersionNegotiated, CheckMetadataHeaders, CheckParamHeaders, CheckParamEncoding, CheckParamNull} {
		verdict.Register(c, "requests")
	}
	verdict.Register(CheckAcceptGet, "GETs")
}
