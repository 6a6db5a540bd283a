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
)

// Counted are the checks judged once per stream whose failures a report
// counts rather than repeats: a rule deciding one has one finding per
// scenario and failure message, "N of M <unit> <message>", so a check's
// failure message is a predicate of the unit ("had no … header") and
// names the stream in its actual value. Register adds to it.
var Counted = map[string]string{}

// Checks is the catalogue of built-in checks; a spec naming another is
// refused when it loads. The engine's own are here; a module adds the
// checks its transports decide with Register.
var Checks = map[string]bool{
	CheckJSON: true, CheckKnown: true, CheckOneResponse: true, CheckNoStray: true,
	CheckIDEcho: true, CheckIDType: true, CheckEventInFlight: true, CheckTimely: true,
	CheckExitOnEOF: true, CheckSurvives: true,
}

// Register adds a check a module decides (a transport's, through
// transport.Hooks.Check) to Checks; a non-empty unit makes it Counted,
// judged once per unit ("streams"). It is called from a package's init,
// before any spec loads; a name registered twice is a programming error.
func Register(name, unit string) {
	if Checks[name] {
		panic("verdict: check " + name + " registered twice")
	}
	Checks[name] = true
	if unit != "" {
		Counted[name] = unit
	}
}
