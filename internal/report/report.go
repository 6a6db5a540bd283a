// Package report holds the result of a run (findings grouped by rule) and
// the writers that render it: console, JSON, JUnit XML, HTML and Markdown.
//
// The JSON form is a contract that users' scripts depend on; its schema is
// schemas/report.schema.json. Field names must not change.
package report

import (
	"time"

	"github.com/wirecheck/wirecheck/internal/transcript"
)

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

// Level of a rule, as the source document states it.
type Level string

// RFC 2119 levels, strongest first.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	May    Level = "MAY"
)

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

// Finding is the verdict of one rule in one scenario, with its evidence.
type Finding struct {
	Rule       string             `json:"rule"`
	Level      Level              `json:"level"`
	Verdict    Verdict            `json:"verdict"`
	Scenario   string             `json:"scenario"`
	Message    string             `json:"message"`
	Expected   string             `json:"expected"`
	Actual     string             `json:"actual"`
	Transcript []transcript.Entry `json:"transcript"`
	// Count is how many times the rule was observed in this scenario with
	// this verdict (e.g. 12 frames validated); 0 is read as 1.
	Count int `json:"count,omitempty"`
	// Reproduce is the command line that runs this scenario again.
	Reproduce string `json:"reproduce,omitempty"`
	// Known marks a failure listed in the --baseline: still reported, but
	// it does not fail the run.
	Known bool `json:"known,omitempty"`
}

// Rule is the catalogue entry a report carries so that renderers can show
// titles and citations without loading the spec.
type Rule struct {
	ID     string `json:"id"`
	Level  Level  `json:"level"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

// Summary counts findings by verdict.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
}

// Report is the whole result of one run.
type Report struct {
	Tool       string    `json:"tool"`
	Version    string    `json:"version"`
	Protocol   string    `json:"protocol"`
	Target     string    `json:"target"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
	Summary    Summary   `json:"summary"`
	Findings   []Finding `json:"findings"`
	// Rules lists the catalogue entries the findings refer to, in catalogue
	// order, so renderers can group and title them.
	Rules []Rule `json:"rules,omitempty"`
	// Level is the --level the run was judged at.
	Level Level `json:"level,omitempty"`
	// Notes carries run-wide remarks (the target never started, the run was
	// interrupted, scenarios not run).
	Notes []string `json:"notes,omitempty"`
}

// Tally recomputes Summary from Findings.
func (r *Report) Tally() {
	r.Summary = Summary{}
	for _, f := range r.Findings {
		switch f.Verdict {
		case Pass:
			r.Summary.Pass++
		case Fail:
			r.Summary.Fail++
		case Skip:
			r.Summary.Skip++
		case Error:
			r.Summary.Error++
		}
	}
}

// RuleVerdict folds the findings of one rule across scenarios: any fail
// makes it fail, then error, then pass; skip only when nothing else.
func RuleVerdict(fs []Finding) Verdict {
	seen := map[Verdict]bool{}
	for _, f := range fs {
		seen[f.Verdict] = true
	}
	for _, v := range []Verdict{Fail, Error, Pass, Skip} {
		if seen[v] {
			return v
		}
	}
	return Skip
}

// Failed reports whether any finding at or above level failed or errored.
// Errors count: a harness that could not tell must not let a release through.
func (r *Report) Failed(level Level) bool {
	for _, f := range r.Findings {
		if (f.Verdict == Fail || f.Verdict == Error) && !f.Known && f.Level.Rank() >= level.Rank() {
			return true
		}
	}
	return false
}

// ByRule groups findings by rule ID, in the order of r.Rules, then any rule
// not in the catalogue in order of first appearance.
func (r *Report) ByRule() []RuleGroup {
	idx := map[string]int{}
	var groups []RuleGroup
	for _, ru := range r.Rules {
		idx[ru.ID] = len(groups)
		groups = append(groups, RuleGroup{Rule: ru})
	}
	for _, f := range r.Findings {
		i, ok := idx[f.Rule]
		if !ok {
			i = len(groups)
			idx[f.Rule] = i
			groups = append(groups, RuleGroup{Rule: Rule{ID: f.Rule, Level: f.Level}})
		}
		groups[i].Findings = append(groups[i].Findings, f)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Findings) > 0 {
			g.Verdict = RuleVerdict(g.Findings)
			out = append(out, g)
		}
	}
	return out
}

// RuleGroup is one row of the verdict table.
type RuleGroup struct {
	Rule     Rule
	Verdict  Verdict
	Findings []Finding
}
