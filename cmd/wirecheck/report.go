package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/report"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "report", Short: "Convert or merge JSON reports"}
	cmd.AddCommand(reportCmd(&cobra.Command{
		Use:   "render [--format F] [FILE|-]",
		Short: "Render a JSON report in another format",
		Example: `  wirecheck run --protocol sonde-serve --report json=- -- ./server | wirecheck report render --format html > report.html
  wirecheck report render --format junit reports/run.json`,
		Args: cobra.MaximumNArgs(1),
	}, "console"), reportCmd(&cobra.Command{
		Use:   "merge FILE… [--format F]",
		Short: "Merge JSON reports of one protocol into one",
		Args:  cobra.MinimumNArgs(1),
	}, "json"))
	return cmd
}

// reportCmd reads the JSON reports named (stdin for none), merged when
// there are several, writes them in a format and turns the verdict into
// the exit code, so `report render` can gate a pipeline as `run` does.
func reportCmd(cmd *cobra.Command, format string) *cobra.Command {
	c := common{noColor: format != "console"}
	cmd.Flags().StringVar(&format, "format", format, "output format: "+strings.Join(report.Formats(), ", "))
	cmd.Flags().StringVar(&c.level, "level", "", "judge the report at this level (default: the level it was run at)")
	if format == "console" {
		cmd.Flags().BoolVar(&c.noColor, "no-color", false, "no colour in console output")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		rep, err := report.ReadFiles(args, cmd.InOrStdin(), cmd.Name() == "merge")
		if err != nil {
			return usageErr("%v", err)
		}
		if c.level != "" {
			if rep.Level, _, err = c.judging(); err != nil {
				return err
			}
		}
		if err := (report.Sink{NoColor: c.noColor}).Render(cmd.OutOrStdout(), format, rep); err != nil {
			return usageErr("%v", err)
		} else if rep.Interrupted {
			// As run exits: an unfinished run gates nothing through.
			return &exitError{code: report.InterruptCode(rep.Signal), err: errors.New("")}
		} else if rep.Failed(rep.Level) {
			return &exitError{code: exitViolations, err: errors.New("")}
		}
		return nil
	}
	return cmd
}
