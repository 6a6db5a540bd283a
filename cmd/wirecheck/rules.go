package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/spec"
)

func newRulesCmd() *cobra.Command {
	var protocol, format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the rule catalogue",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ids := protocols.IDs()
			if protocol != "" {
				ids = []string{protocol}
			}
			var ps []*spec.Protocol
			for _, id := range ids {
				b, err := loadBundle(id)
				if err != nil {
					return err
				}
				ps = append(ps, b.Protocol)
			}
			if err := spec.WriteCatalogue(cmd.OutOrStdout(), format, ps...); err != nil {
				return usageErr("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol's rules")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}
