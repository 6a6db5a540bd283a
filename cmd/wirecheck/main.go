// Command wirecheck certifies servers that speak JSON over a wire: it
// launches a server, replays scripted scenarios, validates every frame
// against the protocol's schemas and rules, and reports each violation with
// the rule, the evidence and the command that reproduces it.
//
// This package only parses flags and wires the library under internal/.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wirecheck/wirecheck/internal/buildinfo"
	"github.com/wirecheck/wirecheck/internal/memlimit"
	"github.com/wirecheck/wirecheck/internal/report"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes: report's, the contract README.md states under "The CLI".
const (
	exitOK         = report.ExitOK
	exitViolations = report.ExitViolations
	exitUsage      = report.ExitUsage
	exitNoTarget   = report.ExitNoTarget
)

// exitError carries an exit code up to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	memlimit.Set()
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs the CLI and returns the exit code; tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		// A bug in wirecheck must still end with a message and exit 2,
		// never a bare stack trace in a user's CI log.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "wirecheck: internal error: %v\nPlease report this with the command line that caused it.\n", r)
			code = exitUsage
		}
	}()
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "wirecheck:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors: unknown flags, bad values, missing arguments.
	fmt.Fprintln(stderr, "wirecheck:", err)
	return exitUsage
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "wirecheck",
		Short:         "Conformance harness and fuzzer for servers that speak JSON over a wire",
		Version:       buildinfo.Read(version).String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version and `wirecheck version` print one line, the same one.
	root.SetVersionTemplate("wirecheck {{.Version}}\n")
	// Declared here so its help can say what -v means where: cobra would
	// take -v for the version silently, and run, fuzz and replay take it
	// for --verbose.
	root.Flags().BoolP("version", "v", false, "print the version and exit, as 'wirecheck version' does (-v means --version only here, before any command; after run or replay it means --verbose)")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newProtocolsCmd(), newRulesCmd(), newRunCmd(), newServeCmd(), newValidateCmd(), newReportCmd(), newFuzzCmd(), newReplayCmd(), newBaselineCmd(), newConnectBackCmd(), &cobra.Command{Use: "version", Short: "Print the version and VCS revision of this binary",
		Args: cobra.NoArgs, Run: func(cmd *cobra.Command, _ []string) { cmd.Println("wirecheck", root.Version) }})
	return root
}
