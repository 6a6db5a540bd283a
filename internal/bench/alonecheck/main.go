// Command alonecheck holds a protocol's verdicts to two promises, for
// every fault of its reference server: a scenario run alone (the line a
// finding's Reproduce gives) fails only rules the fault declares (trips
// and also), and fails what it fails in the whole run. It runs the whole
// suite once per fault, then every scenario of it alone, through the
// wirecheck binary as a user would, and prints each difference:
//
//	UNDECLARED  a rule failed alone that the fault does not declare: a
//	            false failure, or a declaration to widen;
//	WHOLE-ONLY  a rule failed in the whole run, in this scenario, but not
//	            alone: the verdict hangs on what ran before it (a late
//	            frame judged where it landed, a session's history);
//	ALONE-ONLY  the reverse (a frame rule of the handshake, which alone
//	            every scenario makes and in a whole run one does, is
//	            expected here and not printed unless -v).
//
// It prints; it does not fail. A run takes minutes (a whole run and some
// 25 scenario runs per fault): it is a maintainer's tool, not part of
// make test. Session 10 found with it an update after an unsubscribe that
// only a later scenario judged (MCP-RESOURCES-8), and a way to fail it
// falsely over Streamable HTTP.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

type config struct {
	bin, protocol, transport, revision, timeout string
}

// failing is what a run failed: rule → the scenarios it failed in.
type failing map[string]map[string]bool

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin/wirecheck", "the wirecheck binary to run (and whose reference server to check)")
	flag.StringVar(&c.protocol, "protocol", "mcp", "the protocol whose faults to run")
	flag.StringVar(&c.transport, "transport", "stdio", "stdio, http or sse")
	flag.StringVar(&c.revision, "revision", "", "the revision to run under (the protocol's default when empty)")
	flag.StringVar(&c.timeout, "timeout", "2s", "--timeout of every run")
	only := flag.String("faults", "", "comma-separated faults to run (all when empty)")
	jobs := flag.Int("jobs", 2, "runs at once")
	verbose := flag.Bool("v", false, "print ALONE-ONLY differences too")
	flag.Parse()
	if _, err := os.Stat(c.bin); err != nil {
		fail(fmt.Sprintf("%v (run make build first, or pass -bin)", err))
	}
	b, err := protocols.Load(c.protocol)
	if err != nil {
		fail(err.Error())
	}
	dir, err := os.MkdirTemp("", "alonecheck-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(dir)

	type job struct{ fault, revision, scenario string }
	results := map[job]failing{}
	var mu sync.Mutex
	runAll := func(js []job) {
		sem := make(chan struct{}, max(1, *jobs))
		var wg sync.WaitGroup
		for i, j := range js {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				got, err := c.run(filepath.Join(dir, fmt.Sprint(i)), j.fault, j.revision, j.scenario)
				if err != nil {
					fmt.Fprintf(os.Stderr, "alonecheck: --fault %s --scenario %q: %v\n", j.fault, j.scenario, err)
				}
				mu.Lock()
				results[j] = got
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	var wholes []job
	declared := map[string][]string{}
	for _, f := range b.Protocol.Faults {
		if (*only != "" && !slices.Contains(strings.Split(*only, ","), f.Name)) ||
			(f.Transport != "" && f.Transport != c.transport) || (f.Version != "" && c.revision != "" && f.Version != c.revision) {
			continue
		}
		// A fault of one revision runs under it, unless -revision names
		// another (then it is left out above).
		rev := c.revision
		if rev == "" {
			rev = f.Version
		}
		wholes = append(wholes, job{fault: f.Name, revision: rev})
		declared[f.Name] = append(append([]string{}, f.Trips...), f.Also...)
	}
	runAll(wholes)
	var alone []job
	for _, w := range wholes {
		scens := map[string]bool{}
		for _, in := range results[w] {
			for s := range in {
				scens[s] = true
			}
		}
		// Every scenario the whole run ran, failing or not: a scenario
		// clean in the whole run may fail alone.
		for _, s := range b.Scenarios {
			scens[s.Name] = true
		}
		for s := range scens {
			if s != "" && s != "-" {
				alone = append(alone, job{w.fault, w.revision, s})
			}
		}
	}
	sort.Slice(alone, func(i, j int) bool {
		return alone[i].fault+" "+alone[i].scenario < alone[j].fault+" "+alone[j].scenario
	})
	fmt.Printf("alonecheck: %s over %s, revision %q: %d faults, %d runs alone\n", c.protocol, c.transport, c.revision, len(wholes), len(alone))
	runAll(alone)
	counts := map[string]int{}
	// A failure the fault does not declare, wherever it is charged (a
	// scenario, the startup, "-"), once per fault, rule and scenario.
	undeclared := map[string]bool{}
	judge := func(j job, got failing, how string) {
		for rule, in := range got {
			if slices.Contains(declared[j.fault], rule) {
				continue
			}
			for sc := range in {
				if k := j.fault + " " + rule + " " + sc; !undeclared[k] {
					undeclared[k] = true
					counts["UNDECLARED"]++
					fmt.Printf("UNDECLARED  --fault %s: %s failed in %s (%s), and the fault does not declare it\n", j.fault, rule, sc, how)
				}
			}
		}
	}
	for _, w := range wholes {
		judge(w, results[w], "the whole run")
	}
	for _, j := range alone {
		whole, own := results[job{fault: j.fault, revision: j.revision}], results[j]
		if whole == nil || own == nil {
			continue
		}
		judge(j, own, "run alone with --scenario "+j.scenario)
		for rule, in := range own {
			if in[j.scenario] && !whole[rule][j.scenario] && slices.Contains(declared[j.fault], rule) {
				counts["ALONE-ONLY"]++
				if *verbose {
					fmt.Printf("ALONE-ONLY  --fault %s --scenario %s: %s failed alone, not in the whole run's %s\n", j.fault, j.scenario, rule, j.scenario)
				}
			}
		}
		for rule, in := range whole {
			if in[j.scenario] && !own[rule][j.scenario] {
				counts["WHOLE-ONLY"]++
				fmt.Printf("WHOLE-ONLY  --fault %s --scenario %s: %s failed in the whole run's %s, not alone\n", j.fault, j.scenario, rule, j.scenario)
			}
		}
	}
	fmt.Printf("\n%d UNDECLARED, %d WHOLE-ONLY, %d ALONE-ONLY (-v prints them)\n", counts["UNDECLARED"], counts["WHOLE-ONLY"], counts["ALONE-ONLY"])
}

// run runs the suite (one scenario when scenario is set) against the
// reference server with fault on, and returns what failed.
func (c config) run(out, fault, revision, scenario string) (failing, error) {
	srv := []string{c.bin, "serve", c.protocol, "--fault", fault}
	args := []string{"run", "--protocol", c.protocol, "--timeout", c.timeout, "--report", "json=" + out + ".json"}
	if c.transport != "stdio" {
		srv = append(srv, "--"+c.transport, "127.0.0.1:{port}")
		args = append(args, "--transport", c.transport)
	}
	if revision != "" {
		args = append(args, "--revision", revision)
	}
	if scenario != "" {
		args = append(args, "--scenario", scenario)
	}
	cmd := exec.Command(c.bin, append(append(args, "--"), srv...)...)
	// Exit 1 is failures, 3 a server that never became ready (a fault
	// may be that): both runs wrote their report.
	if b, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 1 && cmd.ProcessState.ExitCode() != 3 {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(string(b)))
	}
	raw, err := os.ReadFile(out + ".json")
	if err != nil {
		return nil, err
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, err
	}
	got := failing{}
	for _, f := range rep.Findings {
		// Failures only: an error is a rule a run could not judge (its
		// scenario stopped early), no claim about the server.
		if f.Verdict == verdict.Fail {
			if got[f.Rule] == nil {
				got[f.Rule] = map[string]bool{}
			}
			got[f.Rule][f.Scenario] = true
		}
	}
	return got, nil
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "alonecheck: "+msg)
	os.Exit(2)
}
