package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newServeCmd() *cobra.Command {
	var faults, variants []string
	var tr, listen, httpAddr, sseAddr string
	cmd := &cobra.Command{
		Use:   "serve PROTOCOL [--http ADDR | --sse ADDR] [--fault NAME]… [--variant NAME]…",
		Short: "Run the built-in reference server of a protocol (with faults planted on purpose, or legal alternatives chosen)",
		Example: `  wirecheck serve sonde-serve
  wirecheck serve sonde-serve --fault list
  wirecheck serve sonde-serve --variant list
  wirecheck serve mcp --http 127.0.0.1:8080
  wirecheck run --protocol sonde-serve -- wirecheck serve sonde-serve --fault wrong-id`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			choice := protocols.Choice{Transport: tr, Listen: listen, HTTP: httpAddr, SSE: sseAddr, Faults: faults, Variants: variants}
			o := protocols.ServeOptions{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()}
			code, err := protocols.Serve(args[0], choice, o)
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
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve Streamable HTTP on host:port (endpoint /mcp; host 127.0.0.1 when left out)")
	cmd.Flags().StringVar(&sseAddr, "sse", "", "serve the legacy HTTP+SSE transport on host:port (stream /sse)")
	cmd.Flags().StringVar(&tr, "transport", "", "transport to serve on (stdio, http, sse; default stdio)")
	cmd.Flags().StringVar(&listen, "listen", "", "host:port to listen on (HTTP transports)")
	return cmd
}
