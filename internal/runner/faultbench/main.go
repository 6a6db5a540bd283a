// Command faultbench measures what a planted fault costs a run: for every
// fault of every protocol, the run against the reference server with that
// fault switched on, against the clean run. A fault should cost a timeout
// once, not once per step: the goal is no fault run longer than twice the
// clean run plus one timeout. It prints; it does not fail. `make bench`
// runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
)

type result struct {
	protocol, fault string
	took, clean     time.Duration
	budget          time.Duration
}

func (r result) ratio() float64 { return float64(r.took) / float64(r.clean) }

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary whose reference servers to run")
	timeout := flag.Duration("timeout", time.Second, "--timeout of every run")
	only := flag.String("protocol", "", "measure one protocol only")
	flag.Parse()
	if _, err := os.Stat(*bin); err != nil {
		fmt.Fprintf(os.Stderr, "faultbench: %v (run make build first, or pass -bin)\n", err)
		os.Exit(2)
	}
	var all []result
	for _, id := range protocols.IDs() {
		if *only != "" && id != *only {
			continue
		}
		b, err := protocols.Load(id)
		if err != nil {
			fmt.Fprintf(os.Stderr, "faultbench: %s: %v\n", id, err)
			os.Exit(2)
		}
		// The clean run is the yardstick: the median of three, so one
		// slow start on a busy machine does not flatter every fault.
		cleans := []time.Duration{measure(*bin, id, "", "", *timeout), measure(*bin, id, "", "", *timeout), measure(*bin, id, "", "", *timeout)}
		sort.Slice(cleans, func(i, j int) bool { return cleans[i] < cleans[j] })
		clean := cleans[1]
		fmt.Printf("%-13s clean run %s\n", id, clean.Round(time.Millisecond))
		for _, f := range b.Protocol.Faults {
			took := measure(*bin, id, f.Name, f.Version, *timeout)
			one := oneTimeout(b.Scenarios, *timeout)
			if b.Protocol.Startup != nil && f.Name == "no-ready" {
				one = runner.DefaultStartupTimeout
			}
			all = append(all, result{protocol: id, fault: f.Name, took: took, clean: clean, budget: 2*clean + one})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ratio() < all[j].ratio() })
	fmt.Printf("\n%-13s %-34s %9s %9s %7s %9s  (budget: twice the clean run plus one timeout: the longest bound a step declares, at least --timeout %s)\n",
		"PROTOCOL", "FAULT", "RUN", "CLEAN", "RATIO", "BUDGET", *timeout)
	over := 0
	for _, r := range all {
		mark := ""
		if r.took > r.budget {
			mark = "  OVER"
			over++
		}
		fmt.Printf("%-13s %-34s %9s %9s %6.1fx %9s%s\n", r.protocol, r.fault, r.took.Round(time.Millisecond),
			r.clean.Round(time.Millisecond), r.ratio(), r.budget.Round(time.Millisecond), mark)
	}
	fmt.Printf("\n%d fault run(s), %d over budget\n", len(all), over)
}

// oneTimeout is the one timeout a fault may cost: the longest bound a wait
// of the suite declares (an exit deadline, a step's within), at least
// --timeout. A server that never becomes ready costs the startup timeout.
func oneTimeout(scs []*scenario.Scenario, timeout time.Duration) time.Duration {
	one := timeout
	for _, sc := range scs {
		for _, st := range sc.Steps {
			one = max(one, st.Within.D())
			if st.ExpectExit != nil {
				one = max(one, st.ExpectExit.Within.D())
			}
		}
	}
	return one
}

// measure runs a protocol's whole suite against its reference server with
// one fault (none when fault is "") and returns how long it took.
func measure(bin, id, fault, version string, timeout time.Duration) time.Duration {
	b, _ := protocols.Load(id)
	argv := []string{bin, "serve", id}
	if fault != "" {
		argv = append(argv, "--fault", fault)
	}
	params := map[string]string{}
	if version != "" && b.Protocol.Versions != nil {
		params[b.Protocol.Versions.Param] = version
	}
	start := time.Now()
	_, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
		Target:  target.Target{Argv: argv},
		Timeout: timeout, Params: params,
	})
	took := time.Since(start)
	if err != nil && !strings.Contains(err.Error(), "could not be started") {
		fmt.Fprintf(os.Stderr, "faultbench: %s --fault %s: %v\n", id, fault, err)
	}
	return took
}
