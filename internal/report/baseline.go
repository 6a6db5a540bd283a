package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Baseline is a set of known failures (--baseline): a rule alone (any
// scenario) or a rule in one scenario. They are still reported, marked
// known, but do not fail the run.
type Baseline struct {
	// Strict (--baseline-strict) fails the run on an entry whose rule
	// was judged and no longer fails, so a baseline cannot rot.
	Strict bool

	file    string
	entries map[[2]string]bool
	used    map[[2]string]bool
	// at is where each entry was read: "FILE:LINE" for a text baseline,
	// the file for a JSON report.
	at map[[2]string]string
	// notes are said on every run (Apply): what the file held that
	// became no entry (an entry of another tool's baseline that maps to
	// no rule).
	notes []string
}

// NewBaseline is a baseline read from another format than wirecheck's
// own: its entries (a rule, any scenario when Scenario is ""), each with
// where it was read, and notes said on every run it is applied to.
func NewBaseline(file string, entries []BaselineEntry, notes []string) *Baseline {
	b := &Baseline{file: file, entries: map[[2]string]bool{}, used: map[[2]string]bool{}, at: map[[2]string]string{}, notes: notes}
	for _, e := range entries {
		k := [2]string{e.Rule, e.Scenario}
		b.entries[k] = true
		if _, ok := b.at[k]; !ok {
			b.at[k] = e.At
		}
	}
	return b
}

// BaselineEntry is one entry of a baseline and where it was read.
type BaselineEntry struct {
	Rule, Scenario, At string
}

// Entries are the baseline's entries, in the order of where they were
// read, so a check of them (certify's, against the rule catalogue) can
// name the file and line of one at fault.
func (b *Baseline) Entries() []BaselineEntry {
	if b == nil {
		return nil
	}
	out := make([]BaselineEntry, 0, len(b.entries))
	for k := range b.entries {
		out = append(out, BaselineEntry{Rule: k[0], Scenario: k[1], At: b.at[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return atLess(out[i].At, out[j].At)
		}
		return out[i].Rule+" "+out[i].Scenario < out[j].Rule+" "+out[j].Scenario
	})
	return out
}

// atLess orders "FILE:LINE" by line number rather than as text.
func atLess(a, b string) bool {
	na, _ := strconv.Atoi(a[strings.LastIndexByte(a, ':')+1:])
	nb, _ := strconv.Atoi(b[strings.LastIndexByte(b, ':')+1:])
	if na != nb {
		return na < nb
	}
	return a < b
}

// LoadBaseline reads a JSON report (its failing findings become the
// baseline) or a text file of "RULE [SCENARIO]" lines with # comments.
// No file ("") is no baseline: nil, which Apply takes as knowing nothing.
func LoadBaseline(file string) (*Baseline, error) {
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %v", err)
	}
	b := &Baseline{file: file, entries: map[[2]string]bool{}, used: map[[2]string]bool{}, at: map[[2]string]string{}}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		rep, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
				b.entries[[2]string{f.Rule, f.Scenario}] = true
				b.at[[2]string{f.Rule, f.Scenario}] = file
			}
		}
		return b, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) > 2 || !isRuleID(fields[0]) {
			return nil, fmt.Errorf("%s:%d: want 'RULE-ID [SCENARIO]', got %q", file, n, line)
		}
		k := [2]string{fields[0], ""}
		if len(fields) == 2 {
			k[1] = fields[1]
		}
		b.entries[k] = true
		if _, ok := b.at[k]; !ok {
			b.at[k] = fmt.Sprintf("%s:%d", file, n)
		}
	}
	return b, nil
}

func isRuleID(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || !strings.Contains(s, "-") {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Apply marks the known failures of rep and adds a note on each entry
// that no longer fails, so a fixed bug leaves the baseline. An entry
// whose rule this run did not judge (filtered out, or only skipped) is
// noted as such: it did not fail, but nothing says it is fixed either.
// Strict, an entry judged and no longer failing fails the run (Exit).
func (b *Baseline) Apply(rep *Report) {
	if b == nil {
		return
	}
	rep.Baseline = b.file
	judged := map[[2]string]bool{}
	for i, f := range rep.Findings {
		if f.Verdict == verdict.Pass {
			judged[[2]string{f.Rule, f.Scenario}] = true
			judged[[2]string{f.Rule, ""}] = true
		}
		if f.Verdict != verdict.Fail && f.Verdict != verdict.Error {
			continue
		}
		for _, k := range [][2]string{{f.Rule, f.Scenario}, {f.Rule, ""}} {
			if b.entries[k] {
				rep.Findings[i].Known = true
				b.used[k] = true
			}
		}
	}
	notes := append([]string(nil), b.notes...)
	for k := range b.entries {
		if b.used[k] {
			continue
		}
		what := k[0]
		if k[1] != "" {
			what += " in " + k[1]
		}
		switch {
		case !judged[k]:
			notes = append(notes, fmt.Sprintf("baseline %s: %s was not judged in this run", b.file, what))
		case b.Strict:
			rep.stale++
			notes = append(notes, fmt.Sprintf("baseline %s: %s no longer fails; remove it from the baseline (--baseline-strict fails the run)", b.file, what))
		default:
			notes = append(notes, fmt.Sprintf("baseline %s: %s no longer fails; remove it from the baseline", b.file, what))
		}
	}
	sort.Strings(notes)
	rep.Notes = append(rep.Notes, notes...)
}

// WriteBaseline writes rep's failures as a baseline file: one line per
// rule and scenario that failed or errored, the rule's title as a
// comment, so a reviewer sees what each line excuses.
func WriteBaseline(w io.Writer, rep *Report) error {
	titles := map[string]string{}
	for _, r := range rep.Rules {
		titles[r.ID] = r.Title
	}
	seen := map[[2]string]bool{}
	var keys [][2]string
	for _, f := range rep.Findings {
		k := [2]string{f.Rule, f.Scenario}
		if (f.Verdict == verdict.Fail || f.Verdict == verdict.Error) && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# known failures of %s (%s), from a report of %s\n", rep.Protocol, rep.Target, rep.Started.UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(bw, "# one line per failure: RULE SCENARIO  # title (wirecheck run --baseline FILE)\n")
	for _, k := range keys {
		line := k[0]
		if k[1] != "" && !strings.ContainsAny(k[1], " \t#") {
			line += " " + k[1]
		}
		if t := oneLine(titles[k[0]]); t != "" {
			line += "  # " + t
		}
		fmt.Fprintln(bw, line)
	}
	return bw.Flush()
}

// oneLine keeps a title on its line: a newline in it would start a line
// the baseline reader takes for an entry.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
