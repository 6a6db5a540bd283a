package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// targetFlags are the flags every command that talks to a server shares.
type targetFlags struct {
	protocol       string
	url            string
	transport      string
	headers        []string
	env            []string
	cwd            string
	timeout        time.Duration
	startupTimeout time.Duration
}

func (t *targetFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&t.protocol, "protocol", "", "protocol to check (see 'wirecheck protocols')")
	f.StringVar(&t.url, "url", "", "check a running server at this URL instead of launching one")
	f.StringVar(&t.transport, "transport", "stdio", "transport to the server: stdio")
	f.StringArrayVar(&t.headers, "header", nil, "HTTP header 'Name: value' (repeatable; HTTP transports only)")
	f.StringArrayVar(&t.env, "env", nil, "KEY=VALUE added to the server's environment (repeatable)")
	f.StringVar(&t.cwd, "cwd", "", "working directory of the server")
	f.DurationVar(&t.timeout, "timeout", runner.DefaultTimeout, "how long to wait for each response")
	f.DurationVar(&t.startupTimeout, "startup-timeout", runner.DefaultStartupTimeout, "how long to wait for the server to become ready")
}

// resolve checks the target flags against the command line after "--".
func (t *targetFlags) resolve(argv []string) (*protocols.Bundle, transport.Options, error) {
	var o transport.Options
	if t.protocol == "" {
		return nil, o, usageErr("--protocol is required (one of: %s)", strings.Join(protocols.IDs(), ", "))
	}
	b, err := protocols.Load(t.protocol)
	if err != nil {
		return nil, o, &exitError{code: exitUsage, err: err}
	}
	if t.url != "" {
		return nil, o, usageErr("--url: protocol %s is reached over %s only; launch the server with '-- CMD [ARGS…]'",
			t.protocol, strings.Join(b.Protocol.Transports, ", "))
	}
	if t.transport != "stdio" {
		return nil, o, usageErr("--transport %q: protocol %s supports %s", t.transport, t.protocol, strings.Join(b.Protocol.Transports, ", "))
	}
	if len(t.headers) > 0 {
		return nil, o, usageErr("--header applies to HTTP transports only; this run uses stdio")
	}
	if len(argv) == 0 {
		return nil, o, usageErr("no server command: give it after '--', e.g. wirecheck run --protocol %s -- ./my-server", t.protocol)
	}
	for _, e := range t.env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return nil, o, usageErr("--env %q: want KEY=VALUE", e)
		}
	}
	if t.cwd != "" {
		if st, err := os.Stat(t.cwd); err != nil || !st.IsDir() {
			return nil, o, usageErr("--cwd %q: not a directory", t.cwd)
		}
	}
	if t.timeout <= 0 || t.startupTimeout <= 0 {
		return nil, o, usageErr("--timeout and --startup-timeout must be positive")
	}
	o = transport.Options{Command: argv, Dir: t.cwd, Env: t.env}
	return b, o, nil
}

type runFlags struct {
	targetFlags
	reports   []string
	level     string
	rules     []string
	scenarios []string
	baseline  string
	seed      uint64
	params    []string
	mcpVer    string
	jobs      int
	noColor   bool
	verbose   bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --protocol P [flags] -- CMD [ARGS…]",
		Short: "Run the protocol's suite against a launched server",
		Example: `  wirecheck run --protocol sonde-serve -- sonde serve --json
  wirecheck run --protocol sonde-serve --report json=out.json --report junit=out.xml -- ./server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSuite(cmd, &f, commandAfterDash(cmd, args))
		},
	}
	f.targetFlags.add(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.reports, "report", nil, "write a report: FORMAT=PATH, format one of "+strings.Join(report.Formats(), ", ")+" (repeatable; PATH - is stdout)")
	fl.StringVar(&f.level, "level", "must", "lowest rule level whose failure fails the run: must, should or may")
	fl.StringArrayVar(&f.rules, "rules", nil, "only rules matching this glob, e.g. 'SONDE-ID-*' (repeatable)")
	fl.StringArrayVar(&f.scenarios, "scenario", nil, "only scenarios matching this glob (repeatable)")
	fl.StringVar(&f.baseline, "baseline", "", "file of known failures that do not fail the run (a JSON report, or lines 'RULE [SCENARIO]')")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for generated input (tool arguments), so a run is reproducible")
	fl.StringArrayVar(&f.params, "param", nil, "KEY=VALUE setting for protocol-specific scenarios (repeatable)")
	fl.StringVar(&f.mcpVer, "mcp-version", "", "MCP revision to request and judge by (protocol mcp; same as --param mcp-version=V)")
	fl.IntVar(&f.jobs, "jobs", runner.DefaultJobs, "server processes that may run at once (scenarios needing a fresh process run side by side); 1 runs one scenario at a time")
	fl.BoolVar(&f.noColor, "no-color", false, "no colour in the console table, even on a terminal")
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

func parseLevel(s string) (verdict.Level, error) {
	switch strings.ToLower(s) {
	case "must":
		return verdict.Must, nil
	case "should":
		return verdict.Should, nil
	case "may":
		return verdict.May, nil
	}
	return "", usageErr("--level %q: want must, should or may", s)
}

func parseParams(kvs []string, flag string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("--%s %q: want KEY=VALUE", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}

type reportOut struct{ format, path string }

func parseReports(specs []string) ([]reportOut, error) {
	var out []reportOut
	for _, s := range specs {
		format, p, err := report.ParseSpec(s)
		if err != nil {
			return nil, usageErr("--report %q: %v", s, err)
		}
		out = append(out, reportOut{format, p})
	}
	return out, nil
}

func runSuite(cmd *cobra.Command, f *runFlags, argv []string) error {
	b, topts, err := f.resolve(argv)
	if err != nil {
		return err
	}
	level, err := parseLevel(f.level)
	if err != nil {
		return err
	}
	if f.jobs < 1 {
		return usageErr("--jobs %d: want 1 or more", f.jobs)
	}
	params, err := parseParams(f.params, "param")
	if err != nil {
		return err
	}
	if f.mcpVer != "" {
		params["mcp-version"] = f.mcpVer
	}
	if v := b.Protocol.Versions; v != nil {
		if _, err := b.Protocol.ForVersion(params[v.Param]); err != nil {
			return usageErr("%v", err)
		}
	}
	outs, err := parseReports(f.reports)
	if err != nil {
		return err
	}
	for _, g := range append(append([]string{}, f.rules...), f.scenarios...) {
		if _, err := path.Match(g, ""); err != nil {
			return usageErr("bad glob %q: %v", g, err)
		}
	}
	var known *baseline
	if f.baseline != "" {
		if known, err = loadBaseline(f.baseline); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	scs, err := selectScenarios(b.Scenarios, f.scenarios)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := runner.Run(ctx, runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: scs, Handler: b.Handler,
		Target:  target.Target{Argv: topts.Command, Env: topts.Env, Cwd: topts.Dir},
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, Jobs: f.jobs,
		Rules: f.rules, Seed: f.seed, Params: params, Partial: len(f.scenarios) > 0,
		Reproduce: func(name string) string { return reproduce(f, name, argv) },
	})
	rep.Version = version
	rep.Level = level
	if known != nil {
		rep.Notes = append(rep.Notes, known.apply(rep)...)
	}
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

func selectScenarios(all []*scenario.Scenario, globs []string) ([]*scenario.Scenario, error) {
	if len(globs) == 0 {
		return all, nil
	}
	var out []*scenario.Scenario
	for _, s := range all {
		if spec.Selects(globs, s.Name) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		var names []string
		for _, s := range all {
			names = append(names, s.Name)
		}
		return nil, usageErr("--scenario %s matches no scenario (there are: %s)", strings.Join(globs, ", "), strings.Join(names, ", "))
	}
	return out, nil
}

// writeReports prints the console table (to stderr when a report goes to
// stdout) and writes every --report file.
// A run that never began (nr set) gets one block saying why instead of the
// table of rules nobody could judge; the files are written all the same.
func writeReports(cmd *cobra.Command, rep *report.Report, outs []reportOut, noColor, verbose bool, nr *report.NotReady) error {
	console := cmd.OutOrStdout()
	for _, o := range outs {
		if o.path == "-" {
			console = cmd.ErrOrStderr()
		}
	}
	color := false
	if f, ok := console.(*os.File); ok && !noColor {
		color = report.ColorFor(f)
	}
	if nr != nil {
		if err := report.WriteNotReady(console, *nr, color); err != nil {
			return err
		}
	} else if err := report.WriteConsole(console, rep, report.ConsoleOptions{Color: color, Verbose: verbose}); err != nil {
		return err
	}
	for _, o := range outs {
		if o.path == "-" {
			if err := report.Write(o.format, cmd.OutOrStdout(), rep); err != nil {
				return err
			}
			continue
		}
		if dir := path.Dir(o.path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErr("--report %s=%s: %v", o.format, o.path, err)
			}
		}
		file, err := os.Create(o.path)
		if err != nil {
			return usageErr("--report %s=%s: %v", o.format, o.path, err)
		}
		err = report.Write(o.format, file, rep)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
	return nil
}

// reproduce is the command that runs a single scenario again with the
// same target settings.
func reproduce(f *runFlags, name string, argv []string) string {
	var extra []string
	for _, g := range f.rules {
		extra = append(extra, "--rules", shellQuote(g))
	}
	if f.seed != 1 {
		extra = append(extra, "--seed", fmt.Sprint(f.seed))
	}
	return again{sub: "run", head: []string{"--scenario", name}, t: &f.targetFlags, level: f.level,
		params: f.params, mcpVer: f.mcpVer, extra: extra, command: argv}.line()
}
