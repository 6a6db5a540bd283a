package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newRulesCmd() *cobra.Command {
	var protocol, format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the rule catalogue",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := protocols.WriteCatalogue(cmd.OutOrStdout(), format, protocol); err != nil {
				return usageErr("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol's rules")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}
