package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newRulesCmd() *cobra.Command {
	var protocol, format, role string
	cmd := &cobra.Command{
		Use:   "rules [RULE]",
		Short: "Print the rule catalogue, or one rule whole",
		Long: "Print the rule catalogue; with a RULE ID, that rule whole: its level and title, the sentence it\n" +
			"tests, the document and section it is quoted from, the revisions and transports it holds in, how it\n" +
			"is checked, and the reference server's faults that trip it. --role client lists the rules a client\n" +
			"under test is judged by (run --role client); they are also listed as their own protocol (mcp-client).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("role") {
				// A role's rules are a module of their own (mcp-client):
				// --role names it as run does.
				if protocol == "" {
					return usageErr("rules --role %s: name the protocol too, e.g. --protocol mcp --role %s", role, role)
				}
				if _, err := protocols.Lookup(protocol); err != nil {
					return usageErr("%v", err)
				}
				id, err := protocols.RoleModule(protocol, role)
				if err != nil {
					return usageErr("%v", err)
				}
				protocol = id
			}
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
	cmd.Flags().StringVar(&role, "role", "server", "whose rules: server (the default) or client (what a client under test is judged by, run --role client)")
	return cmd
}
