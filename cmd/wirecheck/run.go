package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/certify"
	"github.com/wirecheck/wirecheck/internal/procs"
	"github.com/wirecheck/wirecheck/internal/runner"
)

func newRunCmd() *cobra.Command {
	var f common
	var r certify.Request // the flags of the run fill it in
	cmd := &cobra.Command{
		Use:     "run --protocol P [flags] (-- CMD [ARGS…] | --url URL)",
		Short:   "Run the protocol's suite against a launched server (or, --role client, a client)",
		Long:    help("run", "long"),
		Example: help("run", "example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			procs.ForJudging()
			// Listening from the start: a signal while the suite is
			// prepared ends the run as one during it does.
			ctx, w := interruptible(cmd.ErrOrStderr())
			defer w.Stop()
			s, err := f.prepare(commandAfterDash(cmd, args), "")
			if err != nil {
				return err
			}
			r.Bundle, r.Params, r.Target, r.Timeout, r.StartupTimeout, r.Revisions = s.b, s.params, s.t, f.timeout, f.startupTimeout, s.all
			r.Rerun = new(f.rerun("run", nil, f.level))
			plan, err := certify.Prepare(r)
			if err != nil {
				return usageErr("%v", err)
			}
			live, hide := f.live(cmd)
			rep, runErr := plan.Run(ctx, live)
			hide()
			return f.finish(cmd, rep, runErr, s, w, nil)
		},
	}
	f.add(cmd, "must", "KEY=VALUE setting for protocol-specific scenarios (repeatable)")
	fl := cmd.Flags()
	fl.StringArrayVar(&r.Rules, "rules", nil, "only rules matching this glob, e.g. 'SONDE-ID-*' (repeatable)")
	fl.StringArrayVar(&r.Scenarios, "scenario", nil, "only scenarios matching this glob (repeatable)")
	fl.StringVar(&r.Baseline, "baseline", "", "file of known failures that do not fail the run (a JSON report, lines 'RULE [SCENARIO]', or the official MCP suite's expected-failures YAML)")
	fl.Var(&r.Shard, "shard", "run only shard i of n (by lane: one per server process), for a CI matrix; 'report merge' recombines the shards' JSON reports")
	fl.BoolVar(&r.Strict, "baseline-strict", false, "fail the run when a baseline entry no longer fails, so the baseline cannot rot")
	fl.Uint64Var(&r.Seed, "seed", 1, "seed for generated input (tool arguments), so a run is reproducible")
	fl.IntVar(&r.Jobs, "jobs", runner.DefaultJobs, "server processes that may run at once (scenarios needing a fresh process run side by side); against a server given by --url, the sessions at work at once, at most 4x as many open (a session waiting by design lends its place); 1 runs one scenario at a time")
	fl.StringVar(&f.role, "role", "server", "what the target is: server (wirecheck plays the client) or client (wirecheck plays the server the client's command reaches through {server}, or {url} with --transport http|sse; over HTTP also the words of the credentials it is provisioned with, {client_id}, {client_secret}, {issuer}, {client_key}, {assertion}, {id_token}, {idp_token_endpoint} and {idp_client_id})")
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
