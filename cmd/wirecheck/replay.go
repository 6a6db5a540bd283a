package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

func newReplayCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "replay FILE… [flags] -- CMD [ARGS…]",
		Short: "Run saved scenarios (fuzz reproducers, regressions) against a server",
		Example: `  wirecheck replay reports/sonde-gen-survive-1a2b3c4d5e.yaml -- ./server
  wirecheck replay fixtures/sonde-serve/regressions/*.yaml -- ./server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := args
			var argv []string
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				files, argv = args[:n], args[n:]
			}
			if len(files) == 0 {
				return usageErr("no scenario file given: wirecheck replay FILE… -- CMD")
			}
			return runReplay(cmd, &f, files, argv)
		},
	}
	f.targetFlags.add(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.reports, "report", nil, "write a report: FORMAT=PATH (repeatable)")
	fl.StringVar(&f.level, "level", "may", "lowest rule level whose failure fails the run: must, should or may")
	fl.BoolVar(&f.noColor, "no-color", false, "no colour in the console table")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show passing findings too")
	return cmd
}

func runReplay(cmd *cobra.Command, f *runFlags, files, argv []string) error {
	// The protocol comes from the files themselves unless --protocol says.
	var scs []*scenario.Scenario
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return usageErr("%v", err)
		}
		var head struct {
			Protocol string `yaml:"protocol"`
		}
		_ = yaml.Unmarshal(data, &head)
		if f.protocol == "" {
			f.protocol = head.Protocol
		}
		if f.protocol == "" {
			return usageErr("%s: the file names no protocol; give --protocol", file)
		}
		b, err := loadBundle(f.protocol)
		if err != nil {
			return err
		}
		s, err := scenario.Parse(file, data, b.Protocol)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		scs = append(scs, s)
	}
	b, topts, err := f.resolve(argv)
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := runner.Run(ctx, runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: scs, Handler: b.Handler,
		Launch:  func() (transport.Transport, error) { return transport.Launch(topts) },
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, Partial: true,
		Target: runner.Describe(argv),
		Reproduce: func(name string) string {
			for _, s := range scs {
				if s.Name == name {
					return runner.Describe(append([]string{"wirecheck", "replay", s.File, "--"}, argv...))
				}
			}
			return ""
		},
	})
	rep.Version = version
	rep.Level = level
	if err := writeReports(cmd, rep, outs, f.noColor, f.verbose); err != nil {
		return err
	}
	return outcome(rep, runErr, level, errors.Is(runErr, context.Canceled))
}
