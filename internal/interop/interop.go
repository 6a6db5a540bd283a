// Package interop runs the MCP suite against real MCP servers nobody here
// wrote, installed at pinned versions from their registries (see
// test/interop/ and .ci/run), and compares what wirecheck finds with the
// findings recorded, and explained, in testdata/ and docs/mcp-interop.md.
package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Pinned versions of the real servers. Change them together with
// test/interop/package.json, .ci/run and the expected findings.
const (
	ServerEverythingVersion = "2026.8.31"
	GoSDKModule             = "github.com/modelcontextprotocol/go-sdk"
	GoSDKVersion            = "v1.8.0"
	GoSDKEverything         = GoSDKModule + "/examples/server/everything@" + GoSDKVersion
)

// Root is the repository's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Finding is one recorded deviation: a rule that failed in a scenario.
type Finding struct {
	Rule     string `json:"rule"`
	Scenario string `json:"scenario"`
	Verdict  string `json:"verdict"`
}

func (f Finding) String() string { return fmt.Sprintf("%s %s in %s", f.Verdict, f.Rule, f.Scenario) }

// Expected is a testdata file: the server, its version, and every finding
// wirecheck reports against it (each explained in docs/mcp-interop.md).
type Expected struct {
	Server   string    `json:"server"`
	Version  string    `json:"version"`
	Findings []Finding `json:"findings"`
}

// Load reads testdata/<name>.json.
func Load(name string) (*Expected, error) {
	b, err := os.ReadFile(filepath.Join(Root(), "internal", "interop", "testdata", name+".json"))
	if err != nil {
		return nil, err
	}
	var e Expected
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("testdata/%s.json: %w", name, err)
	}
	return &e, nil
}

// Failures lists a report's failed and errored findings, sorted, each
// rule, scenario and verdict once: a rule that fails twice in a scenario
// (two messages) is one deviation to record.
func Failures(rep *report.Report) []Finding {
	var out []Finding
	seen := map[Finding]bool{}
	for _, f := range rep.Findings {
		x := Finding{Rule: f.Rule, Scenario: f.Scenario, Verdict: string(f.Verdict)}
		if (f.Verdict == verdict.Fail || f.Verdict == verdict.Error) && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	Sort(out)
	return out
}

// Sort orders findings by rule, then scenario.
func Sort(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Rule != fs[j].Rule {
			return fs[i].Rule < fs[j].Rule
		}
		return fs[i].Scenario < fs[j].Scenario
	})
}
