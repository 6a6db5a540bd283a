package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/progress"
	"github.com/wirecheck/wirecheck/internal/target"
)

type fuzzFlags struct {
	common
	duration, shrinkTime time.Duration
	runs, maxActions     int
	freshEvery           int
	seed                 uint64
	save                 string
	rules                []string
}

func newFuzzCmd() *cobra.Command {
	var f fuzzFlags
	cmd := &cobra.Command{
		Use:   "fuzz --protocol P [--duration D | --runs N] [--seed S] [--save DIR] [--revision V] -- CMD [ARGS…]",
		Short: "Generate valid, invalid and malformed request sequences; shrink and save what breaks",
		Long: `Generates request sequences from the protocol's schemas (valid requests,
tool calls with generated arguments, schema-invalid requests, malformed bytes,
pipelined requests, closing stdin), runs them on a server process kept while
it stays healthy (a fresh one after a failure, closed stdin, and every
--fresh-every sequences), and judges them by the same rules as 'wirecheck
run', plus liveness: after bad input and after every sequence the server must
still answer a known-good request. A failing sequence is shrunk to a minimal
one and saved as a scenario file that 'wirecheck replay' runs again; a failure
on a kept process is first confirmed on a fresh one, and one that needs the
sequences before it is saved with them, shrunk. The replay line printed
carries this command's settings. Failures are grouped by rule and by the
action that preceded them. The same seed gives the same sequences.

--duration bounds the whole command, shrinking included: a shrink cut off
saves the failure as far as it got, marked "not minimal". --runs counts new
sequences only; each failure adds up to --shrink-time. The summary says how
long generation and shrinking took.

A protocol with revisions (mcp) is fuzzed in the one --revision V names
(--mcp-version V is its alias), its default otherwise: requests
generated from that revision's schema, the session set up as it says, every
frame judged by it. The reproducer records the revision, and replay uses it.`,
		Example: `  wirecheck fuzz --protocol sonde-serve --duration 60s -- sonde serve --json
  wirecheck fuzz --protocol sonde-serve --runs 5000 --seed 42 --save fixtures/sonde-serve/regressions -- ./server
  wirecheck fuzz --protocol mcp --revision 2026-07-28 --runs 200 -- ./mcp-server
  wirecheck replay reports/sonde-gen-survive-1a2b3c4d5e.yaml -- ./server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFuzz(cmd, &f, commandAfterDash(cmd, args))
		},
	}
	f.add(cmd, "should", "KEY=VALUE: the protocol's revision key names the revision to fuzz, as --revision does")
	fl := cmd.Flags()
	fl.Lookup("timeout").DefValue = fuzz.DefaultTimeout.String()
	_ = fl.Set("timeout", fuzz.DefaultTimeout.String())
	fl.DurationVar(&f.duration, "duration", 0, "the whole campaign's time, shrinking included (instead of --runs): generation stops at it and shrinking is cut off at it")
	fl.IntVar(&f.runs, "runs", fuzz.DefaultRuns, "number of sequences to generate (shrinking not counted: each failure adds up to --shrink-time)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the campaign: the same seed gives the same sequences")
	fl.StringVar(&f.save, "save", "reports", "folder for the shrunk reproducers (scenario files)")
	fl.StringArrayVar(&f.rules, "rules", nil, "only failures of rules matching this glob count (repeatable)")
	fl.IntVar(&f.maxActions, "max-actions", fuzz.DefaultMaxActions, "most actions in one sequence")
	fl.DurationVar(&f.shrinkTime, "shrink-time", fuzz.DefaultShrinkTime, "most time spent shrinking one failure (within --duration when given)")
	fl.Var(&f.shard, "shard", "fuzz only shard i of n of the campaign (by seed batch; --runs is shared out), for several machines")
	fl.IntVar(&f.freshEvery, "fresh-every", fuzz.DefaultFreshEvery, "most sequences one server process serves before a fresh one replaces it (1: a process per sequence)")
	return cmd
}

func runFuzz(cmd *cobra.Command, f *fuzzFlags, argv []string) error {
	s, err := f.prepare(argv, "fuzz")
	if err != nil {
		return err
	} else if f.freshEvery < 1 {
		return usageErr("--fresh-every must be at least 1")
	} else if f.runs <= 0 && f.duration <= 0 {
		return usageErr("--runs must be positive (or give --duration)")
	} else if s.t.FixedPort() {
		// The campaign starts fresh processes ahead of need: on one port
		// they would find it taken.
		return usageErr("--url %s: fuzz starts several servers at once; put {port} in --url (the port wirecheck picks for each)", target.MaskURL(s.t.URL))
	} else if s.proto.Fuzz == nil && s.proto.Probe == nil {
		return usageErr("protocol %s has no fuzz model yet", s.proto.ID)
	}
	// The replay line printed, written in each reproducer and in the
	// report: the same settings as this campaign, so it fails the same way.
	replay := func(file string) string { return s.t.Line(f.rerun("replay", []string{file}, "")) }
	level, _, _ := f.judging()
	c, err := fuzz.New(fuzz.Config{
		Protocol: s.proto, Schemas: s.b.Schemas, Handler: s.b.Handler, Target: s.t, FreshEvery: f.freshEvery,
		Runs: f.runs, Duration: f.duration, Seed: f.seed, MaxActions: f.maxActions,
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, ShrinkTime: f.shrinkTime,
		Level: level, Rules: f.rules, Replay: replay, Shard: f.shard,
	})
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, stop := interruptible()
	defer stop()
	hideProgress := func() {}
	if progress.On(cmd.OutOrStdout(), cmd.ErrOrStderr(), f.reports, f.noProgress) {
		hideProgress = c.Progress(cmd.ErrOrStderr())
	}
	bugs, runErr := c.Run(ctx)
	interrupted := ctx.Err() != nil
	hideProgress()
	stop()
	c.SaveAll(bugs, f.save, cmd.ErrOrStderr())
	rep := c.Report(bugs, replay)
	if interrupted {
		rep.Notes = append(rep.Notes, "interrupted: the campaign ended early")
	}
	return f.finish(cmd, rep, runErr, s, interrupted, func() { fuzz.Summary(cmd.OutOrStdout(), c.Stats(), bugs, replay) })
}
