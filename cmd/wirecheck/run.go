package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/certify"
	"github.com/wirecheck/wirecheck/internal/runner"
)

func newRunCmd() *cobra.Command {
	var f common
	var rules, scenarios []string
	var baseline string
	var strict bool
	var seed uint64
	var jobs int
	cmd := &cobra.Command{
		Use:     "run --protocol P [flags] (-- CMD [ARGS…] | --url URL)",
		Short:   "Run the protocol's suite against a launched server",
		Example: help("run", "example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.prepare(commandAfterDash(cmd, args), "")
			if err != nil {
				return err
			}
			plan, err := certify.Prepare(certify.Request{Bundle: s.b, Params: s.params, Target: s.t,
				Scenarios: scenarios, Rules: rules, Baseline: baseline, Strict: strict, Seed: seed, Jobs: jobs,
				Timeout: f.timeout, StartupTimeout: f.startupTimeout, Shard: f.shard, Rerun: new(f.rerun("run", nil, f.level))})
			if err != nil {
				return usageErr("%v", err)
			}
			ctx, stop := interruptible()
			defer stop()
			live, hide := f.live(cmd)
			rep, runErr := plan.Run(ctx, live)
			hide()
			return f.finish(cmd, rep, runErr, s, errors.Is(runErr, context.Canceled), nil)
		},
	}
	f.add(cmd, "must", "KEY=VALUE setting for protocol-specific scenarios (repeatable)")
	fl := cmd.Flags()
	fl.StringArrayVar(&rules, "rules", nil, "only rules matching this glob, e.g. 'SONDE-ID-*' (repeatable)")
	fl.StringArrayVar(&scenarios, "scenario", nil, "only scenarios matching this glob (repeatable)")
	fl.StringVar(&baseline, "baseline", "", "file of known failures that do not fail the run (a JSON report, or lines 'RULE [SCENARIO]')")
	fl.Var(&f.shard, "shard", "run only shard i of n (by lane: one per server process), for a CI matrix; 'report merge' recombines the shards' JSON reports")
	fl.BoolVar(&strict, "baseline-strict", false, "fail the run when a baseline entry no longer fails, so the baseline cannot rot")
	fl.Uint64Var(&seed, "seed", 1, "seed for generated input (tool arguments), so a run is reproducible")
	fl.IntVar(&jobs, "jobs", runner.DefaultJobs, "server processes that may run at once (scenarios needing a fresh process run side by side); 1 runs one scenario at a time")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show passing findings too")
	return cmd
}

// commandAfterDash returns the server command: everything after "--".
func commandAfterDash(cmd *cobra.Command, args []string) []string {
	if n := cmd.ArgsLenAtDash(); n >= 0 {
		return args[n:]
	}
	return args
}
