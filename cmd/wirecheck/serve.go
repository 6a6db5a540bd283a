package main

import (
	"fmt"

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
			choice := protocols.Choice{Transport: tr, Listen: listen, Faults: faults, Variants: variants}
			code, err := protocols.Serve(args[0], choice, protocols.ServeOptions{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()})
			if err != nil {
				return usageErr("%v", err)
			}
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
