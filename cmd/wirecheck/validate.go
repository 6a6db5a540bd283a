package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/spec"
)

func newValidateCmd() *cobra.Command {
	var protocol, kind string
	var rev revisionFlags
	cmd := &cobra.Command{
		Use:   "validate --protocol P [--kind K] [--revision V] [FILE|-]",
		Short: "Check JSON lines (frames a server sent) against the protocol's schemas",
		Long: `Reads one frame per line and validates each against the schema of its
message kind. Without --kind, each line is matched to the first kind whose
conditions it meets and whose schema accepts it (responses are taken without
the request they answer). A protocol with revisions (mcp) is judged by the
one --revision V names (--mcp-version V is its alias), by its default
otherwise. Exit 0 when every line is valid, 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBundle(protocol)
			if err != nil {
				return err
			}
			proto, _, err := rev.resolve(b, "validate")
			if err != nil {
				return err
			}
			var forced *spec.Kind
			if kind != "" {
				if forced, err = proto.KindNamed(kind); err != nil {
					return usageErr("%v", err)
				}
			}
			in, name, err := input(cmd, args)
			if err != nil {
				return err
			}
			defer in.Close()
			n, bad, err := peer.JudgeLines(in, name, proto, b.Schemas, forced, cmd.OutOrStdout())
			if err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d lines: %d valid, %d invalid\n", n, n-bad, bad)
			if bad > 0 {
				return &exitError{code: exitViolations, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", "", "protocol whose schemas to use")
	cmd.Flags().StringVar(&kind, "kind", "", "validate every line as this message kind")
	rev.add(cmd.Flags(), "KEY=VALUE: the protocol's revision key names the revision to judge by, as --revision does")
	return cmd
}

// input is the file a command reads (FILE, or stdin for none or "-") and
// its name for messages.
func input(cmd *cobra.Command, args []string) (io.ReadCloser, string, error) {
	if len(args) == 0 || args[0] == "-" {
		return io.NopCloser(cmd.InOrStdin()), "stdin", nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return nil, "", usageErr("%v", err)
	}
	return f, args[0], nil
}
