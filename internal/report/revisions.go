package report

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Revision is one column of a run over several revisions of a protocol
// (run --revision all): the revision wirecheck asked for and what the
// server agreed to.
type Revision struct {
	ID string `json:"id"`
	// Negotiated is the revision the server agreed to when asked for ID
	// ("" where the suite could not tell, or the run never reached the
	// handshake).
	Negotiated string `json:"negotiated,omitempty"`
	// Judged is false when the server answered ID with another revision
	// of the run: that revision's column judges it, and this one holds no
	// findings. A server need support only the revisions it claims.
	Judged bool `json:"judged"`
}

// Where names the scenario of a finding, with its revision in a report
// of several.
func (f Finding) Where() string {
	if f.Revision == "" {
		return f.Scenario
	}
	return f.Scenario + " @ " + f.Revision
}

// Cell is a rule's verdict in one revision: its verdict when the
// revision judged it, else why there is none.
type Cell struct {
	Verdict verdict.Verdict
	// None, when set, is why the cell holds no verdict: "absent" (the
	// rule is not part of the revision), "not negotiated" (the server
	// speaks another revision instead).
	None string
}

// Label is the cell as the tables print it.
func (c Cell) Label() string {
	switch c.None {
	case "":
		return verdictLabel(c.Verdict)
	case CellAbsent:
		return "·"
	}
	return "—"
}

// Why the cell of a rule × revision matrix holds no verdict.
const (
	CellAbsent        = "absent"
	CellNotNegotiated = "not negotiated"
)

// Why says what a cell without a verdict means ("" for one with a
// verdict): the tooltip of the HTML cell, and with its label the legend
// under every matrix.
func (c Cell) Why() string {
	switch c.None {
	case "":
		return ""
	case CellAbsent:
		return "the rule is not part of the revision"
	}
	return "the server negotiated another revision instead"
}

// legend explains the cells without a verdict, sep between the two.
func legend(sep string) string {
	a, n := Cell{None: CellAbsent}, Cell{None: CellNotNegotiated}
	return a.Label() + " " + a.Why() + sep + n.Label() + " " + n.Why()
}

// Matrix is the rule × revision table of a report of several revisions:
// the cells of a rule group, one per column of r.Revisions. It is nil for
// a report of one revision.
func (r *Report) Matrix(g RuleGroup) []Cell {
	if len(r.Revisions) < 2 {
		return nil
	}
	cells := make([]Cell, len(r.Revisions))
	for i, rev := range r.Revisions {
		if !rev.Judged {
			cells[i] = Cell{None: CellNotNegotiated}
			continue
		}
		// The column's verdict folded as RuleVerdict folds, without a
		// copy of its findings.
		best, seen := len(verdict.Decisive), false
		for j := range g.Findings {
			if f := &g.Findings[j]; f.Revision == rev.ID {
				seen = true
				best = min(best, f.Verdict.Rank())
			}
		}
		switch {
		case !seen:
			cells[i] = Cell{None: CellAbsent}
		case best == len(verdict.Decisive):
			cells[i] = Cell{Verdict: verdict.Skip}
		default:
			cells[i] = Cell{Verdict: verdict.Decisive[best]}
		}
	}
	return cells
}

// RevisionNote says what a column that holds no verdicts means.
func (rev Revision) Note() string {
	switch {
	case rev.Judged:
		return ""
	case rev.Negotiated != "":
		return fmt.Sprintf("asked for %s, the server negotiated %s: the %s column judges it", rev.ID, rev.Negotiated, rev.Negotiated)
	}
	return fmt.Sprintf("asked for %s, the server negotiated another revision", rev.ID)
}
