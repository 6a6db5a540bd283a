package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ConsoleOptions tunes the terminal rendering.
type ConsoleOptions struct {
	// Color adds ANSI colours. Use ColorFor to decide it.
	Color bool
	// Verbose lists every finding under its rule, not only failing ones,
	// and shows longer transcript excerpts.
	Verbose bool
}

// The only escape sequences the console writer ever emits; every piece of
// report text goes through clean, which removes the ESC byte, so a server
// cannot add its own.
const (
	sgrReset = "\x1b[0m"
	sgrBold  = "\x1b[1m"
	sgrDim   = "\x1b[2m"
	sgrRed   = "\x1b[1;31m"
	sgrGreen = "\x1b[32m"
	sgrYell  = "\x1b[33m"
	sgrMag   = "\x1b[1;35m"
)

// IsTerminal reports whether f is a character device. It is the cheap,
// dependency-free test; /dev/null also passes it, which costs nothing
// because nobody reads the colour there.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

// ColorFor decides whether console output to f gets colour: only on a
// terminal, and never when NO_COLOR is set to a non-empty value
// (https://no-color.org) or TERM is "dumb".
func ColorFor(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(f)
}

type painter bool

func (p painter) paint(sgr, s string) string {
	if !p || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// row paints a row's label: a known failure in the colour of a skip,
// since it does not fail the run either.
func (p painter) row(r ruleRow, s string) string {
	if r.Known() {
		return p.paint(sgrYell, s)
	}
	return p.verdict(r.Verdict, s)
}

func (p painter) verdict(v verdict.Verdict, s string) string {
	switch v {
	case verdict.Pass:
		return p.paint(sgrGreen, s)
	case verdict.Fail:
		return p.paint(sgrRed, s)
	case verdict.Skip:
		return p.paint(sgrYell, s)
	case verdict.Error:
		return p.paint(sgrMag, s)
	}
	return s
}

// WriteConsole renders r for a terminal: a verdict table by rule, an
// evidence block for every failing finding, and a one-line summary ending
// in PASS or FAIL at the level the run was judged at.
func WriteConsole(w io.Writer, r *Report, opt ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	p := painter(opt.Color)
	rs := rows(r)

	target := "target " + line(r.Target, capLine)
	if r.Role == "client" && r.Client.String() != "" {
		target = "client " + line(r.Client.String(), capLine) + " · " + target
	}
	fmt.Fprintf(bw, "%s · %s · %s\n",
		p.paint(sgrBold, line(strings.TrimSpace(orDefault(r.Tool, "wirecheck")+" "+r.Version), capLine)),
		line(r.Protocol, capLine), target)
	fmt.Fprintf(bw, "started %s\n", started(r.Started))
	if r.Level != "" {
		fmt.Fprintf(bw, "judged at level %s: a failure at or above it fails the run (%s)\n", strings.ToUpper(string(r.Level)), LevelDefaults)
	}
	bw.WriteString("\n")

	writeTable(bw, p, r, rs, opt.Verbose)

	tailN, entryCap := tailConsole, capEntry
	if opt.Verbose {
		tailN, entryCap = tailVerbose, capEntryLarge
	}
	// Errors without evidence of their own (the target never started, a
	// scenario stopped early) repeat one cause across many rules: say it
	// once with the rules it hid, not once per rule.
	var causes []string
	hidden := map[string][]string{}
	for _, row := range rs {
		for _, f := range row.Failing() {
			if f.Verdict == verdict.Error && len(f.Transcript) == 0 && f.Expected == "" && f.Actual == "" {
				if _, seen := hidden[f.Message]; !seen {
					causes = append(causes, f.Message)
				}
				hidden[f.Message] = append(hidden[f.Message], row.Rule.ID+" ("+f.Where()+")")
				continue
			}
			writeFailure(bw, p, r, row.Rule, f, tailN, entryCap)
		}
	}
	for _, c := range causes {
		fmt.Fprintf(bw, "\n%s %d undecided\n  message:  %s\n  rules:    %s\n",
			p.verdict(verdict.Error, "──── "+verdictLabel(verdict.Error)), len(hidden[c]),
			indentRest(block(c, capMessage), "            "), indentRest(block(strings.Join(hidden[c], ", "), capMessage), "            "))
	}

	if len(r.Notes) > 0 {
		fmt.Fprintf(bw, "\n%s\n", p.paint(sgrBold, "Notes:"))
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "  - %s\n", indentRest(block(n, capMessage), "    "))
		}
	}

	word, level := outcome(r)
	fmt.Fprintf(bw, "\n%d rules: %s · findings: %s · %s\n",
		len(rs), ruleTally(rs), findingTally(r), duration(r.DurationMS))
	v := verdict.Pass
	if word == "FAIL" {
		v = verdict.Fail
	}
	fmt.Fprintf(bw, "%s %s%s\n", p.verdict(v, word), level, why(r, rs))
	return bw.Flush()
}

// writeTable prints a row per rule: its verdict, level and scenarios or,
// in a report of several revisions, its verdict in each.
func writeTable(w io.Writer, p painter, rep *Report, rs []ruleRow, verbose bool) {
	type cells struct {
		v                               verdict.Verdict
		verdict, id, level, scen, title string
		revs                            []Cell
	}
	// Without -v, the rules no scenario judged are counted below the
	// table rather than listed: against a server with few features they
	// are most of the catalogue (hundreds of lines in a run of a large protocol over
	// stdio) and would bury the rules that were judged.
	var shown []ruleRow
	var skipped []ruleRow
	for _, r := range rs {
		if !verbose && r.Verdict == verdict.Skip {
			skipped = append(skipped, r)
			continue
		}
		shown = append(shown, r)
	}
	rs = shown
	table := make([]cells, 0, len(rs))
	for _, r := range rs {
		table = append(table, cells{
			v:       r.Verdict,
			verdict: r.label(),
			id:      line(r.Rule.ID, 60),
			level:   line(string(r.Rule.Level), 16),
			scen:    r.Scenarios(),
			title:   line(r.Rule.Title, capLine),
			revs:    rep.Matrix(r.RuleGroup),
		})
	}
	wv, wi, wl, ws := width("VERDICT"), width("RULE"), width("LEVEL"), width("SCENARIOS")
	for _, c := range table {
		wv = max(wv, width(c.verdict))
		wi = max(wi, width(c.id))
		wl = max(wl, width(c.level))
		ws = max(ws, width(c.scen))
	}
	middle := pad("SCENARIOS", ws)
	if len(rep.Revisions) > 1 {
		heads := make([]string, len(rep.Revisions))
		for i, rev := range rep.Revisions {
			heads[i] = pad(line(rev.ID, 16), max(5, width(line(rev.ID, 16))))
		}
		middle = strings.Join(heads, "  ")
	}
	fmt.Fprintln(w, p.paint(sgrBold, fmt.Sprintf("%s  %s  %s  %s  TITLE",
		pad("VERDICT", wv), pad("RULE", wi), pad("LEVEL", wl), middle)))
	for i, c := range table {
		// Pad before painting: escape codes take no room on screen.
		mid := pad(c.scen, ws)
		if c.revs != nil {
			parts := make([]string, len(c.revs))
			for j, cell := range c.revs {
				wd := max(5, width(line(rep.Revisions[j].ID, 16)))
				if cell.None != "" {
					parts[j] = p.paint(sgrDim, pad(cell.Label(), wd))
				} else {
					parts[j] = p.verdict(cell.Verdict, pad(cell.Label(), wd))
				}
			}
			mid = strings.Join(parts, "  ")
		}
		row := fmt.Sprintf("%s  %s  %s  %s  %s",
			p.row(rs[i], pad(c.verdict, wv)), pad(c.id, wi), pad(c.level, wl), mid, c.title)
		fmt.Fprintln(w, strings.TrimRight(row, " "))
		if !verbose {
			continue
		}
		for _, f := range rs[i].Findings {
			var extra string
			if f.Count > 1 {
				extra = fmt.Sprintf(" ×%d", f.Count)
			}
			if f.Said() != "" {
				extra += "  " + line(f.Said(), capLine)
			}
			fmt.Fprintf(w, "%s  %s %s%s\n", strings.Repeat(" ", wv),
				p.verdict(f.Verdict, pad(verdictLabel(f.Verdict), 5)), line(f.Where(), capLine), extra)
		}
	}
	if len(rep.Revisions) > 1 {
		fmt.Fprintln(w, p.paint(sgrDim, "  "+legend("   ")))
	}
	writeSkipped(w, p, skipped)
}

// maxSkipReasons bounds the reasons listed under the count of skipped
// rules; -v lists every rule with its own.
const maxSkipReasons = 8

// writeSkipped is what the console says, without -v, of the rules no
// scenario judged: one line counting them by level, then the reasons the
// MUST rules among them were skipped, one line per distinct reason with
// how many rules it covers. A MUST rule not judged is a gap in what the
// run certifies, and its reason ("HTTP only; this run is over stdio")
// usually says which run would close it; the reasons repeat across rules,
// so a line per reason says as much as a line per rule, in a few lines
// rather than dozens. SHOULD and MAY skips are only counted.
func writeSkipped(w io.Writer, p painter, skipped []ruleRow) {
	if len(skipped) == 0 {
		return
	}
	byLevel := map[verdict.Level]int{}
	var levels []string
	var reasons []string
	count := map[string]int{}
	for _, r := range skipped {
		byLevel[r.Rule.Level]++
		if r.Rule.Level != verdict.Must {
			continue
		}
		why := r.skipReason()
		if count[why] == 0 {
			reasons = append(reasons, why)
		}
		count[why]++
	}
	order := slices.Clone(verdict.Levels)
	for _, r := range skipped {
		// A level this version does not know (a merged report's), or none.
		if !slices.Contains(order, r.Rule.Level) {
			order = append(order, r.Rule.Level)
		}
	}
	for _, l := range order {
		if n := byLevel[l]; n > 0 {
			levels = append(levels, fmt.Sprintf("%d %s", n, line(orDefault(string(l), "no level"), 16)))
		}
	}
	// The reason covering the most rules first; ties keep the table's order.
	sort.SliceStable(reasons, func(i, j int) bool { return count[reasons[i]] > count[reasons[j]] })
	head := fmt.Sprintf("skipped: %d %s (%s) not judged by this run; -v lists each with its reason", len(skipped),
		plural(len(skipped), "rule", "rules"), strings.Join(levels, ", "))
	if len(reasons) > 0 {
		head += ". The MUST ones:"
	}
	fmt.Fprintln(w, p.verdict(verdict.Skip, head))
	for i, why := range reasons {
		if i == maxSkipReasons {
			fmt.Fprintf(w, "  … and %d more %s (-v)\n", len(reasons)-i, plural(len(reasons)-i, "reason", "reasons"))
			break
		}
		fmt.Fprintf(w, "  %3d  %s\n", count[why], why)
	}
}

func writeFailure(w io.Writer, p painter, rep *Report, ru verdict.Rule, f Finding, tailN, entryCap int) {
	head := p.verdict(f.Verdict, "──── "+verdictLabel(f.Verdict))
	if f.Known {
		head = p.paint(sgrYell, "──── "+labelKnown+" "+verdictLabel(f.Verdict))
	}
	fmt.Fprintf(w, "\n%s %s %s — %s\n",
		head, p.paint(sgrBold, line(ru.ID, capLine)), line(string(ru.Level), 16), line(ru.Title, capLine))
	if f.Known {
		fmt.Fprintf(w, "  baseline: %s\n", knownWhy(rep))
	}
	if ru.Source != "" {
		fmt.Fprintf(w, "  source:   %s\n", citation(ru))
	}
	if q := quote(ru); q != "" {
		fmt.Fprintf(w, "  quote:    %s\n", q)
	}
	fmt.Fprintf(w, "  scenario: %s%s\n", line(f.Where(), capLine), seen(f))
	if f.Said() != "" {
		fmt.Fprintf(w, "  message:  %s\n", indentRest(block(f.Said(), capMessage), "            "))
	}
	if f.Expected != "" {
		fmt.Fprintf(w, "  Expected:\n%s\n", indent(block(f.Expected, capEvidence), "    "))
	}
	if f.Actual != "" {
		fmt.Fprintf(w, "  Actual:\n%s\n", indent(block(f.Actual, capEvidence), "    "))
	}
	if len(f.Transcript) > 0 {
		caption, lines := excerpt(f.Transcript, tailN, entryCap)
		fmt.Fprintf(w, "  %s\n", caption)
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", p.paint(sgrDim, l))
		}
	}
	if f.Reproduce != "" {
		fmt.Fprintf(w, "  Reproduce: %s\n", line(f.Reproduce, capMessage))
	}
}

// why explains the verdict line, so that a PASS next to failing SHOULD
// rules or known failures, or a FAIL caused only by errors, does not look
// like a bug.
func why(rep *Report, rs []ruleRow) string {
	if rep.NotStarted != nil {
		// Every rule's error is a scenario not run: outcome says why.
		return ""
	}
	level := rep.Level
	var above, below, known int
	for _, r := range rs {
		if r.Verdict != verdict.Fail && r.Verdict != verdict.Error {
			continue
		}
		// A rule's findings may carry a level when the catalogue does not.
		failed, excused := false, false
		for _, f := range r.Failing() {
			if f.Level.Rank() >= level.Rank() {
				if f.Known {
					excused = true
				} else {
					failed = true
				}
			}
		}
		switch {
		case failed:
			above++
		case excused:
			known++
		default:
			below++
		}
	}
	var parts []string
	if above > 0 {
		parts = append(parts, fmt.Sprintf("%d %s failed or errored at or above it", above, plural(above, "rule", "rules")))
	}
	if known > 0 {
		in := "the baseline"
		if rep.Baseline != "" {
			in += " " + line(rep.Baseline, capLine)
		}
		parts = append(parts, fmt.Sprintf("%d %s failed as %s knows, which does not fail the run", known, plural(known, "rule", "rules"), in))
	}
	if below > 0 {
		parts = append(parts, fmt.Sprintf("%d %s failed below it", below, plural(below, "rule", "rules")))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func width(s string) int { return utf8.RuneCountInString(s) }

func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// indent prefixes every line, including the first.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// indentRest prefixes every line but the first, for text that follows a
// label on the same line.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
