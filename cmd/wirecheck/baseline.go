package main

import (
	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/report"
)

func newBaselineCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "baseline", Short: "Write a baseline of known failures"}
	cmd.AddCommand(&cobra.Command{
		Use:     "write [REPORT.json|-]",
		Short:   "Write the failures of a JSON report as a baseline file, each line with its rule's title",
		Example: `  wirecheck baseline write reports/run.json > known-failures.txt`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := report.ReadFiles(args, cmd.InOrStdin(), false)
			if err != nil {
				return usageErr("%v", err)
			}
			return report.WriteBaseline(cmd.OutOrStdout(), rep)
		},
	})
	return cmd
}
