package verdict

// Built-in checks a spec's rules can name in `checks:`. Each is decided by
// the peer on every frame or by the runner around every scenario, for every
// protocol alike; the spec decides which rule (and so which level and
// citation) a check stands for in that protocol (spec.Protocol.RulesForCheck).
const (
	// CheckJSON: every stdout line is exactly one complete JSON value in
	// UTF-8 (not empty, not cut off, not over the line cap).
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
)

// Checks is the catalogue of built-in checks; a spec naming another is
// refused when it loads.
var Checks = map[string]bool{
	CheckJSON: true, CheckKnown: true, CheckOneResponse: true, CheckNoStray: true,
	CheckIDEcho: true, CheckIDType: true, CheckEventInFlight: true, CheckTimely: true,
	CheckExitOnEOF: true, CheckSurvives: true,
}
