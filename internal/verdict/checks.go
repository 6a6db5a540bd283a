package verdict

// Built-in checks a spec's rules can name in `checks:`. Each is decided by
// the peer on every frame or by the runner around every scenario, for every
// protocol alike; the spec decides which rule (and so which level and
// citation) a check stands for in that protocol (spec.Protocol.RulesForCheck).
const (
	// CheckJSON: every stdout line is exactly one complete JSON value in
	// UTF-8 (not empty, not cut off); one over the cap (--max-frame) is not judged.
	CheckJSON = "ndjson.json"
	// CheckKnown: every frame is a protocol frame (classifies as a kind).
	CheckKnown = "frame.known"
	// CheckOneResponse: each request gets exactly one final response.
	CheckOneResponse = "rpc.one-response"
	// CheckNoStray: no response for a request that was never sent.
	CheckNoStray = "rpc.no-stray"
	// CheckIDEcho: a response carries the id of the request it answers.
	CheckIDEcho = "rpc.id-echo"
	// CheckIDType: the id is echoed with the same JSON type (7 stays 7).
	CheckIDType = "rpc.id-type"
	// CheckEventInFlight: events only for a request in flight, before its
	// final response.
	CheckEventInFlight = "rpc.event-in-flight"
	// CheckTimely: every request is answered within --timeout.
	CheckTimely = "rpc.timely"
	// CheckExitOnEOF: the server exits, with status 0, when stdin closes.
	CheckExitOnEOF = "proc.exit-on-eof"
	// CheckSurvives: the server is still alive and answering after a scenario
	// that sent it bad input.
	CheckSurvives = "proc.survives"

	// The HTTP transports' checks, decided by the transport below the peer
	// (transport.Hooks.Check) on every exchange.

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

// Counted are the checks judged once per stream whose failures a report
// counts rather than repeats: a rule deciding one has one finding per
// scenario and failure message, "N of M <unit> <message>", so a check's
// failure message is a predicate of the unit ("had no … header") and
// names the stream in its actual value.
var Counted = map[string]string{
	CheckHTTPPriming: "SSE streams",
	CheckHTTPXAccel:  "SSE streams",
}

// Checks is the catalogue of built-in checks; a spec naming another is
// refused when it loads.
var Checks = map[string]bool{
	CheckJSON: true, CheckKnown: true, CheckOneResponse: true, CheckNoStray: true,
	CheckIDEcho: true, CheckIDType: true, CheckEventInFlight: true, CheckTimely: true,
	CheckExitOnEOF: true, CheckSurvives: true,
	CheckHTTPAccepted: true, CheckHTTPRefusedStatus: true, CheckHTTPContentType: true,
	CheckHTTPStreamHasResponse: true, CheckHTTPStreamCloses: true, CheckHTTPGetStream: true,
	CheckHTTPGetNoResponse: true, CheckHTTPOneStream: true, CheckHTTPEventIDUnique: true,
	CheckHTTPSessionID: true, CheckHTTPNoRequest: true, CheckHTTPXAccel: true,
	CheckHTTPPriming: true, CheckHTTPRetry: true, CheckSSEEndpoint: true,
	CheckSSEEndpointOrigin: true, CheckSSEMessageEvent: true, CheckSSEStream: true, CheckSSEPostAccepted: true,
}
