package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/transport"
)

// newConnectBackCmd is the server process a client under test launches
// on stdio (--role client): the {server} script execs it, and it relays
// its stdin and stdout to the run's socket.
func newConnectBackCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "connect-back SOCKET",
		Short:  "Relay stdin and stdout to a run's socket (the {server} of --role client)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := transport.ConnectBack(args[0], os.Stdin, os.Stdout, 2*time.Second); err != nil {
				return &exitError{code: exitNoTarget, err: err}
			}
			return nil
		},
	}
}
