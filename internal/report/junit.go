package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The JUnit dialect CI servers agree on (Jenkins, GitLab, GitHub actions
// reporters): testsuites > testsuite > testcase with failure / error /
// skipped children. Only what they all read is written, and only what
// Jenkins' schemas allow (testdata/junit-jenkins.xsd): testsuites carries
// no skipped count, and skipped no attribute.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	// A pointer, so a suite without properties has no <properties> at all:
	// Jenkins' schema wants at least one <property> inside one.
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  *junitText       `xml:"system-out,omitempty"`
}

type junitProperties struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	// CDATA keeps the evidence's line breaks readable in the file;
	// encoding/xml splits any "]]>" in it, and clean has already removed
	// the characters XML 1.0 forbids.
	Body string `xml:",cdata"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

// junitSkipped holds the reason as text: the widely copied Jenkins schema
// types <skipped> as a plain string, and Jenkins and GitLab both show the
// text when there is no message attribute. CDATA, as for failures: a
// known failure's evidence follows its reason, line by line.
type junitSkipped struct {
	Message string `xml:",cdata"`
}

// WriteJUnit writes one <testsuite> named after the protocol with one
// <testcase> per finding (classname = rule ID, name = scenario). The
// counts in the attributes are computed from the test cases as they are
// written, never taken from r.Summary, so they always agree with the body.
//
// Findings carry no duration of their own, so every testcase has time 0
// and the suite carries the run's wall-clock time; summing scenario spans
// would count shared server time several times over.
func WriteJUnit(w io.Writer, r *Report) error {
	titles := map[string]verdict.Rule{}
	for _, ru := range r.Rules {
		if _, ok := titles[ru.ID]; !ok {
			titles[ru.ID] = ru
		}
	}
	suite := junitSuite{
		Name: line(r.Protocol, capLine),
		Time: seconds(r.DurationMS),
	}
	if !r.Started.IsZero() {
		// The Ant schema wants a local timestamp without zone; UTC is the
		// only unambiguous choice.
		suite.Timestamp = r.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, p := range [][2]string{
		{"tool", strings.TrimSpace(r.Tool + " " + r.Version)},
		{"protocol", r.Protocol},
		{"target", r.Target},
		{"role", r.Role},
		{"client", r.Client.String()},
		{"level", string(r.Level)},
		{"interrupted", r.Signal},
		{"not_started", notStarted(r)},
	} {
		if p[1] == "" {
			continue
		}
		if suite.Properties == nil {
			suite.Properties = &junitProperties{}
		}
		suite.Properties.List = append(suite.Properties.List, junitProperty{Name: p[0], Value: line(p[1], capMessage)})
	}
	for _, f := range r.Findings {
		ru, ok := titles[f.Rule]
		if !ok {
			ru = verdict.Rule{ID: f.Rule, Level: f.Level}
		}
		c := junitCase{
			Classname: line(f.Rule, capLine),
			Name:      line(f.Where(), capLine),
			Time:      "0",
		}
		problem := func() *junitProblem {
			return &junitProblem{
				Message: line(f.Said(), capMessage),
				Type:    line(strings.TrimSpace(f.Rule+" "+string(f.Level)), capLine),
				Body:    junitBody(ru, f),
			}
		}
		switch {
		case f.Verdict == verdict.Pass:
		case f.Known && (f.Verdict == verdict.Fail || f.Verdict == verdict.Error):
			// A failure the baseline knows does not fail the run, so it
			// must not turn a CI's test view red beside an exit code of 0.
			// Jenkins and GitLab both count a <skipped> case as neither
			// passed nor failed, and both render its text: Jenkins as the
			// case's skip message (the text when there is no message
			// attribute, which its schema does not allow here), GitLab as
			// the case's details, the only text of a skipped case it
			// shows (it reads <system-out> for attachments only). So the
			// reason comes first and the evidence follows in the same
			// text, where both display it.
			in := "in the baseline"
			if r.Baseline != "" {
				in = "baseline " + r.Baseline
			}
			c.Skipped = &junitSkipped{Message: line("known failure ("+in+"): "+f.Message, capMessage) + "\n\n" + junitBody(ru, f)}
			suite.Skipped++
		case f.Verdict == verdict.Fail:
			c.Failure = problem()
			suite.Failures++
		case f.Verdict == verdict.Skip:
			c.Skipped = &junitSkipped{Message: line(f.Message, capMessage)}
			suite.Skipped++
		default:
			// Error, and any verdict this version does not know: the harness
			// could not tell, which must not read as a pass in CI.
			c.Error = problem()
			if f.Verdict != verdict.Error {
				c.Error.Message = line("unknown verdict "+strconv.Quote(string(f.Verdict))+": "+f.Message, capMessage)
			}
			suite.Errors++
		}
		suite.Cases = append(suite.Cases, c)
	}
	if r.Interrupted {
		// A case of its own, so a CI page that lists cases shows it: the
		// run did not finish, and no finding blames anyone for that.
		suite.Cases = append(suite.Cases, junitCase{Classname: "wirecheck", Name: "run interrupted", Time: "0",
			Skipped: &junitSkipped{Message: line("interrupted by "+orDefault(r.Signal, "a signal")+" before the run finished: nothing was judged from then on", capMessage)}})
		suite.Skipped++
	}
	suite.Tests = len(suite.Cases)
	if len(r.Notes) > 0 {
		var b strings.Builder
		for _, n := range r.Notes {
			b.WriteString(block(n, capMessage))
			b.WriteByte('\n')
		}
		suite.SystemOut = &junitText{Text: b.String()}
	}
	doc := junitSuites{
		Name:     line(r.Tool, capLine),
		Tests:    suite.Tests,
		Failures: suite.Failures,
		Errors:   suite.Errors,
		Time:     suite.Time,
		Suites:   []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("report: writing JUnit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: writing JUnit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("report: writing JUnit: %w", err)
	}
	return nil
}

// junitBody is the evidence shown when a CI user expands a failed test.
func junitBody(ru verdict.Rule, f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", line(ru.ID, capLine), line(string(ru.Level), 16), line(ru.Title, capLine))
	if ru.Source != "" {
		fmt.Fprintf(&b, "Source: %s\n", citation(ru))
	}
	if q := quote(ru); q != "" {
		fmt.Fprintf(&b, "Quote: %s\n", q)
	}
	fmt.Fprintf(&b, "Scenario: %s\n", line(f.Where(), capLine))
	if f.Said() != "" {
		fmt.Fprintf(&b, "Message: %s\n", block(f.Said(), capMessage))
	}
	if f.Expected != "" {
		fmt.Fprintf(&b, "Expected:\n%s\n", indent(block(f.Expected, capEvidence), "  "))
	}
	if f.Actual != "" {
		fmt.Fprintf(&b, "Actual:\n%s\n", indent(block(f.Actual, capEvidence), "  "))
	}
	if len(f.Transcript) > 0 {
		caption, lines := excerpt(f.Transcript, tailJUnit, capEntry)
		fmt.Fprintf(&b, "%s\n", caption)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if f.Reproduce != "" {
		fmt.Fprintf(&b, "Reproduce: %s\n", line(f.Reproduce, capMessage))
	}
	return b.String()
}

// seconds renders milliseconds the way JUnit wants time: decimal seconds.
func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
}

// notStarted is why the run never began, "" for one that began.
func notStarted(r *Report) string {
	if r.NotStarted == nil {
		return ""
	}
	return r.notStartedSaid()
}
