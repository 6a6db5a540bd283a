package report

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Baseline is a set of known failures (--baseline): a rule alone (any
// scenario) or a rule in one scenario. They are still reported, marked
// known, but do not fail the run.
type Baseline struct {
	file    string
	entries map[[2]string]bool
	used    map[[2]string]bool
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
	b := &Baseline{file: file, entries: map[[2]string]bool{}, used: map[[2]string]bool{}}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		rep, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
				b.entries[[2]string{f.Rule, f.Scenario}] = true
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
// that no longer fails, so a fixed bug leaves the baseline.
func (b *Baseline) Apply(rep *Report) {
	if b == nil {
		return
	}
	for i, f := range rep.Findings {
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
	var notes []string
	for k := range b.entries {
		if !b.used[k] {
			what := k[0]
			if k[1] != "" {
				what += " in " + k[1]
			}
			notes = append(notes, fmt.Sprintf("baseline %s: %s no longer fails; remove it from the baseline", b.file, what))
		}
	}
	sort.Strings(notes)
	rep.Notes = append(rep.Notes, notes...)
}
