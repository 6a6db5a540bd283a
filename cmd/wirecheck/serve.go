package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

func newServeCmd() *cobra.Command {
	var faults, variants []string
	var tr, listen, httpAddr, sseAddr, role string
	cmd := &cobra.Command{
		Use:     "serve PROTOCOL [--http ADDR | --sse ADDR] [--fault NAME]… [--variant NAME]… | serve PROTOCOL --role client [--fault NAME]… [--variant NAME]… -- SERVER-CMD…",
		Short:   "Run the built-in reference server of a protocol (with faults planted on purpose, or legal alternatives chosen)",
		Example: help("serve", "example"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			choice := protocols.Choice{Transport: tr, Listen: listen, HTTP: httpAddr, SSE: sseAddr, Faults: faults, Variants: variants}
			o := protocols.ServeOptions{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Log: cmd.ErrOrStderr()}
			// The reference client of a protocol's client role takes the
			// server it connects to after "--".
			id, err := protocols.RoleModule(args[0], role)
			if err != nil {
				return usageErr("%v", err)
			}
			o.Args = args[1:]
			listing := slices.Contains(faults, "list") || slices.Contains(variants, "list")
			switch {
			case role == protocols.RoleClient && len(o.Args) == 0 && !listing:
				return usageErr("serve %s --role client: give the server command after --, e.g. -- ./my-server", args[0])
			case role != protocols.RoleClient && len(o.Args) > 0:
				return usageErr("serve %s: unexpected arguments %q (a server command follows -- only with --role client)", args[0], o.Args)
			}
			code, err := protocols.Serve(id, choice, o)
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
	cmd.Flags().StringVar(&role, "role", "server", "server: the reference server; client: the protocol's reference client, which launches the server command after --")
	cmd.Flags().StringVar(&listen, "listen", "", "host:port to listen on (HTTP transports)")
	return cmd
}
