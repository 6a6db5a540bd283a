// Package report holds the result of a run (findings grouped by rule) and
// the writers that render it: console, JSON, JUnit XML, HTML and Markdown.
//
// The JSON form is a contract that users' scripts depend on; its schema is
// schemas/report.schema.json. Field names must not change.
package report

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Finding is the verdict of one rule in one scenario, with its evidence.
type Finding struct {
	Rule       string             `json:"rule"`
	Level      verdict.Level      `json:"level"`
	Verdict    verdict.Verdict    `json:"verdict"`
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
	// Revision is the protocol revision the finding was judged by, in a
	// report of several (run --revision all); empty otherwise.
	Revision string `json:"revision,omitempty"`
	// Cause names the rule whose failure in the same scenario this
	// failure is a consequence of (the spec's consequence-of: a crash
	// after bad input fails the rule about that input, and the survival
	// rule names it). The finding is still a failure of its own rule at
	// its own level, so it gates the exit code as before; it is not a
	// second independent failure (Summary.Caused, "caused by RULE").
	Cause string `json:"cause,omitempty"`
	// Frames are the transcript lines (Entry.Seq) the finding is about:
	// the frames its observations judged, which a report marks.
	Frames []int `json:"frames,omitempty"`
	// Unanswered is set when the finding is that the request on Frames got
	// no answer: how long it was waited for ("10s").
	Unanswered string `json:"unanswered,omitempty"`
}

// Said is the finding's message as the text writers show it: with the
// rule it is a consequence of.
func (f Finding) Said() string {
	if f.Cause == "" {
		return f.Message
	}
	if f.Message == "" {
		return "caused by " + f.Cause
	}
	return f.Message + " (caused by " + f.Cause + ")"
}

// Summary counts findings by verdict.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
	// Caused counts the failures among Fail that name a Cause: Fail less
	// Caused is the number of independent failures.
	Caused int `json:"caused,omitempty"`
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
	Rules []verdict.Rule `json:"rules,omitempty"`
	// Level is the --level the run was judged at.
	Level verdict.Level `json:"level,omitempty"`
	// Notes carries run-wide remarks (the target never started, the run was
	// interrupted, scenarios not run).
	Notes []string `json:"notes,omitempty"`
	// Revisions are the columns of a run over several revisions of the
	// protocol (run --revision all), in the protocol's order; empty for a
	// run of one.
	Revisions []Revision `json:"revisions,omitempty"`
	// Interrupted marks a run a signal ended before it finished (Ctrl-C,
	// a CI job's timeout): nothing was judged from the signal on, so what
	// was under way or not yet run has no verdict, and Signal names the
	// signal (SIGINT, SIGTERM).
	Interrupted bool   `json:"interrupted,omitempty"`
	Signal      string `json:"signal,omitempty"`
	// NotStarted, set, says the run never began (exit 3), and why: the
	// console shows it as its one block (NotReady) instead of a table.
	NotStarted *NotStarted `json:"not_started,omitempty"`
	// Baseline is the file of known failures (--baseline) the findings
	// marked known come from, so that every writer can say which file
	// excuses them.
	Baseline string `json:"baseline,omitempty"`
	// Server, Revision and Documents say what the report certifies (see
	// certificate.go): the server as it names itself, the protocol
	// revision a run of one judged it by, and the documents the rules
	// cite, each pinned by its hash.
	Server   *Server `json:"server,omitempty"`
	Revision string  `json:"revision,omitempty"`
	// Role is "client" for a run that checked a client (run --role
	// client: wirecheck played its server), absent for a server; Client
	// is then the client as it named itself (a handshake's client info),
	// in place of Server. Protocol stays the id of the rules judged (the
	// client role's module).
	Role      string     `json:"role,omitempty"`
	Client    *Server    `json:"client,omitempty"`
	Documents []Document `json:"documents,omitempty"`

	// stale counts the baseline entries a strict baseline found judged
	// and no longer failing (Baseline.Apply); Exit fails the run on them.
	stale int
}

// NotStarted is why a run never began, as the JSON report states it.
type NotStarted struct {
	// State is "not-started" (the command could not be run), "not-ready"
	// (it ran and never became ready) or "unreachable" (a running server,
	// --url alone, that no connection reached).
	State string `json:"state"`
	// Reason is the cause in plain words.
	Reason string `json:"reason"`
	// Awaited is what wirecheck waited for.
	Awaited string `json:"awaited,omitempty"`
	// Check is what to check or try, when the evidence points at it.
	Check string `json:"check,omitempty"`
}

// Said is the run's end in a sentence: what happened to the server, and
// why.
func (n *NotStarted) Said() string { return n.said("server") }

// notStartedSaid is Said of r's NotStarted, naming the target by r's role.
func (r *Report) notStartedSaid() string {
	if r.Role == "client" {
		return r.NotStarted.said("client")
	}
	return r.NotStarted.Said()
}

func (n *NotStarted) said(who string) string {
	what := "could not be started"
	switch n.State {
	case "unreachable":
		what = "could not be reached"
	case "not-ready":
		what = "never became ready"
	}
	return "the " + who + " " + what + ": " + n.Reason
}

// Interrupt marks r as ended by signal (SIGINT, SIGTERM) after it had run
// for after, and says in a note what that means for its verdicts.
func (r *Report) Interrupt(signal string, after time.Duration) {
	r.Interrupted, r.Signal = true, signal
	r.Notes = append(r.Notes, fmt.Sprintf("interrupted by %s %s into the run: nothing was judged from then on (what was under way or not yet run has no verdict); exit %d",
		signal, after.Round(time.Millisecond), InterruptCode(signal)))
}

// Tally recomputes Summary from Findings.
func (r *Report) Tally() {
	r.Summary = Summary{}
	for _, f := range r.Findings {
		switch f.Verdict {
		case verdict.Pass:
			r.Summary.Pass++
		case verdict.Fail:
			r.Summary.Fail++
			if f.Cause != "" {
				r.Summary.Caused++
			}
		case verdict.Skip:
			r.Summary.Skip++
		case verdict.Error:
			r.Summary.Error++
		}
	}
}

// RuleVerdict folds the findings of one rule across scenarios: any fail
// makes it fail, then error, then pass; skip only when nothing else.
func RuleVerdict(fs []Finding) verdict.Verdict {
	best := len(verdict.Decisive)
	for i := range fs {
		if r := fs[i].Verdict.Rank(); r < best {
			if best = r; r == 0 {
				break
			}
		}
	}
	if best == len(verdict.Decisive) {
		return verdict.Skip
	}
	return verdict.Decisive[best]
}

// Failed reports whether any finding at or above level failed or errored.
// Errors count: a harness that could not tell must not let a release through.
func (r *Report) Failed(level verdict.Level) bool {
	for _, f := range r.Findings {
		if (f.Verdict == verdict.Fail || f.Verdict == verdict.Error) && !f.Known && f.Level.Rank() >= level.Rank() {
			return true
		}
	}
	return false
}

// ByRule groups findings by rule ID, in the order of r.Rules, then any rule
// not in the catalogue in order of first appearance. The groups' findings
// are copies, in one array (each group's slice capped at its own).
func (r *Report) ByRule() []RuleGroup {
	idx := make(map[string]int, len(r.Rules))
	groups := make([]RuleGroup, 0, len(r.Rules))
	for _, ru := range r.Rules {
		idx[ru.ID] = len(groups)
		groups = append(groups, RuleGroup{Rule: ru})
	}
	// Each finding's group, and the size of each group, first.
	of := make([]int32, len(r.Findings))
	size := make([]int, len(groups), len(groups)+8)
	for j := range r.Findings {
		f := &r.Findings[j]
		i, ok := idx[f.Rule]
		if !ok {
			i = len(groups)
			idx[f.Rule] = i
			groups = append(groups, RuleGroup{Rule: verdict.Rule{ID: f.Rule, Level: f.Level}})
			size = append(size, 0)
		}
		of[j] = int32(i)
		size[i]++
	}
	all := make([]Finding, len(r.Findings))
	at := 0
	for i := range groups {
		groups[i].Findings = all[at : at : at+size[i]]
		at += size[i]
	}
	for j := range r.Findings {
		g := &groups[of[j]]
		g.Findings = append(g.Findings, r.Findings[j])
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
	Rule     verdict.Rule
	Verdict  verdict.Verdict
	Findings []Finding
}
