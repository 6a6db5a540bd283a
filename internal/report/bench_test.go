package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The end of a `run --revision all`: the five revisions' reports merged,
// the console's table made of the merge, the JSON report written. The
// benchmarks below run each against the way it was done before, in the
// same run, on reports the size of one against server-everything (1,900
// findings, 36 failures with their transcripts, 190 rules), check the
// two agree, and print x-before: the time over the before's.

var benchRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// benchParts are the revisions' reports of one run.
func benchParts() []*Report {
	var rules []verdict.Rule
	for i := range 190 {
		rules = append(rules, verdict.Rule{ID: fmt.Sprintf("MCP-RULE-%d", i), Level: verdict.Must,
			Title: "A rule of the protocol", Source: "https://modelcontextprotocol.io/specification § Lifecycle",
			Quote: "The server MUST respond with its own capabilities and information.", Document: "MCP"})
	}
	var parts []*Report
	for ri, rev := range benchRevisions {
		r := &Report{Tool: "wirecheck", Protocol: "mcp", Target: "http://127.0.0.1:3001/mcp",
			Started: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), DurationMS: 5000, Rules: rules}
		if ri == 0 {
			for _, id := range benchRevisions {
				r.Revisions = append(r.Revisions, Revision{ID: id, Negotiated: id, Judged: true})
			}
		}
		for i := range 370 {
			f := Finding{Rule: rules[(i*7)%len(rules)].ID, Level: verdict.Must, Verdict: verdict.Pass,
				Scenario: fmt.Sprintf("scenario-%d", i/6), Count: 1 + i%5, Revision: rev}
			if i%50 == 7 {
				f.Verdict, f.Message, f.Expected = verdict.Fail, "the answer is not valid", "a frame valid against the schema"
				f.Actual = `{"result":{"content":[{"type":"text","text":"<b>bold</b> & more"}]},"jsonrpc":"2.0","id":"wc-7"}`
				for j := range 40 {
					f.Transcript = append(f.Transcript, transcript.Entry{Seq: j, OffsetMS: 1600.125 + float64(j), Dir: transcript.Received,
						Text: fmt.Sprintf(`{"id":"wc-tools-call-%d","jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"message":"é\n"},"name":"echo"}}`, j), Scenario: f.Scenario})
				}
				f.Frames = []int{3, 9}
			}
			r.Findings = append(r.Findings, f)
		}
		for i := range 10 {
			r.Findings = append(r.Findings, Finding{Rule: rules[180+i].ID, Level: verdict.Must, Verdict: verdict.Skip,
				Scenario: "-", Message: "no scenario of this run observed the rule", Revision: rev})
		}
		parts = append(parts, r)
	}
	return parts
}

func merged(b *testing.B) *Report {
	rep, err := Merge(benchParts()...)
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

func BenchmarkWriteJSON(b *testing.B) {
	rep := merged(b)
	var ours, before bytes.Buffer
	if err := WriteJSON(&ours, rep); err != nil {
		b.Fatal(err)
	}
	if err := writeJSONBefore(&before, rep); err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(ours.Bytes(), before.Bytes()) {
		b.Fatal("WriteJSON differs from the before's")
	}
	b.SetBytes(int64(ours.Len()))
	var t, tb time.Duration
	for b.Loop() {
		start := time.Now()
		WriteJSON(io.Discard, rep)
		t += time.Since(start)
		start = time.Now()
		writeJSONBefore(io.Discard, rep)
		tb += time.Since(start)
	}
	b.ReportMetric(float64(t)/float64(tb), "x-before")
}

func BenchmarkMerge(b *testing.B) {
	parts := benchParts()
	ours, _ := Merge(parts...)
	if before := mergeBefore(parts); !reflect.DeepEqual(ours.Findings, before) {
		b.Fatal("Merge's findings differ from the before's")
	}
	var t, tb time.Duration
	for b.Loop() {
		start := time.Now()
		Merge(parts...)
		t += time.Since(start)
		start = time.Now()
		mergeBefore(parts)
		tb += time.Since(start)
	}
	b.ReportMetric(float64(t)/float64(tb), "x-before")
}

// BenchmarkTable makes what the console's table shows of a merged
// report: the rows (ByRule, each scenario's verdict) and each row's
// cells (Matrix).
func BenchmarkTable(b *testing.B) {
	rep := merged(b)
	table := func(rows []ruleRow, matrix func(RuleGroup) []Cell) (cells [][]Cell) {
		for _, r := range rows {
			cells = append(cells, matrix(r.RuleGroup))
		}
		return cells
	}
	ours, before := rows(rep), rowsBefore(rep)
	if !reflect.DeepEqual(ours, before) || !reflect.DeepEqual(table(ours, rep.Matrix), table(before, rep.matrixBefore)) {
		b.Fatal("the table differs from the before's")
	}
	var t, tb time.Duration
	for b.Loop() {
		start := time.Now()
		table(rows(rep), rep.Matrix)
		t += time.Since(start)
		start = time.Now()
		table(rowsBefore(rep), rep.matrixBefore)
		tb += time.Since(start)
	}
	b.ReportMetric(float64(t)/float64(tb), "x-before")
}

// writeJSONBefore is WriteJSON as it was: every finding copied, each
// encoded by encoding/json and indented.
func writeJSONBefore(w io.Writer, r *Report) error {
	c := *r
	c.Findings = make([]Finding, len(r.Findings))
	copy(c.Findings, r.Findings)
	for i := range c.Findings {
		if c.Findings[i].Transcript == nil {
			c.Findings[i].Transcript = []transcript.Entry{}
		}
	}
	findings := c.Findings
	c.Findings = []Finding{}
	var frame bytes.Buffer
	enc := json.NewEncoder(&frame)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return err
	}
	key := []byte("\n  \"findings\": ")
	at := bytes.Index(frame.Bytes(), key) + len(key)
	bw := bufio.NewWriter(w)
	bw.Write(frame.Bytes()[:at])
	bw.WriteString("[\n")
	for i := range findings {
		out, err := json.MarshalIndent(&findings[i], "    ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(out)
		if i < len(findings)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]")
	bw.Write(frame.Bytes()[at+len("[]"):])
	return bw.Flush()
}

// mergeBefore is what Merge did with the findings: appended into an
// array grown as it went, then copied into another without the repeated
// skips of rules not observed.
func mergeBefore(reports []*Report) []Finding {
	all := []Finding{}
	for _, r := range reports {
		all = append(all, r.Findings...)
	}
	observed, kept := map[[2]string]bool{}, map[[2]string]bool{}
	for _, f := range all {
		if f.Scenario != "-" {
			observed[[2]string{f.Revision, f.Rule}] = true
		}
	}
	out := all[:0:0]
	for _, f := range all {
		if k := [2]string{f.Revision, f.Rule}; f.Scenario == "-" && f.Verdict == verdict.Skip {
			if observed[k] || kept[k] {
				continue
			}
			kept[k] = true
		}
		out = append(out, f)
	}
	return out
}

func ruleVerdictBefore(fs []Finding) verdict.Verdict {
	seen := map[verdict.Verdict]bool{}
	for _, f := range fs {
		seen[f.Verdict] = true
	}
	for _, v := range []verdict.Verdict{verdict.Fail, verdict.Error, verdict.Pass, verdict.Skip} {
		if seen[v] {
			return v
		}
	}
	return verdict.Skip
}

func (r *Report) byRuleBefore() []RuleGroup {
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
			groups = append(groups, RuleGroup{Rule: verdict.Rule{ID: f.Rule, Level: f.Level}})
		}
		groups[i].Findings = append(groups[i].Findings, f)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Findings) > 0 {
			g.Verdict = ruleVerdictBefore(g.Findings)
			out = append(out, g)
		}
	}
	return out
}

func rowsBefore(r *Report) []ruleRow {
	groups := r.byRuleBefore()
	out := make([]ruleRow, 0, len(groups))
	for _, g := range groups {
		row := ruleRow{RuleGroup: g}
		var order []string
		byScenario := map[string][]Finding{}
		for _, f := range g.Findings {
			if _, ok := byScenario[f.Where()]; !ok {
				order = append(order, f.Where())
			}
			byScenario[f.Where()] = append(byScenario[f.Where()], f)
		}
		row.scenarios = len(order)
		for _, sc := range order {
			switch ruleVerdictBefore(byScenario[sc]) {
			case verdict.Pass:
				row.Pass++
			case verdict.Fail:
				row.Fail++
			case verdict.Skip:
				row.Skip++
			case verdict.Error:
				row.Error++
			}
		}
		out = append(out, row)
	}
	return out
}

func (r *Report) matrixBefore(g RuleGroup) []Cell {
	if len(r.Revisions) < 2 {
		return nil
	}
	by := map[string][]Finding{}
	for _, f := range g.Findings {
		by[f.Revision] = append(by[f.Revision], f)
	}
	cells := make([]Cell, len(r.Revisions))
	for i, rev := range r.Revisions {
		switch fs := by[rev.ID]; {
		case !rev.Judged:
			cells[i] = Cell{None: CellNotNegotiated}
		case len(fs) == 0:
			cells[i] = Cell{None: CellAbsent}
		default:
			cells[i] = Cell{Verdict: ruleVerdictBefore(fs)}
		}
	}
	return cells
}
