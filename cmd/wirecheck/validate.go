package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newValidateCmd() *cobra.Command {
	var protocol, kind string
	var rev revisionFlags
	cmd := &cobra.Command{
		Use:   "validate --protocol P [--kind K] [--revision V] [FILE|-]",
		Short: "Check JSON lines (frames a server sent) against the protocol's schemas",
		Long:  help("validate", "long"),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := protocols.Pick(protocol)
			if err != nil {
				return usageErr("%v", err)
			}
			st, err := b.Settings(rev.revision, rev.params, "validate")
			if err != nil {
				return usageErr("%v", err)
			}
			bad, err := peer.JudgeFiles(args, cmd.InOrStdin(), st.Protocol, b.Schemas, kind, cmd.OutOrStdout())
			if err != nil {
				return usageErr("%v", err)
			}
			if bad > 0 {
				return &exitError{code: exitViolations, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "protocol whose schemas to use")
	cmd.Flags().StringVar(&kind, "kind", "", "validate every line as this message kind")
	rev.add(cmd.Flags(), "KEY=VALUE: the protocol's revision key names the revision to judge by, as --revision does")
	return cmd
}
