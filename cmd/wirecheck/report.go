package main

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func loadBundle(id string) (*protocols.Bundle, error) {
	b, err := protocols.Load(id)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return b, nil
}

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Convert or merge JSON reports",
	}
	var format, level string
	var noColor bool
	render := &cobra.Command{
		Use:   "render [--format F] [FILE|-]",
		Short: "Render a JSON report in another format",
		Example: `  wirecheck run --protocol sonde-serve --report json=- -- ./server | wirecheck report render --format html > report.html
  wirecheck report render --format junit reports/run.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := readReport(cmd, args)
			if err != nil {
				return err
			}
			return emit(cmd, rep, format, level, noColor)
		},
	}
	render.Flags().StringVar(&format, "format", "console", "output format: "+strings.Join(report.Formats(), ", "))
	render.Flags().StringVar(&level, "level", "", "judge the report at this level (default: the level it was run at)")
	render.Flags().BoolVar(&noColor, "no-color", false, "no colour in console output")

	var mformat, mlevel string
	merge := &cobra.Command{
		Use:   "merge FILE… [--format F]",
		Short: "Merge JSON reports of one protocol into one",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var reps []*report.Report
			for _, a := range args {
				rep, err := readReport(cmd, []string{a})
				if err != nil {
					return err
				}
				reps = append(reps, rep)
			}
			m, err := report.Merge(reps...)
			if err != nil {
				return usageErr("%v", err)
			}
			return emit(cmd, m, mformat, mlevel, true)
		},
	}
	merge.Flags().StringVar(&mformat, "format", "json", "output format: "+strings.Join(report.Formats(), ", "))
	merge.Flags().StringVar(&mlevel, "level", "", "judge the merged report at this level")
	cmd.AddCommand(render, merge)
	return cmd
}

func readReport(cmd *cobra.Command, args []string) (*report.Report, error) {
	var in io.Reader = cmd.InOrStdin()
	name := "stdin"
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			return nil, usageErr("%v", err)
		}
		defer f.Close()
		in, name = f, args[0]
	}
	rep, err := report.ReadJSON(in)
	if err != nil {
		return nil, usageErr("%s: %v", name, err)
	}
	return rep, nil
}

// emit writes a report and turns its verdict into the exit code, so
// `report render` can gate a pipeline as `run` does.
func emit(cmd *cobra.Command, rep *report.Report, format, level string, noColor bool) error {
	if level != "" {
		l, err := parseLevel(level)
		if err != nil {
			return err
		}
		rep.Level = l
	}
	if rep.Level == "" {
		rep.Level = verdict.Must
	}
	var err error
	if format == "console" {
		color := false
		if f, ok := cmd.OutOrStdout().(*os.File); ok && !noColor {
			color = report.ColorFor(f)
		}
		err = report.WriteConsole(cmd.OutOrStdout(), rep, report.ConsoleOptions{Color: color})
	} else {
		err = report.Write(format, cmd.OutOrStdout(), rep)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	if rep.Failed(rep.Level) {
		return &exitError{code: exitViolations, err: errors.New("")}
	}
	return nil
}
