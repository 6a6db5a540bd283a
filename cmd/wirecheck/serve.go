package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newServeCmd() *cobra.Command {
	var faults, variants []string
	var tr, listen string
	cmd := &cobra.Command{
		Use:   "serve PROTOCOL [--fault NAME]… [--variant NAME]…",
		Short: "Run the built-in reference server of a protocol (with faults planted on purpose, or legal alternatives chosen)",
		Example: `  wirecheck serve sonde-serve
  wirecheck serve sonde-serve --fault list
  wirecheck serve sonde-serve --variant list
  wirecheck run --protocol sonde-serve -- wirecheck serve sonde-serve --fault wrong-id`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := protocols.Lookup(args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			proto, err := protocols.LoadSpec(args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if tr != "stdio" {
				return usageErr("--transport %q: the %s reference server serves %s", tr, args[0], strings.Join(proto.Transports, ", "))
			}
			if listen != "" {
				return usageErr("--listen applies to HTTP transports; %s is served on stdio", args[0])
			}
			for _, f := range faults {
				if f == "list" {
					w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
					fmt.Fprintln(w, "FAULT\tTRIPS\tWHAT IT DOES")
					for _, f := range proto.Faults {
						fmt.Fprintf(w, "%s\t%s\t%s\n", f.Name, strings.Join(f.Trips, ","), f.Does)
					}
					return w.Flush()
				}
				if proto.Fault(f) == nil {
					var names []string
					for _, f := range proto.Faults {
						names = append(names, f.Name)
					}
					return usageErr("unknown fault %q for %s (known: %s; '--fault list' describes them)", f, args[0], strings.Join(names, ", "))
				}
			}
			for _, v := range variants {
				if v == "list" {
					w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
					fmt.Fprintln(w, "VARIANT\tWHAT IT DOES\tWHY IT IS LEGAL")
					for _, v := range proto.Variants {
						fmt.Fprintf(w, "%s\t%s\t%s\n", v.Name, v.Does, v.Why)
					}
					return w.Flush()
				}
				if proto.Variant(v) == nil {
					var names []string
					for _, v := range proto.Variants {
						names = append(names, v.Name)
					}
					return usageErr("unknown variant %q for %s (known: %s; '--variant list' describes them)", v, args[0], strings.Join(names, ", "))
				}
			}
			dir, _ := os.Getwd()
			code := m.Serve(protocols.ServeOptions{Faults: faults, Variants: variants, Dir: dir, In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()})
			if code != 0 {
				return &exitError{code: code, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&faults, "fault", nil, "break one rule on purpose (repeatable); 'list' prints the faults")
	cmd.Flags().StringArrayVar(&variants, "variant", nil, "take one legal alternative a correct server may choose (repeatable); 'list' prints the variants")
	cmd.Flags().StringVar(&tr, "transport", "stdio", "transport to serve on")
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on (HTTP transports)")
	return cmd
}
