package httpmcp

import (
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The HTTP transports' checks, decided by the transport below the peer
// (transport.Hooks.Check) on every exchange. They are MCP's, not the
// engine's: init registers them with verdict, so a spec's rules may name
// them in `checks:` once this package is linked in (internal/protocols
// imports it).
const (
	// CheckHTTPAccepted: a POST carrying only a notification or a response
	// is answered 202 Accepted with no body.
	CheckHTTPAccepted = "http.accepted"
	// CheckHTTPRefusedStatus: input the server does not accept is refused
	// with an HTTP error status, not a 2xx carrying a JSON-RPC error.
	CheckHTTPRefusedStatus = "http.refused-status"
	// CheckHTTPContentType: a POST carrying a request is answered
	// application/json (one JSON object) or text/event-stream.
	CheckHTTPContentType = "http.content-type"
	// CheckHTTPStreamHasResponse: a request's SSE stream carries its
	// response (or a resumption of it does).
	CheckHTTPStreamHasResponse = "http.stream-has-response"
	// CheckHTTPStreamCloses: a request's SSE stream ends after its response.
	CheckHTTPStreamCloses = "http.stream-closes"
	// CheckHTTPGetStream: GET on the endpoint opens an SSE stream or is
	// answered 405.
	CheckHTTPGetStream = "http.get-stream"
	// CheckHTTPGetNoResponse: no JSON-RPC response on a GET stream that
	// resumes nothing.
	CheckHTTPGetNoResponse = "http.get-no-response"
	// CheckHTTPOneStream: each message on one stream only (no broadcast).
	CheckHTTPOneStream = "http.one-stream"
	// CheckHTTPEventIDUnique: event ids unique across a session's streams.
	CheckHTTPEventIDUnique = "http.event-id-unique"
	// CheckHTTPSessionID: an Mcp-Session-Id is visible ASCII (0x21–0x7E).
	CheckHTTPSessionID = "http.session-id"
	// CheckHTTPNoRequest: no server-initiated JSON-RPC request on a stream
	// where the revision forbids them.
	CheckHTTPNoRequest = "http.no-request"
	// CheckHTTPXAccel: an SSE response carries X-Accel-Buffering: no.
	CheckHTTPXAccel = "http.xaccel"
	// CheckHTTPPriming: a POST's SSE stream opens with an id and empty data.
	CheckHTTPPriming = "http.priming"
	// CheckHTTPRetry: a connection closed before the response sent retry:.
	CheckHTTPRetry = "http.retry"
	// CheckSSEStream: GET on the legacy SSE URL opens an event stream
	// (2xx, text/event-stream).
	CheckSSEStream = "sse.stream"
	// CheckSSEEndpoint: the legacy stream's first event is `endpoint`,
	// holding a URI (MCP-SSE-2, a MUST).
	CheckSSEEndpoint = "sse.endpoint"
	// CheckSSEEndpointOrigin: that URI is on the stream's origin
	// (MCP-SSE-3, a SHOULD drawn from silence): an endpoint elsewhere
	// still is "an endpoint event containing a URI", so it must not fail
	// the MUST of CheckSSEEndpoint.
	CheckSSEEndpointOrigin = "sse.endpoint-origin"
	// CheckSSEMessageEvent: legacy server messages come as `message` events.
	CheckSSEMessageEvent = "sse.message-event"
	// CheckSSEPostAccepted: a valid message POSTed to the legacy endpoint
	// is accepted (2xx).
	CheckSSEPostAccepted = "sse.post-accepted"
)

func init() {
	for _, c := range []string{
		CheckHTTPAccepted, CheckHTTPRefusedStatus, CheckHTTPContentType,
		CheckHTTPStreamHasResponse, CheckHTTPStreamCloses, CheckHTTPGetStream,
		CheckHTTPGetNoResponse, CheckHTTPOneStream, CheckHTTPEventIDUnique,
		CheckHTTPSessionID, CheckHTTPNoRequest, CheckHTTPRetry,
		CheckSSEEndpoint, CheckSSEEndpointOrigin, CheckSSEMessageEvent, CheckSSEStream, CheckSSEPostAccepted,
	} {
		verdict.Register(c, "")
	}
	// Judged once per stream: a report counts their failures.
	verdict.Register(CheckHTTPPriming, "SSE streams")
	verdict.Register(CheckHTTPXAccel, "SSE streams")
}
