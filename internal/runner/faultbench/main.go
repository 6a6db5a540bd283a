// Command faultbench measures what a planted fault costs a run: for every
// fault of every protocol, the run against the reference server with that
// fault switched on, against the clean run, both at the timeouts a user
// of `wirecheck run` gets by default. A fault should end its waits when
// what it breaks shows (a frame that ends the turn, the server gone), not
// at the end of a bound: the goal is no fault run longer than twice the
// clean run, and none over two minutes. It prints, flagging the runs over
// either; it does not fail. `make bench` runs it.
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
	"github.com/wirecheck/wirecheck/internal/target"
)

// Goals a fault run is flagged against.
const (
	maxRatio = 2.0
	maxRun   = 120 * time.Second
)

type result struct {
	protocol, fault string
	took, clean     time.Duration
}

func (r result) ratio() float64 { return float64(r.took) / float64(r.clean) }

// flags says which goals the run misses ("" when none).
func (r result) flags() string {
	var out []string
	if r.ratio() > maxRatio {
		out = append(out, fmt.Sprintf("OVER %.0fx", maxRatio))
	}
	if r.took > maxRun {
		out = append(out, "OVER "+maxRun.String())
	}
	return strings.Join(out, ", ")
}

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary whose reference servers to run")
	timeout := flag.Duration("timeout", runner.DefaultTimeout, "--timeout of every run (the default is wirecheck run's)")
	startup := flag.Duration("startup-timeout", runner.DefaultStartupTimeout, "--startup-timeout of every run (the default is wirecheck run's)")
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
		m := func(fault, version string) time.Duration {
			return measure(*bin, id, fault, version, *timeout, *startup)
		}
		// The clean run is the yardstick: the median of three, so one
		// slow start on a busy machine does not flatter every fault.
		cleans := []time.Duration{m("", ""), m("", ""), m("", "")}
		sort.Slice(cleans, func(i, j int) bool { return cleans[i] < cleans[j] })
		clean := cleans[1]
		fmt.Printf("%-13s clean run %s\n", id, clean.Round(time.Millisecond))
		for _, f := range b.Protocol.Faults {
			r := result{protocol: id, fault: f.Name, took: m(f.Name, f.Version), clean: clean}
			fmt.Printf("%-13s %-34s %9s %6.1fx  %s\n", id, f.Name, r.took.Round(time.Millisecond), r.ratio(), r.flags())
			all = append(all, r)
		}
	}
	printTable(all, *timeout, *startup)
}

// printTable writes the table, slowest ratio last, each protocol's worst ratio
// and the worst of all.
func printTable(all []result, timeout, startup time.Duration) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].ratio() < all[j].ratio() })
	fmt.Printf("\n%-13s %-34s %9s %9s %7s  (--timeout %s, --startup-timeout %s; goal: at most %.0fx the clean run and %s)\n",
		"PROTOCOL", "FAULT", "RUN", "CLEAN", "RATIO", timeout, startup, maxRatio, maxRun)
	over := 0
	worst := map[string]result{}
	var order []string
	for _, r := range all {
		mark := r.flags()
		if mark != "" {
			over++
			mark = "  " + mark
		}
		fmt.Printf("%-13s %-34s %9s %9s %6.1fx%s\n", r.protocol, r.fault, r.took.Round(time.Millisecond),
			r.clean.Round(time.Millisecond), r.ratio(), mark)
		if w, ok := worst[r.protocol]; !ok || r.ratio() >= w.ratio() {
			if !ok {
				order = append(order, r.protocol)
			}
			worst[r.protocol] = r
		}
	}
	sort.Strings(order)
	fmt.Println()
	var top result
	for _, p := range order {
		w := worst[p]
		fmt.Printf("%-13s worst ratio %5.1fx (%s, %s)\n", p, w.ratio(), w.fault, w.took.Round(time.Millisecond))
		if w.ratio() > top.ratio() || top.protocol == "" {
			top = w
		}
	}
	if top.protocol != "" {
		fmt.Printf("worst ratio of all %.1fx (%s --fault %s)\n", top.ratio(), top.protocol, top.fault)
	}
	fmt.Printf("%d fault run(s), %d over a goal\n", len(all), over)
}

// measure runs a protocol's whole suite against its reference server with
// one fault (none when fault is "") and returns how long it took.
func measure(bin, id, fault, version string, timeout, startup time.Duration) time.Duration {
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
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler, Judge: b.Judge,
		Target:  target.Target{Argv: argv},
		Timeout: timeout, StartupTimeout: startup, Params: params,
	})
	took := time.Since(start)
	if err != nil && !strings.Contains(err.Error(), "could not be started") {
		fmt.Fprintf(os.Stderr, "faultbench: %s --fault %s: %v\n", id, fault, err)
	}
	return took
}
