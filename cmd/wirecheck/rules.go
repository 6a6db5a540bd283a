package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

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
			ids := protocols.IDs()
			if protocol != "" {
				ids = []string{protocol}
			}
			type row struct {
				Protocol string   `json:"protocol"`
				ID       string   `json:"id"`
				Level    string   `json:"level"`
				Title    string   `json:"title"`
				Source   string   `json:"source"`
				Quote    string   `json:"quote,omitempty"`
				Checks   []string `json:"checks,omitempty"`
			}
			var rows []row
			for _, id := range ids {
				b, err := protocols.Load(id)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				for _, r := range b.Protocol.Rules {
					rows = append(rows, row{id, r.ID, string(r.Level), r.Title, b.Protocol.Citation(r), r.Quote, r.Checks})
				}
			}
			switch format {
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			case "text":
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "RULE\tLEVEL\tTITLE\tSOURCE")
				for _, r := range rows {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Title, r.Source)
				}
				return w.Flush()
			}
			return usageErr("--format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "only this protocol's rules")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}
