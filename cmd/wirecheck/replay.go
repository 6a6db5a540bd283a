package main

import (
	"cmp"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/procs"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

func newReplayCmd() *cobra.Command {
	var f common
	cmd := &cobra.Command{
		Use:     "replay FILE… [--revision V] [flags] -- CMD [ARGS…]",
		Short:   "Run saved scenarios (fuzz reproducers, regressions) against a server",
		Long:    help("replay", "long"),
		Example: help("replay", "example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			procs.ForJudging()
			files, argv := args, []string(nil)
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				files, argv = args[:n], args[n:]
			}
			if len(files) == 0 {
				return usageErr("no scenario file given: wirecheck replay FILE… -- CMD")
			}
			return runReplay(cmd, &f, files, argv)
		},
	}
	f.add(cmd, "may", "KEY=VALUE setting, over the one the files carry (repeatable)")
	cmd.Flags().StringVar(&f.role, "role", "server", "what the target is: server, or client (the files' role when they name one: a client's reproducer replays against a client command with {server})")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "show passing findings too")
	return cmd
}

func runReplay(cmd *cobra.Command, f *common, files, argv []string) error {
	ctx, w := interruptible(cmd.ErrOrStderr())
	defer w.Stop()
	saved, err := scenario.ReadSaved(files)
	if err != nil {
		return usageErr("%v", err)
	}
	// The protocol comes from the files unless --protocol says.
	if f.protocol, err = protocols.ProtocolOf(saved, f.protocol); err != nil {
		return usageErr("%v", err)
	}
	// A file of a role's module (a client's reproducer) replays in that
	// role, --protocol naming its protocol or not.
	for _, sv := range saved {
		if proto, role := protocols.RoleOf(sv.Protocol); role != protocols.RoleServer && proto == f.protocol && !cmd.Flags().Changed("role") {
			f.role = role
		}
	}
	if proto, role := protocols.RoleOf(f.protocol); role != protocols.RoleServer {
		if cmd.Flags().Changed("role") && f.role != role {
			return usageErr("the files are of the %s role of %s; --role %s cannot replay them", role, proto, f.role)
		}
		f.protocol, f.role = proto, role
	}
	// A bad revision a flag names (all too) is refused before the files' are read.
	s, err := f.prepare(argv, "")
	if err != nil || s.all != nil {
		return cmp.Or(err, usageErr("--revision all: replay judges by one revision, its files' or the one named"))
	}
	var params map[string]string
	var scs []*scenario.Scenario
	if s.proto, params, scs, err = s.b.ParseSaved(saved, s.params); err != nil {
		return usageErr("%v", err)
	}
	rep, runErr := runner.Run(ctx, runner.Config{
		Protocol: s.b.Protocol, Schemas: s.b.Schemas, Scenarios: scs, Handler: s.b.StepHandler(s.proto), Judge: s.b.Judge, Target: s.t,
		Timeout: f.timeout, StartupTimeout: f.startupTimeout, Partial: true, Params: params,
		// The settings a file carries it applies itself.
		Rerun: new(f.rerun("replay", nil, f.level)),
	})
	return f.finish(cmd, rep, runErr, s, w, nil)
}
