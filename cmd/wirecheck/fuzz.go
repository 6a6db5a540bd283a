package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/certify"
	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/progress"
	"github.com/wirecheck/wirecheck/internal/runner"
)

type fuzzFlags struct {
	common
	duration, shrinkTime time.Duration
	runs, maxActions     int
	freshEvery, maxFails int
	jobs                 int
	seed                 uint64
	save                 string
	rules                []string
}

func newFuzzCmd() *cobra.Command {
	var f fuzzFlags
	cmd := &cobra.Command{
		Use:     "fuzz --protocol P [--role server|client] [--duration D] [--runs N] [--seed S] [--save DIR] [--revision V] -- CMD [ARGS…]",
		Short:   "Generate valid, invalid and malformed request sequences; shrink and save what breaks",
		Long:    help("fuzz", "long"),
		Example: help("fuzz", "example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFuzz(cmd, &f, commandAfterDash(cmd, args))
		},
	}
	f.add(cmd, "should", "KEY=VALUE: the protocol's revision key names the revision to fuzz, as --revision does")
	fl := cmd.Flags()
	fl.Lookup("timeout").DefValue = fuzz.DefaultTimeout.String()
	_ = fl.Set("timeout", fuzz.DefaultTimeout.String())
	fl.DurationVar(&f.duration, "duration", 0, "the whole campaign's time, shrinking included: generation stops at it and shrinking is cut off at it; alone, the only budget; with --runs, a cap on it (default with --runs: "+fuzz.DefaultCap.String()+")")
	fl.IntVar(&f.runs, "runs", fuzz.DefaultRuns, "number of sequences to generate (shrinking not counted: each failure adds up to --shrink-time), capped by --duration")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the campaign: the same seed gives the same sequences")
	fl.StringVar(&f.save, "save", "reports", "folder for the shrunk reproducers (scenario files)")
	fl.StringArrayVar(&f.rules, "rules", nil, "only failures of rules matching this glob count (repeatable)")
	fl.IntVar(&f.maxActions, "max-actions", fuzz.DefaultMaxActions, "most actions in one sequence")
	fl.DurationVar(&f.shrinkTime, "shrink-time", fuzz.DefaultShrinkTime, "most time spent shrinking one failure (within --duration); when it is spent the smallest failing sequence so far is saved, its header saying it is not minimal")
	fl.Var(&f.shard, "shard", "fuzz only shard i of n of the campaign (by seed batch; --runs is shared out), for several machines")
	fl.IntVar(&f.freshEvery, "fresh-every", fuzz.DefaultFreshEvery, "most sequences one server process serves before a fresh one replaces it (1: a process per sequence)")
	fl.IntVar(&f.jobs, "jobs", runner.DefaultJobs, "sequences that may run at once, each on a server process of its own (as run's --jobs); the same seed finds the same first failure whatever this is; 1 runs one sequence at a time")
	fl.StringVar(&f.role, "role", "server", "what the target is: server (wirecheck plays a hostile client) or client (wirecheck plays a hostile server the client's command reaches through {server})")
	fl.IntVar(&f.maxFails, "max-failures", 0, "end the campaign once this many distinct failures are found, each shrunk and saved (0: no limit)")
	return cmd
}

func runFuzz(cmd *cobra.Command, f *fuzzFlags, argv []string) error {
	ctx, w := interruptible(cmd.ErrOrStderr())
	defer w.Stop()
	s, err := f.prepare(argv, "fuzz")
	if err != nil {
		return err
	} else if f.freshEvery < 1 {
		return usageErr("--fresh-every must be at least 1")
	} else if err := certify.CheckRules(s.b.Protocol, f.rules); err != nil {
		return usageErr("%v", err)
	} else if f.jobs < 1 {
		return usageErr("--jobs %d: want 1 or more", f.jobs)
	}
	fl := cmd.Flags()
	switch {
	case f.duration < 0 || fl.Changed("duration") && f.duration == 0:
		return usageErr("--duration must be positive")
	case fl.Changed("runs") && f.runs <= 0:
		return usageErr("--runs must be positive (or give --duration alone)")
	case fl.Changed("duration") && !fl.Changed("runs"):
		// --duration alone is the only budget, as it always was.
		f.runs = 0
	}
	// The replay line (printed, in each reproducer, in the report) repeats this campaign's settings.
	replay := func(file string) string { return s.t.Line(f.rerun("replay", []string{file}, "")) }
	level, _, _ := f.judging()
	c, err := fuzz.New(fuzz.Config{
		Protocol: s.proto, Schemas: s.b.Schemas, Handler: s.b.StepHandler(s.proto), Judge: s.b.Judge, Target: s.t, FreshEvery: f.freshEvery, Jobs: f.jobs,
		Runs: f.runs, Duration: f.duration, Seed: f.seed, MaxActions: f.maxActions,
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, ShrinkTime: f.shrinkTime,
		Level: level, Rules: f.rules, Replay: replay, Shard: f.shard, MaxFailures: f.maxFails,
	})
	if err != nil {
		return usageErr("%v", err)
	}
	hideProgress := progress.Campaign(cmd.OutOrStdout(), cmd.ErrOrStderr(), f.reports, f.noProgress, c.Progress)
	bugs, runErr := c.Run(ctx)
	hideProgress()
	// The failures found before the signal are saved, then reported.
	c.SaveAll(bugs, f.save, cmd.ErrOrStderr())
	rep := c.Report(bugs, replay)
	return f.finish(cmd, rep, runErr, s, w, func() { fuzz.Summary(cmd.OutOrStdout(), c.Stats(), bugs, replay) })
}
