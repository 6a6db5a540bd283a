package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/target"
)

type fuzzFlags struct {
	targetFlags
	duration   time.Duration
	runs       int
	seed       uint64
	save       string
	reports    []string
	level      string
	rules      []string
	maxActions int
	shrinkTime time.Duration
	freshEvery int
	params     []string
	mcpVer     string
	noColor    bool
}

func newFuzzCmd() *cobra.Command {
	var f fuzzFlags
	cmd := &cobra.Command{
		Use:   "fuzz --protocol P [--duration D | --runs N] [--seed S] [--save DIR] [--mcp-version V] -- CMD [ARGS…]",
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

A protocol with revisions (mcp) is fuzzed in the one --param <its version
key>=V names (for mcp also --mcp-version V), its default otherwise: requests
generated from that revision's schema, the session set up as it says, every
frame judged by it. The reproducer records the revision, and replay uses it.`,
		Example: `  wirecheck fuzz --protocol sonde-serve --duration 60s -- sonde serve --json
  wirecheck fuzz --protocol sonde-serve --runs 5000 --seed 42 --save fixtures/sonde-serve/regressions -- ./server
  wirecheck fuzz --protocol mcp --mcp-version 2026-07-28 --runs 200 -- ./mcp-server
  wirecheck replay reports/sonde-gen-survive-1a2b3c4d5e.yaml -- ./server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFuzz(cmd, &f, commandAfterDash(cmd, args))
		},
	}
	f.targetFlags.add(cmd)
	fl := cmd.Flags()
	fl.Lookup("timeout").DefValue = fuzz.DefaultTimeout.String()
	_ = fl.Set("timeout", fuzz.DefaultTimeout.String())
	fl.DurationVar(&f.duration, "duration", 0, "the whole campaign's time, shrinking included (instead of --runs): generation stops at it and shrinking is cut off at it")
	fl.IntVar(&f.runs, "runs", fuzz.DefaultRuns, "number of sequences to generate (shrinking not counted: each failure adds up to --shrink-time)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the campaign: the same seed gives the same sequences")
	fl.StringVar(&f.save, "save", "reports", "folder for the shrunk reproducers (scenario files)")
	fl.StringArrayVar(&f.reports, "report", nil, "write a report: FORMAT=PATH (repeatable)")
	fl.StringVar(&f.level, "level", "should", "lowest rule level whose failure is a finding: must, should or may")
	fl.StringArrayVar(&f.rules, "rules", nil, "only failures of rules matching this glob count (repeatable)")
	fl.IntVar(&f.maxActions, "max-actions", fuzz.DefaultMaxActions, "most actions in one sequence")
	fl.DurationVar(&f.shrinkTime, "shrink-time", fuzz.DefaultShrinkTime, "most time spent shrinking one failure (within --duration when given)")
	fl.IntVar(&f.freshEvery, "fresh-every", fuzz.DefaultFreshEvery, "most sequences one server process serves before a fresh one replaces it (1: a process per sequence)")
	fl.StringArrayVar(&f.params, "param", nil, "KEY=VALUE: the protocol's version key picks the revision to fuzz (e.g. mcp-version=2024-11-05)")
	fl.StringVar(&f.mcpVer, "mcp-version", "", "MCP revision to fuzz and judge by (protocol mcp; same as --param mcp-version=V)")
	fl.BoolVar(&f.noColor, "no-color", false, "no colour in the console output")
	return cmd
}

func runFuzz(cmd *cobra.Command, f *fuzzFlags, argv []string) error {
	b, topts, err := f.resolve(argv)
	if err != nil {
		return err
	}
	proto, err := versionFor("fuzz", b.Protocol, f.params, f.mcpVer)
	if err != nil {
		return err
	}
	level, err := parseLevel(f.level)
	if err != nil {
		return err
	}
	outs, err := parseReports(f.reports)
	if err != nil {
		return err
	}
	if f.freshEvery < 1 {
		return usageErr("--fresh-every must be at least 1")
	}
	if f.runs <= 0 && f.duration <= 0 {
		return usageErr("--runs must be positive (or give --duration)")
	}
	if proto.Fuzz == nil && proto.Probe == nil {
		return usageErr("protocol %s has no fuzz model yet", proto.ID)
	}
	// The replay line printed, written in each reproducer and in the
	// report: the same settings as this campaign, so it fails the same way.
	replay := func(file string) string {
		return again{sub: "replay", head: []string{file}, t: &f.targetFlags,
			params: f.params, mcpVer: f.mcpVer, command: argv}.line()
	}
	c, err := fuzz.New(fuzz.Config{
		Protocol: proto, Schemas: b.Schemas, Handler: b.Handler,
		Target: target.Target{Argv: topts.Command, Env: topts.Env, Cwd: topts.Dir},
		Runs:   f.runs, Duration: f.duration, Seed: f.seed, MaxActions: f.maxActions,
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, ShrinkTime: f.shrinkTime,
		FreshEvery: f.freshEvery, Level: level, Rules: f.rules, Replay: replay,
	})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errOut := cmd.ErrOrStderr()
	progressDone := make(chan struct{})
	if file, ok := errOut.(*os.File); ok && report.IsTerminal(file) {
		go func() {
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					st := c.Stats()
					fmt.Fprintf(errOut, "\r\x1b[K%s", progressLine(st))
				case <-progressDone:
					fmt.Fprint(errOut, "\r\x1b[K")
					return
				}
			}
		}()
	}
	bugs, runErr := c.Run(ctx)
	interrupted := ctx.Err() != nil
	close(progressDone)
	stop()

	for _, bug := range bugs {
		file, err := c.Save(bug, f.save)
		if err != nil {
			fmt.Fprintf(errOut, "wirecheck: saving the reproducer of %s: %v\n", bug.Rule, err)
			continue
		}
		bug.File = file
	}
	rep := c.Report(bugs, replay)
	rep.Version = version
	if interrupted {
		rep.Notes = append(rep.Notes, "interrupted: the campaign ended early")
	}
	launched, stderr := c.NotStarted()
	nr := notReady(rep, runErr, proto, &f.targetFlags, argv, launched, stderr)
	if err := writeReports(cmd, rep, outs, f.noColor, false, nr); err != nil {
		return err
	}
	if nr != nil {
		return &exitError{code: exitNoTarget, err: errors.New("")}
	}
	st := c.Stats()
	fmt.Fprintf(cmd.OutOrStdout(), "\nfuzz: %s · %d distinct failure(s)\n  time: %s\n", progressLine(st), len(bugs), st.Parts())
	for _, bug := range bugs {
		fmt.Fprintf(cmd.OutOrStdout(), "  %s %s after %s: %d hit(s)\n", bug.Rule, bug.Level, bug.Shape, bug.Hits)
		if bug.Unshrunk != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "    not minimal: %s\n", bug.Unshrunk)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "    saved %s\n    replay: %s\n", bug.File, replay(bug.File))
	}
	return outcome(rep, runErr, level, interrupted)
}

func progressLine(st fuzz.Stats) string {
	rate := 0.0
	if s := st.Elapsed.Seconds(); s > 0 {
		rate = float64(st.Messages) / s
	}
	return strings.Join([]string{
		fmt.Sprintf("%d sequences", st.Sequences),
		fmt.Sprintf("%d messages", st.Messages),
		fmt.Sprintf("%.0f msg/s", rate),
		fmt.Sprintf("%d distinct failures", st.Bugs),
		st.Elapsed.Round(100 * time.Millisecond).String(),
	}, " · ")
}
