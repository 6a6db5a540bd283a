package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newProtocolsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "protocols",
		Short: "List the protocols, their transports and rule counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := protocols.WriteTable(cmd.OutOrStdout()); err != nil {
				return usageErr("%v", err)
			}
			return nil
		},
	}
}
