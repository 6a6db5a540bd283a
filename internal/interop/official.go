package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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

// OfficialChecks counts the checks of an official-suite run from the
// folder given to its -o: one subfolder per scenario, each with a
// checks.json array of results.
func OfficialChecks(dir string) (Count, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if err != nil {
		return Count{}, err
	}
	if len(files) == 0 {
		return Count{}, fmt.Errorf("no */checks.json under %s: the official suite wrote no results", dir)
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

// Server is an HTTP server started for one run.
type Server struct {
	URL string
	cmd *exec.Cmd
}

// StartServer launches argv with PORT set to a free port (the way
// server-everything's HTTP modes take theirs), waits until the port
// accepts a connection, and returns the endpoint http://127.0.0.1:PORT/mcp.
func StartServer(argv []string, log string, limit time.Duration) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.Stdout, cmd.Stderr = f, f
	// A group of its own, so Stop ends whatever the server started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr + "/mcp", cmd: cmd}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited before it listened on %s%s", filepath.Base(argv[0]), addr, tail(log))
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("%s did not listen on %s within %s%s", filepath.Base(argv[0]), addr, limit, tail(log))
		}
	}
}

// CPU is the server process's CPU time so far (user + system, from
// /proc/PID/stat, in the kernel's 10 ms ticks), or -1 where it cannot be
// read.
func (s *Server) CPU() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields are counted from after its closing one.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	// utime and stime are fields 14 and 15 of the line, 12 and 13 here.
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	// USER_HZ is 100 on every Linux ABI that has /proc.
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// Stop kills the server's process group.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // it may have exited already
	}
}

// Bench runs the official suite and wirecheck against the same server.
type Bench struct {
	Server    []string // the server's argv; its port comes in PORT
	Official  []string // node and the suite's entry point
	Wirecheck string   // the wirecheck binary
	Revision  string   // the revision wirecheck asks for and judges by
	Dir       string   // scratch folder for reports and logs
}

// Result is one tool's figures: the medians of its runs and its count.
type Result struct {
	Usage
	Count Count
	// Varied is set when runs counted different numbers of checks.
	Varied bool
}

// Comparison is the official suite beside wirecheck.
type Comparison struct{ Official, Wirecheck Result }

// runLimit bounds one tool's run: both take seconds.
const runLimit = 5 * time.Minute

// Compare runs each tool runs times, taking turns, each run against a
// server of its own.
func (b Bench) Compare(runs int) (Comparison, error) {
	var off, wc []Usage
	var offCount, wcCount []Count
	for i := 0; i < runs; i++ {
		u, c, err := b.official(i)
		if err != nil {
			return Comparison{}, err
		}
		off, offCount = append(off, u), append(offCount, c)
		u, c, err = b.wirecheck(i)
		if err != nil {
			return Comparison{}, err
		}
		wc, wcCount = append(wc, u), append(wcCount, c)
	}
	return Comparison{Official: summarize(off, offCount), Wirecheck: summarize(wc, wcCount)}, nil
}

// against starts a server, runs one tool against its URL, stops it.
func (b Bench) against(name string, i int, run func(url, out string) (Usage, error)) (Usage, error) {
	out := filepath.Join(b.Dir, fmt.Sprintf("%s-%d", name, i))
	srv, err := StartServer(b.Server, out+".server.log", time.Minute)
	if err != nil {
		return Usage{}, err
	}
	defer srv.Stop()
	cpu0 := srv.CPU()
	u, err := run(srv.URL, out)
	if cpu0 >= 0 {
		if cpu1 := srv.CPU(); cpu1 >= cpu0 {
			u.ServerCPU = cpu1 - cpu0
		}
	}
	return u, err
}

func (b Bench) official(i int) (Usage, Count, error) {
	var results string
	u, err := b.against("official", i, func(url, out string) (Usage, error) {
		results = out + ".results"
		argv := append(append([]string{}, b.Official...), "server", "--url", url, "-o", results)
		return Measure(argv, nil, out, runLimit)
	})
	if err != nil {
		return u, Count{}, err
	}
	c, err := OfficialChecks(results)
	return u, c, err
}

func (b Bench) wirecheck(i int) (Usage, Count, error) {
	var path string
	u, err := b.against("wirecheck", i, func(url, out string) (Usage, error) {
		path = out + ".json"
		argv := []string{b.Wirecheck, "run", "--protocol", "mcp", "--transport", "http", "--url", url,
			"--revision", b.Revision, "--report", "json=" + path}
		return Measure(argv, nil, out, runLimit)
	})
	if err != nil {
		return u, Count{}, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return u, Count{}, fmt.Errorf("wirecheck wrote no JSON report: %w", err)
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return u, Count{}, fmt.Errorf("wirecheck's JSON report: %w", err)
	}
	return u, WirecheckChecks(&rep), nil
}

// summarize takes the median of each figure separately (a run slowed by
// the machine's other work should not pick the RSS too) and the count of
// the last run.
func summarize(us []Usage, cs []Count) Result {
	med := func(get func(Usage) int64) int64 {
		v := make([]int64, len(us))
		for i, u := range us {
			v[i] = get(u)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	r := Result{Usage: Usage{
		Wall:      time.Duration(med(func(u Usage) int64 { return int64(u.Wall) })),
		ServerCPU: time.Duration(med(func(u Usage) int64 { return int64(u.ServerCPU) })),
		CPU:       time.Duration(med(func(u Usage) int64 { return int64(u.CPU) })),
		PeakRSS:   med(func(u Usage) int64 { return u.PeakRSS }),
	}, Count: cs[len(cs)-1]}
	for _, c := range cs {
		if c.Checks != r.Count.Checks {
			r.Varied = true
		}
	}
	return r
}

// The goals for wirecheck beside the official suite.
const (
	GoalChecks = 4.5       // at least this many times its checks
	GoalWall   = 1.0 / 3.0 // at most this fraction of its wall time
	GoalRSS    = 1.0 / 4.0 // at most this fraction of its peak RSS
)

// Table prints both tools' figures and the ratios, each against its goal.
func (c Comparison) Table() string {
	var b strings.Builder
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	row := func(name string, r Result, units string) {
		varied := ""
		if r.Varied {
			varied = " (varied between runs; last run shown)"
		}
		fmt.Fprintf(&b, "%-16s %7d %9s %9s %11s %11s   %s%s\n", name, r.Count.Checks, r.Wall.Round(time.Millisecond),
			r.CPU.Round(time.Millisecond), mib(r.PeakRSS), r.ServerCPU.Round(time.Millisecond), units, varied)
	}
	fmt.Fprintf(&b, "%-16s %7s %9s %9s %11s %11s\n", "", "CHECKS", "WALL", "CPU", "PEAK RSS", "SERVER CPU")
	row("official suite", c.Official, fmt.Sprintf("%d scenarios; checks by status: %s", c.Official.Count.Units, byKey(c.Official.Count.By)))
	row("wirecheck", c.Wirecheck, fmt.Sprintf("observations; %d rule verdicts: %s", c.Wirecheck.Count.Units, byKey(c.Wirecheck.Count.By)))
	b.WriteString("\n")
	checks := ratio(float64(c.Wirecheck.Count.Checks), float64(c.Official.Count.Checks))
	units := ratio(float64(c.Wirecheck.Count.Units), float64(c.Official.Count.Checks))
	wall := ratio(float64(c.Wirecheck.Wall), float64(c.Official.Wall))
	rss := ratio(float64(c.Wirecheck.PeakRSS), float64(c.Official.PeakRSS))
	fmt.Fprintf(&b, "checks:    wirecheck makes %.1fx the official suite's (goal at least %.1fx: %s); counting rule verdicts instead of observations, %.1fx\n",
		checks, GoalChecks, met(checks >= GoalChecks), units)
	fmt.Fprintf(&b, "wall time: wirecheck takes %.2f of the official suite's (goal at most %.2f: %s)\n", wall, GoalWall, met(wall <= GoalWall))
	if sw := c.Wirecheck.ServerCPU; sw > 0 && c.Wirecheck.Wall > 0 {
		// The server is a single Node.js thread: the share of wirecheck's
		// wall time it was busy says how much of that time was the
		// server's work rather than wirecheck's.
		fmt.Fprintf(&b, "           the server was busy %.0f%% of wirecheck's wall time (%s of CPU; %s during the official suite's run)\n",
			100*float64(sw)/float64(c.Wirecheck.Wall), sw.Round(time.Millisecond), c.Official.ServerCPU.Round(time.Millisecond))
	}
	if c.Official.PeakRSS == 0 || c.Wirecheck.PeakRSS == 0 {
		b.WriteString("peak RSS:  unknown (the kernel reported none)\n")
	} else {
		fmt.Fprintf(&b, "peak RSS:  wirecheck uses %.2f of the official suite's (goal at most %.2f: %s)\n", rss, GoalRSS, met(rss <= GoalRSS))
	}
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func byKey(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}
