package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wirecheck/wirecheck/internal/officialsuite"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// OfficialSuiteVersion is the pinned @modelcontextprotocol/conformance
// (test/interop/official/package.json); docs/official-suite.md maps its
// server checks at this version (internal/officialsuite).
const OfficialSuiteVersion = officialsuite.Version

// Count is what one tool's run checked.
type Count struct {
	// Checks is the number of checks made: for the official suite every
	// entry of its checks.json files, for wirecheck every observation that
	// judged a rule (a finding's count; skips and harness errors judged
	// nothing).
	Checks int
	// Units is the coarser figure beside it: the official suite's
	// scenarios, wirecheck's rule-and-scenario verdicts (pass or fail).
	Units int
	// By counts Checks by status (official) or Units by verdict (wirecheck).
	By map[string]int
}

// ErrNoResults is a run of the official suite that wrote no checks.json.
var ErrNoResults = errors.New("the official suite wrote no results")

// OfficialChecks counts the checks of an official-suite run from the
// folder given to its -o: one subfolder per scenario, each with a
// checks.json array of results.
func OfficialChecks(dir string) (Count, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if err != nil {
		return Count{}, err
	}
	if len(files) == 0 {
		return Count{}, fmt.Errorf("no */checks.json under %s: %w", dir, ErrNoResults)
	}
	c := Count{By: map[string]int{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return Count{}, err
		}
		var checks []struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			return Count{}, fmt.Errorf("%s: %w", f, err)
		}
		c.Units++
		c.Checks += len(checks)
		for _, x := range checks {
			c.By[x.Status]++
		}
	}
	return c, nil
}

// WirecheckChecks counts the checks of a wirecheck JSON report.
func WirecheckChecks(rep *report.Report) Count {
	c := Count{By: map[string]int{}}
	for _, f := range rep.Findings {
		if f.Verdict != verdict.Pass && f.Verdict != verdict.Fail {
			continue
		}
		n := f.Count
		if n == 0 {
			n = 1
		}
		c.Checks += n
		c.Units++
		c.By[string(f.Verdict)]++
	}
	return c
}

// Usage is what one process cost.
type Usage struct {
	Wall time.Duration
	CPU  time.Duration // user + system
	// PeakRSS is the kernel's maximum resident set size of the process and
	// the children it waited for, in bytes.
	PeakRSS int64
	// ServerCPU is the CPU time the server under test spent while the
	// tool ran (user + system; 0 where /proc does not say). A
	// single-threaded server busy for as long as the run lasts is what
	// bounds the run's wall time, whatever the client does.
	ServerCPU time.Duration
}

// Measure runs argv to completion (bounded by limit), its output to
// out.stdout and out.stderr, and returns what it cost. Exit statuses 0 and
// 1 are runs (both tools exit 1 when they find failures); any other is an
// error quoting the end of its stderr.
func Measure(argv []string, env []string, out string, limit time.Duration) (Usage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := os.Create(out + ".stdout")
	if err != nil {
		return Usage{}, err
	}
	defer stdout.Close()
	stderr, err := os.Create(out + ".stderr")
	if err != nil {
		return Usage{}, err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err = cmd.Run()
	u := Usage{Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			u.PeakRSS = ru.Maxrss * 1024 // Linux reports kilobytes
			u.CPU = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
		}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %s", limit)
	}
	if err != nil {
		return u, fmt.Errorf("%s: %v%s", filepath.Base(argv[0]), err, tail(out+".stderr"))
	}
	return u, nil
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return "\n" + s
}
