// Package verdict is the vocabulary every other package judges in: the
// verdict of a rule, the level a document states it at, an observation of
// one rule on the wire, and the built-in checks a spec's rules may name.
// It imports nothing of wirecheck's, so the spec, the peer, the scenarios,
// the runner, the fuzzer and the report writers all speak it without
// importing one another.
package verdict

// Verdict of one rule in one scenario.
type Verdict string

// The four verdicts. Error means the harness itself could not tell (the
// server died before the rule could be observed, a fixture could not run).
const (
	Pass  Verdict = "pass"
	Fail  Verdict = "fail"
	Skip  Verdict = "skip"
	Error Verdict = "error"
)

// Decisive is the four verdicts in the order that decides a fold of
// several (a rule's over its scenarios, a cell's, a tally's counts):
// the first present wins.
var Decisive = [...]Verdict{Fail, Error, Pass, Skip}

// Rank is v's place in Decisive, len(Decisive) for a verdict outside the
// contract (which decides nothing).
func (v Verdict) Rank() int {
	switch v {
	case Fail:
		return 0
	case Error:
		return 1
	case Pass:
		return 2
	case Skip:
		return 3
	}
	return len(Decisive)
}

// Level of a rule, as the source document states it.
type Level string

// RFC 2119 levels, strongest first.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	May    Level = "MAY"
)

// Levels lists the valid rule levels, strongest first.
var Levels = []Level{Must, Should, May}

// Rank orders levels: MUST is 3, SHOULD 2, MAY 1, anything else 0.
func (l Level) Rank() int {
	switch l {
	case Must:
		return 3
	case Should:
		return 2
	case May:
		return 1
	}
	return 0
}

// Observation is one judgement of one rule: what the peer saw on a frame,
// or what a scenario concluded from an exchange.
type Observation struct {
	Rule     string
	Verdict  Verdict
	Scenario string
	Message  string
	Expected string
	Actual   string
	// Seq is the transcript line the evidence is on, or -1: the frame the
	// judgement is about (the reply with the wrong id, not the probe's
	// reply after it; the request that went unanswered).
	Seq int
	// Unanswered is set when the judgement is that the request on line
	// Seq got no answer: how long it was waited for ("10s"), which a
	// report shows on that request.
	Unanswered string
}

// Observer receives observations; the peer calls it from its reader
// goroutine and scenarios from theirs, so it must be safe for both.
type Observer func(Observation)

// Rule is the catalogue entry of a rule as a report carries it, so that
// renderers show titles and citations without loading the spec.
type Rule struct {
	ID     string `json:"id"`
	Level  Level  `json:"level"`
	Title  string `json:"title"`
	Source string `json:"source"`
	// Quote is the sentence of the document the rule tests, so every
	// report shows what a finding is judged against.
	Quote string `json:"quote,omitempty"`
	// Document is the human title of the document Source cites ("the
	// sonde-serve protocol document"); Source keeps the file's name.
	Document string `json:"document,omitempty"`
}
