package report

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Output is where one --report FORMAT=PATH goes (the path "-" is
// standard output).
type Output struct{ Format, Path string }

// ParseOutputs reads every --report value.
func ParseOutputs(specs []string) ([]Output, error) {
	var out []Output
	for _, s := range specs {
		format, p, err := ParseSpec(s)
		if err != nil {
			return nil, err
		}
		out = append(out, Output{format, p})
	}
	return out, nil
}

// ParseJudging reads how a run is judged, --level (the lowest level
// whose failure fails it: must, should or may), and where it is reported,
// every --report value. Its errors name the flag at fault.
func ParseJudging(level string, reports []string) (verdict.Level, []Output, error) {
	l := verdict.Level(strings.ToUpper(level))
	if !slices.Contains(verdict.Levels, l) {
		return "", nil, fmt.Errorf("--level %q: want must, should or may", level)
	}
	outs, err := ParseOutputs(reports)
	return l, outs, err
}

// Sink is where the results of a run go: the console, and every Output.
type Sink struct {
	Stdout, Stderr io.Writer
	Outputs        []Output
	NoColor        bool // no colour even on a terminal
	Verbose        bool // show passing findings too
	// Getenv reads the environment (os.Getenv when nil): a github output
	// appends the Markdown report to $GITHUB_STEP_SUMMARY.
	Getenv func(string) string
}

// Write renders rep on the console, or nr's block instead when the run
// never began, and writes every output all the same. The console goes to
// Stderr when an output is written to Stdout, so a piped report stays
// clean. A github output also appends the Markdown report to the job
// summary, once however many there are.
//
// When github is the only output on Stdout, the console stays there too,
// inside a stop-commands block: the Actions runner reads workflow commands
// from every line of a step's output, and the console quotes the server,
// whose text may hold "::add-mask::" or a forged "::error" on a line of its
// own. One stream keeps the block and the annotations after it in order.
func (s Sink) Write(rep *Report, nr *NotReady) error {
	console := s.Stdout
	onStdout := 0
	githubOnStdout := false
	for _, o := range s.Outputs {
		if o.Path == "-" {
			console = s.Stderr
			onStdout++
			githubOnStdout = githubOnStdout || o.Format == "github"
		}
	}
	var resume string
	if onStdout == 1 && githubOnStdout {
		console = s.Stdout
		var err error
		if resume, err = stopCommands(console); err != nil {
			return err
		}
	}
	var err error
	if nr != nil {
		err = WriteNotReady(console, *nr, s.color(console))
	} else {
		err = s.Render(console, "console", rep)
	}
	if err == nil && resume != "" {
		_, err = fmt.Fprintf(console, "::%s::\n", resume)
	}
	github := false
	for _, o := range s.Outputs {
		if err != nil {
			return err
		}
		github = github || o.Format == "github"
		if o.Path == "-" {
			err = Write(o.Format, s.Stdout, rep)
			continue
		}
		err = writeFile(o, rep)
	}
	if err == nil && github {
		err = s.stepSummary(rep)
	}
	return err
}

// stopCommands tells the Actions runner to ignore workflow commands until
// the line "::TOKEN::", and returns the token: random, so the text in
// between cannot end the block early.
func stopCommands(w io.Writer) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("--report github: %v", err)
	}
	token := hex.EncodeToString(b)
	if _, err := fmt.Fprintf(w, "::stop-commands::%s\n", token); err != nil {
		return "", err
	}
	return token, nil
}

// stepSummary appends rep to the job summary when run inside GitHub
// Actions.
func (s Sink) stepSummary(rep *Report) error {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return appendStepSummary(getenv("GITHUB_STEP_SUMMARY"), rep)
}

// Render writes rep to w in format, the console in colour on a terminal;
// github also appends the job summary, as --report github does.
func (s Sink) Render(w io.Writer, format string, rep *Report) error {
	if format == "console" {
		return WriteConsole(w, rep, ConsoleOptions{Color: s.color(w), Verbose: s.Verbose})
	}
	if err := Write(format, w, rep); err != nil {
		return err
	}
	if i, ok := canonical(format); ok && formats[i].name == "github" {
		return s.stepSummary(rep)
	}
	return nil
}

func (s Sink) color(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && !s.NoColor && ColorFor(f)
}

func writeFile(o Output, rep *Report) error {
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o755); err != nil {
		return fmt.Errorf("--report %s=%s: %v", o.Format, o.Path, err)
	}
	file, err := os.Create(o.Path)
	if err != nil {
		return fmt.Errorf("--report %s=%s: %v", o.Format, o.Path, err)
	}
	err = Write(o.Format, file, rep)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.Path, err)
	}
	return nil
}
