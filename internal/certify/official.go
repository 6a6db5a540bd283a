package certify

import (
	"fmt"
	"os"

	"github.com/wirecheck/wirecheck/internal/officialsuite"
	"github.com/wirecheck/wirecheck/internal/report"
)

// loadBaseline reads --baseline: wirecheck's own formats (report), or the
// official MCP suite's expected-failures file, told apart by its server:
// or client: key. The suite's server: entries become the rules its
// table (internal/officialsuite, docs/official-suite.md) maps them to,
// any scenario; an entry that maps to no rule is returned in unmapped,
// and noted on every run.
func loadBaseline(file, protocol string) (b *report.Baseline, unmapped []string, err error) {
	if file == "" {
		return nil, nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil || !officialsuite.IsExpectedFailures(data) {
		b, err := report.LoadBaseline(file)
		return b, nil, err
	}
	if protocol != "mcp" {
		return nil, nil, fmt.Errorf("--baseline %s: an expected-failures file of the official MCP suite applies to --protocol mcp only", file)
	}
	entries, err := officialsuite.ExpectedFailures(data)
	if err != nil {
		return nil, nil, fmt.Errorf("--baseline %s: %v", file, err)
	}
	var known []report.BaselineEntry
	var notes []string
	for _, e := range entries {
		at := fmt.Sprintf("%s:%d", file, e.Line)
		rules := officialsuite.Rules(e.Scenario, e.Check)
		if len(rules) == 0 {
			u := fmt.Sprintf("%s: %s maps to no wirecheck rule: %s (docs/official-suite.md)", at, e, officialsuite.Unmapped(e.Scenario, e.Check))
			unmapped = append(unmapped, u)
			notes = append(notes, "baseline "+u)
			continue
		}
		for _, r := range rules {
			known = append(known, report.BaselineEntry{Rule: r, At: at})
		}
	}
	return report.NewBaseline(file, known, notes), unmapped, nil
}
