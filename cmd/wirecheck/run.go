package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

func newRunCmd() *cobra.Command {
	var f common
	var rules, scenarios []string
	var baseline string
	var strict bool
	var seed uint64
	var jobs int
	cmd := &cobra.Command{
		Use:   "run --protocol P [flags] (-- CMD [ARGS…] | --url URL)",
		Short: "Run the protocol's suite against a launched server",
		Example: `  wirecheck run --protocol sonde-serve -- sonde serve --json
  wirecheck run --protocol sonde-serve --report json=out.json --report junit=out.xml -- ./server
  wirecheck run --protocol mcp --revision 2025-06-18 -- ./mcp-server
  wirecheck run --protocol mcp --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${MCP_TOKEN}'
  wirecheck run --protocol mcp --transport http -- ./mcp-server --port {port}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.prepare(commandAfterDash(cmd, args), "")
			if err != nil {
				return err
			} else if jobs < 1 {
				return usageErr("--jobs %d: want 1 or more", jobs)
			} else if err := spec.CheckGlobs(rules, scenarios); err != nil {
				return usageErr("%v", err)
			}
			known, err := report.LoadBaseline(baseline)
			if err != nil {
				return usageErr("%v", err)
			} else if strict && known == nil {
				return usageErr("--baseline-strict needs --baseline FILE")
			} else if strict {
				known.Strict = true
			}
			scs, err := scenario.Select(s.b.Scenarios, scenarios)
			if err != nil {
				return usageErr("%v", err)
			}
			rerun := f.rerun("run", nil, f.level)
			if rerun.Rules = rules; seed != 1 {
				rerun.Seed = seed
			}
			ctx, stop := interruptible()
			defer stop()
			cfg := runner.Config{
				Protocol: s.b.Protocol, Schemas: s.b.Schemas, Scenarios: scs, Handler: s.b.Handler, Target: s.t,
				Timeout: f.timeout, StartupTimeout: f.startupTimeout, Jobs: jobs,
				Rules: rules, Seed: seed, Params: s.params, Partial: len(scenarios) > 0,
				Rerun: &rerun, Shard: f.shard,
			}
			live := f.live(cmd)
			if live != nil {
				cfg.Progress = live
			}
			rep, runErr := runner.Run(ctx, cfg)
			live.Stop()
			known.Apply(rep)
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
