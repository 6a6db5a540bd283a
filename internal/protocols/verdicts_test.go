package protocols_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The verdict record (testdata/verdicts.txt) holds, for every run of the
// tables in faults_test.go, every rule whose verdict is not pass, with
// that verdict. It proves a change to the engine, the suites or the
// reference servers leaves every verdict as it was: each spec compares
// its run with the record. After a change meant to alter verdicts, and
// only after examining every line it changes, rewrite it with
//
//	UPDATE_VERDICTS=1 go test ./internal/protocols
//
// (a focused run rewrites only the runs it made).
const verdictFile = "testdata/verdicts.txt"

var updateVerdicts = os.Getenv("UPDATE_VERDICTS") != ""

// notStarted stands in the record for a run whose server never started.
const notStarted = "(not started)"

// allPass stands in the record for a run in which every rule passed.
const allPass = "(all pass)"

// verdictRows is a run's line in the verdict table: each rule not
// passing with its verdict, sorted.
func verdictRows(out outcome) []string {
	var rows []string
	if errors.Is(out.err, testrun.ErrNotStarted) {
		rows = append(rows, notStarted)
	}
	if out.rep != nil {
		for _, g := range out.rep.ByRule() {
			// A rule of another transport is skipped by the spec, not by
			// the server or the engine: recording it in every run would
			// only repeat the spec.
			if g.Verdict == verdict.Skip && offTransport(out.rep.Protocol, g.Rule.ID, out.over) {
				continue
			}
			if g.Verdict != verdict.Pass {
				rows = append(rows, verdictRow(g))
			}
		}
	}
	sort.Strings(rows)
	if len(rows) == 0 {
		rows = []string{allPass}
	}
	return rows
}

// verdictRow is a rule's row: its ID and verdict, and, when every failure
// of it is the consequence of another rule's (spec consequence-of), the
// rule that caused it: "SONDE-GEN-SURVIVE fail caused by
// SONDE-GEN-NON-OBJECT".
func verdictRow(g report.RuleGroup) string {
	row := g.Rule.ID + " " + string(g.Verdict)
	if g.Verdict != verdict.Fail {
		return row
	}
	var causes []string
	for _, f := range g.Findings {
		if f.Verdict != verdict.Fail {
			continue
		}
		if f.Cause == "" {
			return row
		}
		if !slices.Contains(causes, f.Cause) {
			causes = append(causes, f.Cause)
		}
	}
	if len(causes) == 0 {
		return row
	}
	slices.Sort(causes)
	return row + " caused by " + strings.Join(causes, ", ")
}

// offTransport reports whether a rule of a protocol does not hold on the
// transport a run went over ("": the protocol's first).
func offTransport(protocol, rule, over string) bool {
	b, err := protocols.Load(protocol)
	if err != nil {
		return false
	}
	if over == "" && len(b.Protocol.Transports) > 0 {
		over = b.Protocol.Transports[0]
	}
	r := b.Protocol.Rule(rule)
	return r != nil && !r.AppliesOn(over)
}

var (
	recordMu sync.Mutex
	recorded = map[string][]string{}
)

// readVerdicts reads the record: key | row, one row a line.
func readVerdicts() (map[string][]string, error) {
	f, err := os.Open(verdictFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, row, ok := strings.Cut(line, " | ")
		if !ok {
			return nil, fmt.Errorf("%s:%d: no ' | ' between the run and its row", verdictFile, n)
		}
		out[key] = append(out[key], row)
	}
	return out, sc.Err()
}

// expectRecorded compares a run's verdicts with the record, or notes
// them for writeVerdicts under UPDATE_VERDICTS.
func expectRecorded(r run, out outcome) {
	got := verdictRows(out)
	if updateVerdicts {
		recordMu.Lock()
		recorded[r.String()] = got
		recordMu.Unlock()
		return
	}
	want, err := theRecord()
	Expect(err).NotTo(HaveOccurred())
	expectSame(want, r, out)
}

// theRecord is the record as read once: every spec of the tables compares
// with it, and reading its 20,000 lines again for each of 600 specs cost
// some seconds of CPU under -race.
var theRecord = sync.OnceValues(readVerdicts)

// expectSame fails unless a run's verdicts are those the record holds.
func expectSame(record map[string][]string, r run, out outcome) {
	want, ok := record[r.String()]
	if !Expect(ok).To(BeTrue(), "%s has no line for run %q: run with UPDATE_VERDICTS=1", verdictFile, r) {
		return
	}
	got := verdictRows(out)
	Expect(got).To(Equal(want), "the verdicts of run %q changed from %s:\n%s", r, verdictFile, changed(out.rep, want, got))
}

// changed shows the evidence of each rule whose verdict changed.
func changed(rep *report.Report, want, got []string) string {
	var b strings.Builder
	in := func(rows []string, row string) bool {
		for _, r := range rows {
			if r == row {
				return true
			}
		}
		return false
	}
	for _, row := range got {
		if !in(want, row) {
			fmt.Fprintf(&b, "+ %s\n", row)
		}
	}
	for _, row := range want {
		if !in(got, row) {
			fmt.Fprintf(&b, "- %s\n", row)
		}
	}
	if rep != nil {
		for _, g := range rep.ByRule() {
			if in(got, verdictRow(g)) != in(want, verdictRow(g)) {
				b.WriteString(findings(rep, g.Rule.ID, verdict.Fail, verdict.Error, verdict.Skip))
			}
		}
	}
	return b.String()
}

// writeVerdicts rewrites the record under UPDATE_VERDICTS: the runs made
// now replace their lines, the others keep theirs, and lines of runs the
// tables no longer make go.
func writeVerdicts() {
	if !updateVerdicts {
		return
	}
	old, err := readVerdicts()
	Expect(err == nil || errors.Is(err, os.ErrNotExist)).To(BeTrue(), "reading %s: %v", verdictFile, err)
	var b strings.Builder
	b.WriteString(`# Every rule not passing, with its verdict, in every run of a reference
# server the tables of faults_test.go make: protocol, revision, what is
# switched on | rule and verdict. Compared by every spec of those tables;
# rewritten by UPDATE_VERDICTS=1 go test ./internal/protocols (see
# verdicts_test.go), after examining every line the rewrite changes.
`)
	for _, r := range runs.registered() {
		rows, ok := recorded[r.String()]
		if !ok {
			rows = old[r.String()]
		}
		for _, row := range rows {
			fmt.Fprintf(&b, "%s | %s\n", r, row)
		}
	}
	Expect(os.MkdirAll(filepath.Dir(verdictFile), 0o755)).To(Succeed())
	Expect(os.WriteFile(verdictFile, []byte(b.String()), 0o644)).To(Succeed())
}
