// Command faultbench measures what a planted fault costs a run: for every
// fault of every protocol, the run against the reference server with that
// fault switched on, over the transport and under the revision the fault
// is declared for, against the clean run of the same transport and
// revision, both at the timeouts a user of `wirecheck run` gets by
// default. A fault whose only symptom is silence costs one bound (a
// --timeout, a declared within, the start-up timeout) however well the
// engine does, so beside the raw ratio it prints the bounds each run
// waited out, read from the run's own observations ("no response …
// within 5s (--timeout)"), and the ratio with those waits taken off. The
// goal: no fault waits out more than one bound in series, none costs
// more than twice the clean run beyond its bounds, none runs over two
// minutes. It prints, flagging the runs that miss it, and marks NOT
// TRIPPED a run that failed none of the rules its fault trips (it
// measured a server without the fault's effect); it does not fail.
// `make bench` runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary whose reference servers to run")
	timeout := flag.Duration("timeout", runner.DefaultTimeout, "--timeout of every run (the default is wirecheck run's)")
	startup := flag.Duration("startup-timeout", runner.DefaultStartupTimeout, "--startup-timeout of every run (the default is wirecheck run's)")
	only := flag.String("protocol", "", "measure one protocol only")
	faults := flag.String("fault", "", "measure these faults only (comma-separated)")
	over := flag.String("transport", "", "measure only the fault runs over this transport (stdio, http, sse)")
	flag.Parse()
	if _, err := os.Stat(*bin); err != nil {
		fmt.Fprintf(os.Stderr, "faultbench: %v (run make build first, or pass -bin)\n", err)
		os.Exit(2)
	}
	pick := map[string]bool{}
	for _, f := range strings.Split(*faults, ",") {
		if f = strings.TrimSpace(f); f != "" {
			pick[f] = true
		}
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
		m := func(fault string, l launch) (time.Duration, []wait, *report.Report) {
			return measure(*bin, b, fault, l, *timeout, *startup)
		}
		cleans := map[string]time.Duration{}
		clean := func(l launch) time.Duration {
			c := l.clean(b.Protocol)
			if d, ok := cleans[c.key()]; ok {
				return d
			}
			// The clean run is the yardstick: the median of three, so
			// one slow start on a busy machine does not flatter every
			// fault. Measured once per transport and revision.
			var ds []time.Duration
			for range 3 {
				d, ws, _ := m("", c)
				if len(ws) > 0 {
					fmt.Fprintf(os.Stderr, "faultbench: %s clean run over %s waited out %d bound(s)\n", id, c.key(), len(distinct(ws)))
				}
				ds = append(ds, d)
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			cleans[c.key()] = ds[1]
			fmt.Printf("%-13s clean run over %-22s %9s\n", id, c.key(), ds[1].Round(time.Millisecond))
			return ds[1]
		}
		for _, f := range b.Protocol.Faults {
			if len(pick) > 0 && !pick[f.Name] {
				continue
			}
			for _, l := range launches(b.Protocol, f) {
				if *over != "" && l.Transport != *over {
					continue
				}
				c := clean(l)
				took, ws, rep := m(f.Name, l)
				r := newResult(id, f.Name, l.key(), took, c, ws)
				r.untripped = !tripped(rep, f)
				fmt.Printf("%-13s %-44s %9s %6.1fx  %d bound(s) %6.1fx beyond  %s\n", id, r.name(), r.took.Round(time.Millisecond),
					r.ratio(), r.bounds, r.beyond(), r.flags())
				all = append(all, r)
			}
		}
	}
	printTable(all, *timeout, *startup)
}

// printTable writes the table, slowest ratio beyond bounds last, each
// protocol's worst ratios, the worst of all and the goal's verdict.
func printTable(all []result, timeout, startup time.Duration) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].beyond() < all[j].beyond() })
	fmt.Printf("\n%-13s %-44s %9s %9s %7s %6s %9s %7s  (--timeout %s, --startup-timeout %s)\n",
		"PROTOCOL", "FAULT (OVER)", "RUN", "CLEAN", "RATIO", "BOUNDS", "WAITED", "BEYOND", timeout, startup)
	byProtocol := map[string]*worst{}
	var order []string
	for i := range all {
		r := &all[i]
		mark := r.flags()
		if mark != "" {
			mark = "  " + mark
		}
		fmt.Printf("%-13s %-44s %9s %9s %6.1fx %6d %9s %6.1fx%s\n", r.protocol, r.name(), r.took.Round(time.Millisecond),
			r.clean.Round(time.Millisecond), r.ratio(), r.bounds, r.waited.Round(time.Millisecond), r.beyond(), mark)
		if byProtocol[r.protocol] == nil {
			byProtocol[r.protocol] = &worst{}
			order = append(order, r.protocol)
		}
		byProtocol[r.protocol].add(r)
	}
	sort.Strings(order)
	fmt.Println()
	var top worst
	for _, p := range order {
		w := byProtocol[p]
		fmt.Printf("%-13s worst ratio %5.1fx (%s, %s); worst beyond its bounds %5.1fx (%s, %s)\n", p,
			w.raw.ratio(), w.raw.name(), w.raw.took.Round(time.Millisecond), w.beyond.beyond(), w.beyond.name(), w.beyond.took.Round(time.Millisecond))
		top.add(w.raw)
		top.add(w.beyond)
	}
	if top.raw != nil {
		fmt.Printf("worst ratio of all %.1fx (%s); worst beyond its bounds %.1fx (%s)\n",
			top.raw.ratio(), top.raw.command(), top.beyond.beyond(), top.beyond.command())
	}
	fmt.Println(verdictOf(all))
}

// measure runs a protocol's whole suite against its reference server with
// one fault (none when fault is "") as l launches it, and returns how
// long it took and the waits its observations say ran out.
func measure(bin string, b *protocols.Bundle, fault string, l launch, timeout, startup time.Duration) (time.Duration, []wait, *report.Report) {
	params := map[string]string{}
	for k, v := range runParams[b.Protocol.ID] {
		params[k] = v
	}
	if l.Revision != "" && b.Protocol.Versions != nil {
		params[b.Protocol.Versions.Param] = l.Revision
	}
	rec := &recorder{}
	start := time.Now()
	rep, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler, Judge: b.Judge,
		Target:  serverTarget(bin, b.Protocol, fault, l),
		Timeout: timeout, StartupTimeout: startup, Params: params, Progress: rec,
	})
	took := time.Since(start)
	ws := rec.waits
	if rep != nil {
		// A server that never started says so in a note ("no ready line
		// within 10s (--startup-timeout)"): the start-up bound, if the
		// run waited it out.
		for _, n := range rep.Notes {
			if w, ok := waitOf(verdict.Observation{Scenario: "(run)", Message: n}, start.Add(took)); ok {
				ws = append(ws, w)
			}
		}
	}
	ws = inRun(ws, start)
	if err != nil && !errors.Is(err, session.ErrNotStarted) {
		fmt.Fprintf(os.Stderr, "faultbench: %s --fault %s over %s: %v\n", b.Protocol.ID, fault, l.key(), err)
	}
	return took, ws, rep
}
