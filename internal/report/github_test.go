package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// hostileWorkflow is server text aimed at the Actions runner: line breaks
// of every kind followed by workflow commands, property separators, '%'
// sequences the runner would unescape, and markup for the summary page.
const hostileWorkflow = "boom\n::add-mask::secret\r\n  ::set-output name=x::y\r##[error]legacy\n" +
	"%0A::stop-commands::tok %25 %3A a:b,c <script>alert(1)</script> [x](javascript:alert(1))"

type annotation struct {
	Kind       string
	Properties map[string]string
	Message    string
}

// unescape reverses the runner's escaping, as the runner does.
var unescape = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")

// parseAnnotations reads stdout the way the Actions runner does: every
// line, leading spaces trimmed, that starts with "::" is a command; the
// first "::" after the command name ends its properties.
func parseAnnotations(out string) []annotation {
	GinkgoHelper()
	var as []annotation
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		Expect(l).NotTo(ContainSubstring("\r"))
		l = strings.TrimLeft(l, " \t")
		Expect(l).To(HavePrefix("::"), "every line the writer prints is one command")
		head, msg, ok := strings.Cut(l[2:], "::")
		Expect(ok).To(BeTrue())
		kind, props, _ := strings.Cut(head, " ")
		a := annotation{Kind: kind, Properties: map[string]string{}, Message: unescape.Replace(msg)}
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			Expect(ok).To(BeTrue(), "property %q", p)
			a.Properties[k] = unescape.Replace(v)
		}
		as = append(as, a)
	}
	return as
}

// runnerReads splits output as the Actions runner reads it: the lines it
// runs as commands, and the lines it ignores because a stop-commands block
// is open.
func runnerReads(out string) (commands, ignored []string) {
	GinkgoHelper()
	stop := ""
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		t := strings.TrimLeft(l, " \t")
		switch {
		case stop != "" && t == "::"+stop+"::":
			stop = ""
		case stop != "":
			ignored = append(ignored, l)
		case strings.HasPrefix(t, "::stop-commands::"):
			stop = strings.TrimPrefix(t, "::stop-commands::")
			Expect(stop).To(HaveLen(32))
		case strings.HasPrefix(t, "::"):
			commands = append(commands, l)
		}
	}
	Expect(stop).To(BeEmpty(), "the block is closed")
	return commands, ignored
}

func githubOf(r *report.Report) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteGitHub(&buf, r)).To(Succeed())
	return buf.String()
}

var _ = Describe("WriteGitHub", func() {
	It("annotates each failed rule once, by how it weighs on the run", func() {
		r := tallied()
		r.Level = verdict.Must
		as := parseAnnotations(githubOf(r))
		Expect(as).To(HaveLen(3))
		kinds := map[string]string{}
		for _, a := range as {
			kinds[a.Properties["title"]] = a.Kind
			Expect(a.Properties).To(HaveLen(1), "no file: the failure is the server's")
		}
		Expect(kinds).To(Equal(map[string]string{
			"SONDE-ID-1":       "error",
			"SONDE-STDOUT-2":   "warning", // SHOULD, judged at MUST
			"SONDE-SHUTDOWN-1": "error",   // an error verdict counts as a failure
		}))
		Expect(as[0].Message).To(HavePrefix("FAIL MUST: A response echoes the id of its request, with its type\n"))
		Expect(as[0].Message).To(ContainSubstring(`Scenario ids/string-id: response id 7 (number) does not match request id "a" (string)`))
		Expect(as[0].Message).To(ContainSubstring("Expected: {\n  \"id\": \"a\"\n}\n"))
		Expect(as[0].Message).To(ContainSubstring("Reproduce: wirecheck replay"))
	})

	It("marks a failure the baseline knows as a notice", func() {
		r := tallied()
		for i := range r.Findings {
			r.Findings[i].Known = true
		}
		for _, a := range parseAnnotations(githubOf(r)) {
			Expect(a.Kind).To(Equal("notice"))
		}
	})

	It("warns first that an interrupted run did not finish", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{{Rule: "A-1", Verdict: verdict.Pass}}}
		r.Interrupt("SIGTERM", 0)
		as := parseAnnotations(githubOf(r))
		Expect(as).To(HaveLen(1))
		Expect(as[0].Kind).To(Equal("warning"))
		Expect(as[0].Properties["title"]).To(Equal("wirecheck interrupted"))
		Expect(as[0].Message).To(HavePrefix("interrupted by SIGTERM before the run finished"))
	})

	It("writes nothing for a passing run", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{{Rule: "A-1", Verdict: verdict.Pass}}}
		Expect(githubOf(r)).To(BeEmpty())
	})

	It("keeps server text inside its annotation: no line, command or property of its own", func() {
		r := tallied()
		for i := range r.Findings {
			f := &r.Findings[i]
			f.Message, f.Expected, f.Actual, f.Scenario, f.Reproduce = hostileWorkflow, hostileWorkflow, hostileWorkflow, hostileWorkflow, hostileWorkflow
			f.Rule += hostileWorkflow
		}
		for i := range r.Rules {
			r.Rules[i].ID += hostileWorkflow
			r.Rules[i].Title = hostileWorkflow
		}
		out := githubOf(r)
		as := parseAnnotations(out)
		Expect(as).To(HaveLen(3))
		for _, a := range as {
			Expect(a.Kind).To(BeElementOf("error", "warning"))
			Expect(a.Properties).To(HaveKey("title"))
			Expect(a.Properties).To(HaveLen(1), "the title's ':' and ',' did not start properties")
			Expect(a.Properties["title"]).To(ContainSubstring(`boom\n::add-mask::secret\r\n`), "the title is one line, its breaks shown")
			// The message keeps the text's line feeds (CRs are shown, as
			// everywhere), unescaped by the runner into the annotation,
			// never into the log.
			Expect(a.Message).To(ContainSubstring("boom\n::add-mask::secret\\r\n  ::set-output name=x::y\\r##[error]legacy\n%0A::stop-commands::tok %25 %3A a:b,c"))
		}
		Expect(strings.Count(out, "\n")).To(Equal(3))
	})

	It("escapes so that the runner reads back exactly the text", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			s := rapid.StringMatching(`[a-z%:,\r\n ]{0,40}`).Draw(t, "text")
			r := &report.Report{Protocol: "p", Level: verdict.Must, Findings: []report.Finding{
				{Rule: "R-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "sc", Message: s},
			}}
			var buf bytes.Buffer
			if err := report.WriteGitHub(&buf, r); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if strings.Count(out, "\n") != 1 || strings.Contains(out, "\r") {
				t.Fatalf("one annotation takes one line: %q", out)
			}
			_, msg, _ := strings.Cut(strings.TrimSuffix(out[2:], "\n"), "::")
			want := "FAIL MUST: \nScenario sc: " + strings.TrimRight(strings.ReplaceAll(s, "\r", `\r`), "\n")
			if got := unescape.Replace(msg); got != want {
				t.Fatalf("read back %q, want %q", got, want)
			}
		})
	})
})

var _ = Describe("--report github", func() {
	It("is accepted alone and means annotations on stdout", func() {
		f, p, err := report.ParseSpec("github")
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{f, p}).To(Equal([]string{"github", "-"}))
	})

	It("prints the console inert and then the annotations on stdout, and appends the summary", func() {
		summary := filepath.Join(GinkgoT().TempDir(), "summary.md")
		Expect(os.WriteFile(summary, []byte("earlier step\n"), 0o644)).To(Succeed())
		var stdout, stderr bytes.Buffer
		sink := report.Sink{Stdout: &stdout, Stderr: &stderr, Outputs: []report.Output{{Format: "github", Path: "-"}},
			Getenv: func(k string) string { return map[string]string{"GITHUB_STEP_SUMMARY": summary}[k] }}
		r := tallied()
		// Server text the console quotes on lines of their own.
		r.Findings[4].Expected = "::add-mask::hunter2\n  ::error title=FORGED::forged"
		Expect(sink.Write(r, nil)).To(Succeed())
		Expect(stderr.String()).To(BeEmpty())
		commands, ignored := runnerReads(stdout.String())
		as := parseAnnotations(strings.Join(commands, "\n") + "\n")
		Expect(as).To(HaveLen(3), "the annotations, and no forged one")
		for _, a := range as {
			Expect(a.Properties["title"]).To(HavePrefix("SONDE-"))
		}
		Expect(strings.Join(ignored, "\n")).To(ContainSubstring("\n    ::add-mask::hunter2\n"))
		Expect(strings.Join(ignored, "\n")).To(ContainSubstring("FAIL     SONDE-ID-1"), "the console is there, inert")
		var md bytes.Buffer
		Expect(report.WriteMarkdown(&md, r)).To(Succeed())
		got, err := os.ReadFile(summary)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("earlier step\n"+md.String()), "appended, not overwritten")
	})

	It("keeps the console on stderr when another report is on stdout too", func() {
		var stdout, stderr bytes.Buffer
		sink := report.Sink{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
			Outputs: []report.Output{{Format: "github", Path: "-"}, {Format: "json", Path: "-"}}}
		Expect(sink.Write(tallied(), nil)).To(Succeed())
		Expect(stderr.String()).To(ContainSubstring("SONDE-ID-1"))
		Expect(stdout.String()).NotTo(ContainSubstring("stop-commands"))
	})

	It("appends the summary from report render too", func() {
		summary := filepath.Join(GinkgoT().TempDir(), "summary.md")
		var stdout bytes.Buffer
		sink := report.Sink{Getenv: func(k string) string { return map[string]string{"GITHUB_STEP_SUMMARY": summary}[k] }}
		Expect(sink.Render(&stdout, "GitHub", tallied())).To(Succeed())
		Expect(parseAnnotations(stdout.String())).To(HaveLen(3))
		Expect(os.ReadFile(summary)).To(ContainSubstring("# sonde-serve conformance report"))
	})

	It("writes no summary outside Actions", func() {
		var stdout bytes.Buffer
		sink := report.Sink{Stdout: &stdout, Stderr: &bytes.Buffer{}, Outputs: []report.Output{{Format: "github", Path: "-"}},
			Getenv: func(string) string { return "" }}
		Expect(sink.Write(tallied(), nil)).To(Succeed())
		commands, _ := runnerReads(stdout.String())
		Expect(commands[0]).To(HavePrefix("::error title=SONDE-ID-1::"))
	})

	It("says which file it could not append to", func() {
		sink := report.Sink{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Outputs: []report.Output{{Format: "github", Path: "-"}},
			Getenv: func(string) string { return filepath.Join(GinkgoT().TempDir(), "missing", "summary.md") }}
		Expect(sink.Write(tallied(), nil)).To(MatchError(ContainSubstring("GITHUB_STEP_SUMMARY")))
	})
})
