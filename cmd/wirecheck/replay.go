package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
)

func newReplayCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "replay FILE… [--mcp-version V] [flags] -- CMD [ARGS…]",
		Short: "Run saved scenarios (fuzz reproducers, regressions) against a server",
		Long: `Runs saved scenarios against a server. The files name their protocol and the
settings they were saved under: a reproducer of 'wirecheck fuzz' records the
revision it was found in (params: {mcp-version: V}), and replay judges by it.
--param KEY=V (for mcp also --mcp-version V) overrides what the files say;
files that disagree are replayed apart.`,
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
	fl.StringArrayVar(&f.params, "param", nil, "KEY=VALUE setting, over the one the files carry (e.g. mcp-version=2024-11-05: the revision to judge by)")
	fl.StringVar(&f.mcpVer, "mcp-version", "", "MCP revision to judge by, over the one the files carry (protocol mcp; same as --param mcp-version=V)")
	return cmd
}

func runReplay(cmd *cobra.Command, f *runFlags, files, argv []string) error {
	// The protocol and its settings (a revision) come from the files
	// themselves unless --protocol, --param or --mcp-version say.
	type head struct {
		Protocol string            `yaml:"protocol"`
		Params   map[string]string `yaml:"params"`
		// The rest of the file is the scenario's, read by scenario.Parse.
		Rest map[string]any `yaml:",inline"`
	}
	heads := make([]head, len(files))
	datas := make([][]byte, len(files))
	for i, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return usageErr("%v", err)
		}
		// A file that is no YAML at all says so with its line before
		// anything is asked of what it holds.
		if err := spec.DecodeStrict(file, data, &heads[i]); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		datas[i] = data
		if f.protocol == "" {
			f.protocol = heads[i].Protocol
		}
		if f.protocol == "" {
			return usageErr("%s: the file names no protocol; give --protocol", file)
		}
	}
	b, topts, err := f.resolve(argv)
	if err != nil {
		return err
	}
	flagParams, err := parseParams(f.params, "param")
	if err != nil {
		return err
	}
	if f.mcpVer != "" {
		flagParams["mcp-version"] = f.mcpVer
	}
	// A setting the files carry holds unless a flag overrides it; files
	// that disagree are replayed apart.
	params, from := map[string]string{}, map[string]string{}
	for i, h := range heads {
		for k, v := range h.Params {
			if _, forced := flagParams[k]; forced {
				continue
			}
			if prev, seen := params[k]; seen && prev != v {
				return usageErr("%s has params %s=%s, %s has %s=%s: replay them apart, or give --param %s=V for both",
					from[k], k, prev, files[i], k, v, k)
			}
			params[k], from[k] = v, files[i]
		}
	}
	for k, v := range flagParams {
		params[k], from[k] = v, "--param"
	}
	proto := b.Protocol
	if vs := proto.Versions; vs != nil {
		if proto, err = proto.ForVersion(params[vs.Param]); err != nil {
			if src := from[vs.Param]; src != "" && src != "--param" {
				return usageErr("%s: %v", src, err)
			}
			return usageErr("%v", err)
		}
	}
	var scs []*scenario.Scenario
	for i, file := range files {
		s, err := scenario.Parse(file, datas[i], proto)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		scs = append(scs, s)
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
		Target:  target.Target{Argv: topts.Command, Env: topts.Env, Cwd: topts.Dir},
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, Partial: true, Params: params,
		Reproduce: func(name string) string {
			for _, s := range scs {
				if s.Name == name {
					// The settings the file carries it applies itself.
					return again{sub: "replay", head: []string{s.File}, t: &f.targetFlags, level: f.level,
						params: f.params, mcpVer: f.mcpVer, command: argv}.line()
				}
			}
			return ""
		},
	})
	rep.Version = version
	rep.Level = level
	launched, stderr := startupEvidence(rep, b.Protocol)
	nr := notReady(rep, runErr, b.Protocol, &f.targetFlags, argv, launched, stderr)
	if err := writeReports(cmd, rep, outs, f.noColor, f.verbose, nr); err != nil {
		return err
	}
	if nr != nil {
		return &exitError{code: exitNoTarget, err: errors.New("")}
	}
	return outcome(rep, runErr, level, errors.Is(runErr, context.Canceled))
}
