package interop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
)

// Bench runs the official suite's whole server run and wirecheck's
// against the same server.
type Bench struct {
	Server    []string // the server's argv; its port comes in PORT and in place of PortWord
	Official  []string // node and the suite's entry point
	Wirecheck string   // the wirecheck binary
	Dir       string   // scratch folder for reports and logs
}

// OfficialPlan is the official suite's whole server run: the arguments
// of each of its invocations, in order. The suite runs one spec revision
// per invocation (--spec-version R runs the scenarios R has, at R's wire)
// and leaves the extension scenarios out of every revision, so each of
// those is an invocation of its own (--scenario, at the wire the suite
// gives it).
type OfficialPlan [][]string

// PlanOfficial reads the output of the suite's `list --server`, one
// scenario a line, "  - NAME [REVISION,…]" or "  - NAME [extension]".
func PlanOfficial(list string) (OfficialPlan, error) {
	line := regexp.MustCompile(`^\s*-\s+(\S+)\s+\[([^\]]*)\]\s*$`)
	revs := map[string]bool{}
	var exts []string
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, t := range strings.Split(m[2], ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "extension":
				exts = append(exts, m[1])
			case t != "":
				revs[t] = true
			}
		}
	}
	if len(revs) == 0 {
		return nil, fmt.Errorf("the official suite listed no server scenario with a revision:\n%s", list)
	}
	var plan OfficialPlan
	for _, r := range sortedKeys(revs) {
		plan = append(plan, []string{"server", "--suite", "all", "--spec-version", r})
	}
	for _, e := range exts {
		plan = append(plan, []string{"server", "--scenario", e})
	}
	return plan, nil
}

// single is whether an invocation's arguments run one scenario.
func single(args []string) bool { return len(args) > 1 && args[1] == "--scenario" }

// Revisions is how many revisions the plan runs, and Extensions how many
// extension scenarios.
func (p OfficialPlan) Revisions() (revisions, extensions int) {
	for _, args := range p {
		if single(args) {
			extensions++
		} else {
			revisions++
		}
	}
	return revisions, extensions
}

// Result is one tool's figures: the medians of its runs and its count.
type Result struct {
	Usage
	Count Count
	// Varied is set when runs counted different numbers of checks.
	Varied bool
	// Processes is how many processes one run took (the official suite:
	// one per invocation of its plan).
	Processes int
}

// Comparison is the official suite beside wirecheck, against one server.
type Comparison struct {
	Official, Wirecheck Result
	// Longest is wirecheck's slowest scenario run alone (--scenario, every
	// revision) against a fresh server, measured when the wall-time goal
	// is not met: a run of every scenario ends no sooner than its longest
	// one, whose waits (a task the server runs for seconds) may be the
	// server's to set, not its CPU. Zero when not measured.
	Longest         time.Duration
	LongestScenario string
}

// runLimit bounds one process's run.
const runLimit = 5 * time.Minute

// Compare runs each tool's whole run runs times, taking turns, each run
// against a fresh server of its own.
func (b Bench) Compare(plan OfficialPlan, runs int) (Comparison, error) {
	var off, wc []Usage
	var offCount, wcCount []Count
	for i := 0; i < runs; i++ {
		u, c, err := b.official(plan, i)
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
	cmp := Comparison{Official: summarize(off, offCount), Wirecheck: summarize(wc, wcCount)}
	cmp.Official.Processes, cmp.Wirecheck.Processes = len(plan), 1
	if sw := cmp.Wirecheck.ServerCPU; sw > 0 && ratio(float64(cmp.Wirecheck.Wall), float64(sw)) > GoalFloor {
		name, d, err := b.longest()
		if err != nil {
			return cmp, err
		}
		cmp.LongestScenario, cmp.Longest = name, d
	}
	return cmp, nil
}

// longest runs each scenario of wirecheck's last whole run alone, one
// after another against one fresh server, and returns the slowest and its
// wall time (the process's: its start and report included, as the whole
// run's is).
func (b Bench) longest() (string, time.Duration, error) {
	raw, err := os.ReadFile(filepath.Join(b.Dir, fmt.Sprintf("wirecheck-%d.json", 0)))
	if err != nil {
		return "", 0, fmt.Errorf("wirecheck wrote no JSON report: %w", err)
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return "", 0, fmt.Errorf("wirecheck's JSON report: %w", err)
	}
	names := map[string]bool{}
	for _, f := range rep.Findings {
		// "-" marks a rule no scenario judged, and "startup" a
		// process's start: neither is a scenario to run.
		if f.Scenario != "" && f.Scenario != "-" && f.Scenario != "startup" {
			names[f.Scenario] = true
		}
	}
	var slowest string
	var most time.Duration
	_, err = b.against("longest", 0, func(url, out string) (Usage, error) {
		for _, name := range sortedKeys(names) {
			argv := []string{b.Wirecheck, "run", "--protocol", "mcp", "--transport", "http", "--url", url,
				"--revision", "all", "--scenario", name}
			u, err := Measure(argv, nil, out+"."+name, runLimit)
			if err != nil {
				return Usage{}, fmt.Errorf("wirecheck --scenario %s: %w", name, err)
			}
			if u.Wall > most {
				slowest, most = name, u.Wall
			}
		}
		return Usage{}, nil
	})
	return slowest, most, err
}

// against starts a server, runs one tool's whole run against its URL,
// stops it; the server's CPU time is what it spent meanwhile.
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

// official runs the plan's invocations one after another against one
// server: wall and CPU times add up, the peak RSS is the largest.
func (b Bench) official(plan OfficialPlan, i int) (Usage, Count, error) {
	var dirs []string
	u, err := b.against("official", i, func(url, out string) (Usage, error) {
		var sum Usage
		for j, args := range plan {
			results := fmt.Sprintf("%s.%d.results", out, j)
			dirs = append(dirs, results)
			argv := append(append(append([]string{}, b.Official...), args...), "--url", url, "-o", results)
			u, err := Measure(argv, nil, fmt.Sprintf("%s.%d", out, j), runLimit)
			if err != nil {
				return sum, err
			}
			sum.Wall += u.Wall
			sum.CPU += u.CPU
			sum.PeakRSS = max(sum.PeakRSS, u.PeakRSS)
		}
		return sum, nil
	})
	if err != nil {
		return u, Count{}, err
	}
	total := Count{By: map[string]int{}}
	for j, d := range dirs {
		c, err := OfficialChecks(d)
		if errors.Is(err, ErrNoResults) && single(plan[j]) {
			// A scenario run alone that throws writes nothing; the
			// suite's own runs of many record it as one failed check.
			c, err = Count{Checks: 1, Units: 1, By: map[string]int{"FAILURE": 1}}, nil
		}
		if err != nil {
			return u, Count{}, err
		}
		total.Checks += c.Checks
		total.Units += c.Units
		for k, n := range c.By {
			total.By[k] += n
		}
	}
	return u, total, nil
}

func (b Bench) wirecheck(i int) (Usage, Count, error) {
	var path string
	u, err := b.against("wirecheck", i, func(url, out string) (Usage, error) {
		path = out + ".json"
		argv := []string{b.Wirecheck, "run", "--protocol", "mcp", "--transport", "http", "--url", url,
			"--revision", "all", "--report", "json=" + path}
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

// The goals for wirecheck's whole run beside the official
// suite's, each a ratio of two figures of the same run.
const (
	GoalChecks = 10.0 // at least this many times its checks
	GoalCPU    = 0.05 // at most this fraction of its CPU time
	GoalRSS    = 0.33 // at most this fraction of its peak RSS
	// GoalFloor: wirecheck's wall time at most this many times the
	// server's own CPU time during wirecheck's run. A server that answers
	// on one thread cannot serve a client faster than its own CPU time,
	// so that is the floor of any client's wall time.
	GoalFloor = 1.2
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
	row("official suite", c.Official, fmt.Sprintf("%d process(es), %d scenario runs; checks by status: %s",
		c.Official.Processes, c.Official.Count.Units, byKey(c.Official.Count.By)))
	row("wirecheck", c.Wirecheck, fmt.Sprintf("observations; %d rule verdicts: %s", c.Wirecheck.Count.Units, byKey(c.Wirecheck.Count.By)))
	b.WriteString("\n")
	checks := ratio(float64(c.Wirecheck.Count.Checks), float64(c.Official.Count.Checks))
	units := ratio(float64(c.Wirecheck.Count.Units), float64(c.Official.Count.Checks))
	fmt.Fprintf(&b, "checks:    wirecheck makes %.1fx the official suite's (goal at least %.0fx: %s); counting rule verdicts instead of observations, %.1fx\n",
		checks, GoalChecks, met(checks >= GoalChecks), units)
	if c.Official.CPU == 0 || c.Wirecheck.CPU == 0 {
		b.WriteString("CPU:       unknown (the kernel reported none)\n")
	} else {
		cpu := ratio(float64(c.Wirecheck.CPU), float64(c.Official.CPU))
		fmt.Fprintf(&b, "CPU:       wirecheck spends %.3fx the official suite's (goal at most %.2fx: %s)\n", cpu, GoalCPU, met(cpu <= GoalCPU))
	}
	if c.Official.PeakRSS == 0 || c.Wirecheck.PeakRSS == 0 {
		b.WriteString("peak RSS:  unknown (the kernel reported none)\n")
	} else {
		rss := ratio(float64(c.Wirecheck.PeakRSS), float64(c.Official.PeakRSS))
		fmt.Fprintf(&b, "peak RSS:  wirecheck uses %.2fx the official suite's (goal at most %.2fx: %s)\n", rss, GoalRSS, met(rss <= GoalRSS))
	}
	if sw := c.Wirecheck.ServerCPU; sw <= 0 {
		b.WriteString("wall time: the server's CPU time is unknown (no /proc), so its floor is too\n")
	} else {
		floor := ratio(float64(c.Wirecheck.Wall), float64(sw))
		fmt.Fprintf(&b, "wall time: wirecheck's %s is %.2fx the server's own CPU time during its run, %s (goal at most %.1fx: %s); the official suite's %s is %.2fx the server's %s\n",
			c.Wirecheck.Wall.Round(time.Millisecond), floor, sw.Round(time.Millisecond), GoalFloor, met(floor <= GoalFloor),
			c.Official.Wall.Round(time.Millisecond), ratio(float64(c.Official.Wall), float64(c.Official.ServerCPU)),
			c.Official.ServerCPU.Round(time.Millisecond))
		if c.Longest > 0 {
			// No run of every scenario ends before its longest one
			// alone does: when that alone is over the goal, the goal is
			// out of reach against this server whatever the rest costs.
			fmt.Fprintf(&b, "           its longest scenario alone (wirecheck's start and report included), %s, takes %s against this server, %.2fx the server's CPU time above",
				c.LongestScenario, c.Longest.Round(time.Millisecond), ratio(float64(c.Longest), float64(sw)))
			if ratio(float64(c.Longest), float64(sw)) > GoalFloor {
				b.WriteString(": a floor over the goal, which no run of every scenario can meet here")
			}
			fmt.Fprintf(&b, "; the whole run is %.2fx that floor\n", ratio(float64(c.Wirecheck.Wall), float64(c.Longest)))
		}
	}
	return b.String()
}

// Met is whether every goal whose figures are known is met.
func (c Comparison) Met() bool {
	ok := ratio(float64(c.Wirecheck.Count.Checks), float64(c.Official.Count.Checks)) >= GoalChecks
	if c.Official.CPU > 0 && c.Wirecheck.CPU > 0 {
		ok = ok && ratio(float64(c.Wirecheck.CPU), float64(c.Official.CPU)) <= GoalCPU
	}
	if c.Official.PeakRSS > 0 && c.Wirecheck.PeakRSS > 0 {
		ok = ok && ratio(float64(c.Wirecheck.PeakRSS), float64(c.Official.PeakRSS)) <= GoalRSS
	}
	if c.Wirecheck.ServerCPU > 0 {
		ok = ok && ratio(float64(c.Wirecheck.Wall), float64(c.Wirecheck.ServerCPU)) <= GoalFloor
	}
	return ok
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
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
