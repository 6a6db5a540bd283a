package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// GitHub Actions reads workflow commands from a step's output, one per
// line: "::error title=T::message". Everything after the first "::" on a
// line is the message, and the runner ignores leading spaces, so server
// text must never reach the start of a line: every CR and LF in it is
// escaped (with '%', so '%' itself is too), and in properties ':' and ','
// as well, since they end a property. clean has already made control
// characters visible, so what the runner unescapes is what the report
// shows elsewhere.

// WriteGitHub writes one annotation per failed rule: an error when the
// failure fails the run, a warning when it is below the level the run was
// judged at, a notice when the baseline knows it. Annotations without a
// file: the failure is the server's, not a line of the repository.
//
// An interrupted run gets a warning first: its verdicts stop at the signal.
func WriteGitHub(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	if n := r.NotStarted; n != nil {
		// One cause, said once: the rules' errors are scenarios not run,
		// none of them the server's.
		fmt.Fprintf(bw, "::error title=%s::%s\n", escapeProperty("wirecheck: the suite did not run"), escapeData(line(r.notStartedSaid(), capMessage)))
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("report: writing GitHub annotations: %w", err)
		}
		return nil
	}
	if r.Interrupted {
		fmt.Fprintf(bw, "::warning title=wirecheck interrupted::%s\n", escapeData("interrupted by "+line(orDefault(r.Signal, "a signal"), 16)+
			" before the run finished: nothing was judged from then on, so the scenarios under way or not yet run have no verdict"))
	}
	for _, row := range rows(r) {
		failing := row.Failing()
		if len(failing) == 0 {
			continue
		}
		f := failing[0]
		fmt.Fprintf(bw, "::%s title=%s::%s\n", annotationKind(r, failing),
			escapeProperty(line(row.Rule.ID, capLine)), escapeData(annotationText(row.Rule, f, len(failing)-1)))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing GitHub annotations: %w", err)
	}
	return nil
}

// annotationKind is the strongest kind any of a rule's failing findings
// earns.
func annotationKind(r *Report, failing []Finding) string {
	kind := "notice"
	for _, f := range failing {
		switch {
		case f.Known:
		case f.Level.Rank() >= r.Level.Rank():
			return "error"
		default:
			kind = "warning"
		}
	}
	return kind
}

func annotationText(ru verdict.Rule, f Finding, more int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", verdictLabel(f.Verdict), line(string(ru.Level), 16), line(ru.Title, capLine))
	if ru.Source != "" {
		fmt.Fprintf(&b, "Citation: %s\n", citation(ru))
	}
	if q := quote(ru); q != "" {
		fmt.Fprintf(&b, "Quote: %s\n", q)
	}
	fmt.Fprintf(&b, "Scenario %s: %s\n", line(f.Where(), capLine), block(f.Said(), capMessage))
	if f.Expected != "" {
		fmt.Fprintf(&b, "Expected: %s\n", block(f.Expected, capMessage))
	}
	if f.Actual != "" {
		fmt.Fprintf(&b, "Actual: %s\n", block(f.Actual, capMessage))
	}
	if f.Reproduce != "" {
		fmt.Fprintf(&b, "Reproduce: %s\n", line(f.Reproduce, capMessage))
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more failing %s of this rule: see the report)\n", more, plural(more, "finding", "findings"))
	}
	return strings.TrimRight(b.String(), "\n")
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// appendStepSummary appends the Markdown report to the file GitHub names
// in $GITHUB_STEP_SUMMARY, which the job's summary page renders; outside
// Actions (the variable unset) there is nothing to do.
func appendStepSummary(path string, r *Report) error {
	if path == "" {
		return nil
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--report github: GITHUB_STEP_SUMMARY: %v", err)
	}
	err = WriteMarkdown(file, r)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--report github: writing %s: %w", path, err)
	}
	return nil
}
