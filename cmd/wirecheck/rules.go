package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newRulesCmd() *cobra.Command {
	var protocol, format string
	cmd := &cobra.Command{
		Use:   "rules [RULE]",
		Short: "Print the rule catalogue, or one rule whole",
		Long: "Print the rule catalogue; with a RULE ID, that rule whole: its level and title, the sentence it\n" +
			"tests, the document and section it is quoted from, the revisions and transports it holds in, how it\n" +
			"is checked, and the reference server's faults that trip it.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if err := protocols.WriteRule(cmd.OutOrStdout(), protocol, args[0]); err != nil {
					return usageErr("%v", err)
				}
				return nil
			}
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
