package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func newProtocolsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "protocols",
		Short: "List the protocols, their transports and rule counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROTOCOL\tTRANSPORTS\tRULES\tMUST\tSHOULD\tMAY\tSCENARIOS\tSOURCE")
			for _, id := range protocols.IDs() {
				b, err := protocols.Load(id)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				n := map[verdict.Level]int{}
				for _, r := range b.Protocol.Rules {
					n[r.Level]++
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", id, strings.Join(b.Protocol.Transports, ","),
					len(b.Protocol.Rules), n[verdict.Must], n[verdict.Should], n[verdict.May], len(b.Scenarios), b.Protocol.Source)
			}
			return w.Flush()
		},
	}
}
