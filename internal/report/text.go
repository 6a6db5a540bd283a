package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Most of what a report shows came from the server under test (messages,
// expected/actual excerpts, transcript lines), so every writer passes text
// through clean before its own format-specific escaping. clean is the
// format-independent half: it makes the text inert in a terminal and legal
// in XML 1.0, and keeps the evidence visible as escapes instead of
// dropping it, because "the server sent an ESC byte" is often the finding.

// Byte caps per kind of text. A hostile server can fill a finding with
// megabytes; a report must stay readable and bounded.
const (
	capLine       = 200      // a table cell or one-line field in the console
	capMessage    = 1 << 10  // a finding's message
	capEvidence   = 4 << 10  // expected / actual
	capEntry      = 512      // one transcript line in an excerpt
	capEntryLarge = 16 << 10 // one transcript line where space is not scarce (HTML, verbose)
)

// Transcript excerpt lengths: the tail of a failing finding's transcript is
// where the violation is, and a whole transcript can be thousands of lines.
const (
	tailConsole = 10
	tailJUnit   = 20
	tailDoc     = 50 // HTML and Markdown, which are read rather than scanned
	tailVerbose = 200
)

// clean escapes what a display must not interpret. With multiline, '\n' and
// '\t' are kept; otherwise they become `\n` and a space so the text stays on
// one line (a table cell). Everything else that is a control character,
// invalid UTF-8, or a character that reorders or hides text (bidi overrides,
// BOM, line separators) becomes a visible \x.. or \u.... escape. The result
// contains only characters legal in XML 1.0, so the JUnit writer relies on
// it as well.
func clean(s string, multiline bool) string {
	if isPlain(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\n':
			if multiline {
				b.WriteByte('\n')
			} else {
				b.WriteString(`\n`)
			}
		case r == '\t':
			if multiline {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		case r == '\r':
			// Kept visible: a stray CR is protocol evidence, and a raw one
			// would let a line overwrite itself in a terminal.
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hiddenRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain is the fast path: most text is printable ASCII.
func isPlain(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && !(multiline && (c == '\n' || c == '\t'))) {
			return false
		}
	}
	return true
}

// hiddenRune lists the characters that are valid UTF-8 but dangerous or
// invisible on display: C1 controls (U+009B is a one-byte CSI for some
// terminals), bidi controls (Trojan Source), separators that break lines
// where the reader sees none, the BOM, and the XML-illegal non-characters.
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// cut shortens s to at most max bytes on a rune boundary, with a marker
// saying how much was dropped. It works on the raw text, before clean, so
// the cap bounds what the server sent rather than its escaped size.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + truncMarker(len(s)-n)
}

func truncMarker(n int) string {
	return "… [" + strconv.Itoa(n) + " more bytes]"
}

// line is clean+cut for one-line fields.
func line(s string, max int) string { return clean(cut(s, max), false) }

// block is clean+cut for multi-line fields, with a trailing newline removed
// so writers control their own spacing.
func block(s string, max int) string {
	return strings.TrimRight(clean(cut(s, max), true), "\n")
}

// arrow is the one-character direction marker used in every text format.
func arrow(d transcript.Direction) string {
	switch d {
	case transcript.Sent:
		return "→"
	case transcript.Received:
		return "←"
	case transcript.Stderr:
		return "!"
	case transcript.Note:
		return "#"
	}
	return "?"
}

// tail returns the last n entries and how many were left out.
func tail(es []transcript.Entry, n int) ([]transcript.Entry, int) {
	if len(es) <= n {
		return es, 0
	}
	return es[len(es)-n:], len(es) - n
}

// entryLines renders transcript entries as "   12.3ms → text", with
// continuation lines of a multi-line frame indented under the text.
func entryLines(es []transcript.Entry, max int) []string {
	var out []string
	for _, e := range es {
		head := fmt.Sprintf("%9.1fms %s ", e.OffsetMS, arrow(e.Dir))
		text := block(e.Text, max)
		if e.Truncated > 0 {
			text += " … [recorder dropped " + strconv.Itoa(e.Truncated) + " bytes]"
		}
		pad := strings.Repeat(" ", utf8.RuneCountInString(head))
		for i, l := range strings.Split(text, "\n") {
			if i == 0 {
				out = append(out, head+l)
			} else {
				out = append(out, pad+l)
			}
		}
	}
	return out
}

// excerpt is the transcript tail as text plus its caption.
func excerpt(es []transcript.Entry, n, max int) (string, []string) {
	shown, _ := tail(es, n)
	return caption(len(shown), len(es)) + ":", entryLines(shown, max)
}

func caption(shown, total int) string {
	if shown < total {
		return fmt.Sprintf("Transcript (last %d of %d lines)", shown, total)
	}
	if total == 1 {
		return "Transcript (1 line)"
	}
	return fmt.Sprintf("Transcript (%d lines)", total)
}

// ruleRow is one line of the verdict table, shared by every writer.
type ruleRow struct {
	RuleGroup
	// Pass, Fail, Skip and Error count scenarios by the rule's verdict in
	// each; scenarios is how many there are.
	Pass, Fail, Skip, Error int
	scenarios               int
}

func rows(r *Report) []ruleRow {
	groups := r.ByRule()
	out := make([]ruleRow, 0, len(groups))
	// at is the place in best of each scenario ("scenario @ revision") of
	// the group at hand, best its decisive verdict's rank so far.
	at := map[string]int{}
	var best []int
	for _, g := range groups {
		row := ruleRow{RuleGroup: g}
		// A scenario may hold several findings of a rule (each distinct
		// failure message); the column counts scenarios, each by its
		// findings' verdict folded as RuleVerdict folds.
		clear(at)
		best = best[:0]
		for i := range g.Findings {
			f := &g.Findings[i]
			w := f.Where()
			j, ok := at[w]
			if !ok {
				j = len(best)
				at[w] = j
				best = append(best, len(verdict.Decisive))
			}
			best[j] = min(best[j], f.Verdict.Rank())
		}
		row.scenarios = len(best)
		for _, b := range best {
			switch b {
			case verdict.Pass.Rank():
				row.Pass++
			case verdict.Fail.Rank():
				row.Fail++
			case verdict.Error.Rank():
				row.Error++
			default:
				// A scenario of verdicts outside the contract only
				// folds to skip.
				row.Skip++
			}
		}
		out = append(out, row)
	}
	return out
}

// Scenarios is the scenario column: "3/3 pass", "1 fail of 4".
func (r ruleRow) Scenarios() string {
	n := r.scenarios
	switch r.Verdict {
	case verdict.Fail:
		return fmt.Sprintf("%d fail of %d", r.Fail, n)
	case verdict.Error:
		return fmt.Sprintf("%d error of %d", r.Error, n)
	case verdict.Pass:
		return fmt.Sprintf("%d/%d pass", r.Pass, n)
	}
	return fmt.Sprintf("%d/%d skip", r.Skip, n)
}

// seen says how often a finding's message was observed, when more than
// once: each distinct failure message is a finding of its own.
func seen(f Finding) string {
	if f.Count > 1 {
		return fmt.Sprintf(" (seen %d times)", f.Count)
	}
	return ""
}

// Failing is the findings that get an evidence block.
func (r ruleRow) Failing() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
			out = append(out, f)
		}
	}
	return out
}

// ruleTally counts rules by their folded verdict.
func ruleTally(rs []ruleRow) Summary {
	var s Summary
	for _, r := range rs {
		switch r.Verdict {
		case verdict.Pass:
			s.Pass++
		case verdict.Fail:
			s.Fail++
			if caused(r.Failing()) {
				s.Caused++
			}
		case verdict.Skip:
			s.Skip++
		case verdict.Error:
			s.Error++
		}
	}
	return s
}

// caused reports whether every failure among fs names a cause: a rule
// that failed only as the consequence of another.
func caused(fs []Finding) bool {
	n := 0
	for _, f := range fs {
		if f.Verdict == verdict.Fail {
			if f.Cause == "" {
				return false
			}
			n++
		}
	}
	return n > 0
}

// findingTally counts findings directly rather than trusting r.Summary,
// which a caller may have forgotten to Tally after editing findings.
func findingTally(r *Report) Summary {
	c := *r
	c.Tally()
	return c.Summary
}

// String counts independent failures as fail and the consequences of
// another rule's failure apart, so one cause reads as one failure.
func (s Summary) String() string {
	return fmt.Sprintf("%d pass, %s, %d skip, %d error", s.Pass, s.FailText(), s.Skip, s.Error)
}

// FailText is "N fail", and "(+M caused by another rule)" when some of
// the failures are consequences of another.
func (s Summary) FailText() string {
	if s.Caused == 0 {
		return fmt.Sprintf("%d fail", s.Fail)
	}
	return fmt.Sprintf("%d fail (+%d caused by another rule)", s.Fail-s.Caused, s.Caused)
}

// outcome is the run's overall verdict and the phrase naming the level it
// was judged at ("at level MUST"). An empty level ranks below MAY, so every
// failure counts: a report that does not say how it was judged is judged
// strictly.
func outcome(r *Report) (verdict, at string) {
	at = "at any level"
	if r.Level != "" {
		at = "at level " + line(string(r.Level), 16)
	}
	if r.Interrupted {
		// Neither PASS nor FAIL: the run did not finish, and nothing was
		// judged from the signal on.
		return "INTERRUPTED", "by " + line(orDefault(r.Signal, "a signal"), 16) + " before the run finished (nothing judged from then on), " + at
	}
	if n := r.NotStarted; n != nil {
		// Neither PASS nor FAIL: nothing was judged.
		return "NOT STARTED", line(n.Said(), capMessage) + "; the suite did not run (exit 3)"
	}
	if r.Failed(r.Level) {
		return "FAIL", at
	}
	if r.stale > 0 {
		return "FAIL", at + " (--baseline-strict: the baseline is stale)"
	}
	return "PASS", at
}

// duration renders duration_ms as "1.23s", "450ms", "2m5.4s".
func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return d.String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// started renders the start time, or "-" when the report has none.
func started(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.RFC3339)
}

// verdictLabel shouts the verdicts that need attention so they stand out
// without colour.
func verdictLabel(v verdict.Verdict) string {
	switch v {
	case verdict.Fail, verdict.Error:
		return strings.ToUpper(string(v))
	case verdict.Pass, verdict.Skip:
		return string(v)
	}
	return line(string(v), 16)
}

// Known reports whether every failing finding of the row is in the
// baseline: the rule failed, as before, and the failure does not fail the
// run. Every writer shows such a row as known rather than as a failure,
// so that a report whose exit code is 0 does not read red.
func (r ruleRow) Known() bool {
	failing := r.Failing()
	for _, f := range failing {
		if !f.Known {
			return false
		}
	}
	return len(failing) > 0
}

// label is the row's verdict as the tables print it: "known" for a
// failure the baseline knows.
func (r ruleRow) label() string {
	if r.Known() {
		return labelKnown
	}
	return verdictLabel(r.Verdict)
}

// labelKnown stands in for FAIL or ERROR where the baseline knows the
// failure; lower case, like the verdicts that need no attention now.
const labelKnown = "known"

// knownWhy is the phrase every writer puts beside a known failure: which
// baseline knows it, and that it does not fail the run.
func knownWhy(r *Report) string {
	if r.Baseline == "" {
		return "known failure (in the baseline): does not fail the run"
	}
	return "known failure (baseline " + line(r.Baseline, capLine) + "): does not fail the run"
}

// skipReasons are the distinct reasons the row's skipped findings give,
// each with the scenarios that gave it, one line each.
func (r ruleRow) skipReasons() []string {
	var order []string
	where := map[string][]string{}
	for _, f := range r.Findings {
		if f.Verdict != verdict.Skip {
			continue
		}
		msg := line(orDefault(f.Message, "no reason given"), capLine)
		if _, ok := where[msg]; !ok {
			order = append(order, msg)
		}
		where[msg] = append(where[msg], f.Where())
	}
	out := make([]string, 0, len(order))
	for _, m := range order {
		sc := where[m]
		if len(sc) > 3 {
			sc = append(sc[:3:3], fmt.Sprintf("%d more", len(where[m])-3))
		}
		out = append(out, m+" ("+line(strings.Join(sc, ", "), capLine)+")")
	}
	return out
}

// skipReason is the one reason a wholly skipped rule is counted under in
// the console's summary of skips: its first skipped finding's message.
func (r ruleRow) skipReason() string {
	for _, f := range r.Findings {
		if f.Verdict == verdict.Skip {
			return line(orDefault(f.Message, "no reason given"), capLine)
		}
	}
	return "no reason given"
}
