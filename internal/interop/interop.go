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

// Finding is one recorded deviation: a rule that failed in a scenario,
// and in a run over several revisions (--revision all) the revision it
// was judged by.
type Finding struct {
	Rule     string `json:"rule"`
	Scenario string `json:"scenario"`
	Verdict  string `json:"verdict"`
	Revision string `json:"revision,omitempty"`
	// Intermittent marks a deviation that a race in the server shows in
	// some runs and not others (docs/mcp-interop.md says which race); a
	// record of one may name its scenario or revision "*", any, when the
	// race decides where it shows too. Its absence is no change.
	Intermittent bool `json:"intermittent,omitempty"`
}

// Any is a recorded finding's scenario or revision that stands for all.
const Any = "*"

// Covers reports whether the recorded finding f stands for the found one
// g: the same rule and verdict, in the same scenario and revision or in
// any where f names Any.
func (f Finding) Covers(g Finding) bool {
	return f.Rule == g.Rule && f.Verdict == g.Verdict &&
		(f.Scenario == Any || f.Scenario == g.Scenario) &&
		(f.Revision == Any || f.Revision == g.Revision)
}

// Covered reports whether some finding of fs covers g.
func Covered(fs []Finding, g Finding) bool {
	for _, f := range fs {
		if f.Covers(g) {
			return true
		}
	}
	return false
}

// Rerecord is the record a run rewrites (UPDATE_INTEROP=1): the findings
// found, and of the findings recorded the intermittent ones, which a run
// that did not show them does not unmake, each found one they cover kept
// in them only.
func Rerecord(recorded, found []Finding) []Finding {
	var out []Finding
	for _, f := range recorded {
		if f.Intermittent {
			out = append(out, f)
		}
	}
	for _, g := range found {
		if !Covered(out, g) {
			out = append(out, g)
		}
	}
	Sort(out)
	return out
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s %s in %s", f.Verdict, f.Rule, f.Scenario)
	if f.Revision != "" {
		s += " @ " + f.Revision
	}
	if f.Intermittent {
		s += " (intermittent)"
	}
	return s
}

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
// rule, scenario, verdict and revision once: a rule that fails twice in a
// scenario (two messages) is one deviation to record.
func Failures(rep *report.Report) []Finding {
	var out []Finding
	seen := map[Finding]bool{}
	for _, f := range rep.Findings {
		x := Finding{Rule: f.Rule, Scenario: f.Scenario, Verdict: string(f.Verdict), Revision: f.Revision}
		if (f.Verdict == verdict.Fail || f.Verdict == verdict.Error) && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	Sort(out)
	return out
}

// Sort orders findings by rule, then scenario, then revision.
func Sort(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Rule != fs[j].Rule {
			return fs[i].Rule < fs[j].Rule
		}
		if fs[i].Scenario != fs[j].Scenario {
			return fs[i].Scenario < fs[j].Scenario
		}
		return fs[i].Revision < fs[j].Revision
	})
}
