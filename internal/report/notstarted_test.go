package report_test

import (
	"bytes"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a report of a run that never began", func() {
	const cause = "nothing is listening on 127.0.0.1:9 (connection refused)"
	unreached := &report.NotReady{Awaited: "a connection to the host and port --url names", URL: "http://127.0.0.1:9/mcp",
		Cause: cause, Check: "that the server is running", NotRun: 2, Code: 3}
	notRun := func() *report.Report {
		r := &report.Report{Tool: "wirecheck", Protocol: "mcp", Target: "http://127.0.0.1:9/mcp", Level: verdict.Must,
			Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Findings: []report.Finding{
				{Rule: "MCP-PING-1", Level: verdict.Must, Verdict: verdict.Error, Scenario: "a", Message: "not run: the target could not be reached: " + cause},
				{Rule: "MCP-TOOLS-1", Level: verdict.Must, Verdict: verdict.Error, Scenario: "b", Message: "not run: the target could not be reached: " + cause},
			}}
		r.Tally()
		r.NotStarted = unreached.Record()
		return r
	}

	It("is one block naming the URL, the cause and what to check, ending in exit 3", func() {
		var b bytes.Buffer
		Expect(report.WriteNotReady(&b, *unreached, false)).To(Succeed())
		Expect(b.String()).To(Equal("The server could not be reached: the suite did not run (exit 3).\n" +
			"  awaited:  a connection to the host and port --url names\n" +
			"  url:      http://127.0.0.1:9/mcp\n" +
			"  cause:    " + cause + "\n" +
			"  check:    that the server is running\n" +
			"  not run:  2 scenarios (each listed as not run in the JSON report)\n" +
			"exit 3: the target could not be reached\n"))
	})

	It("says in JSON, within the report schema, that it never began and why", func() {
		doc := toJSON(notRun())
		Expect(validate(doc)).To(Succeed())
		var m map[string]any
		Expect(json.Unmarshal(doc, &m)).To(Succeed())
		Expect(m).To(HaveKeyWithValue("not_started", map[string]any{"state": "unreachable", "reason": cause,
			"awaited": "a connection to the host and port --url names", "check": "that the server is running"}))
		back, err := report.ReadJSON(bytes.NewReader(doc))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.NotStarted).To(Equal(unreached.Record()))
		Expect(string(toJSON(tallied()))).NotTo(ContainSubstring(`"not_started"`))
	})

	It("states each way a run never begins", func() {
		Expect((&report.NotReady{Cause: "not found"}).Record().State).To(Equal("not-started"))
		Expect((&report.NotReady{Cause: "no ready line", Launched: true, Hint: "flush"}).Record()).To(Equal(
			&report.NotStarted{State: "not-ready", Reason: "no ready line", Check: "flush"}))
	})

	It("says NOT STARTED and why, not PASS or FAIL, in the console, Markdown, HTML, JUnit and one GitHub annotation", func() {
		r := notRun()
		var console, md, html, junit, gh bytes.Buffer
		Expect(report.WriteConsole(&console, r, report.ConsoleOptions{})).To(Succeed())
		Expect(report.WriteMarkdown(&md, r)).To(Succeed())
		Expect(report.WriteHTML(&html, r)).To(Succeed())
		Expect(report.WriteJUnit(&junit, r)).To(Succeed())
		Expect(report.WriteGitHub(&gh, r)).To(Succeed())
		said := "the server could not be reached: " + cause + "; the suite did not run (exit 3)"
		Expect(console.String()).To(ContainSubstring("NOT STARTED " + said + "\n"))
		Expect(md.String()).To(ContainSubstring("**NOT STARTED** " + said + "\n"))
		Expect(html.String()).To(ContainSubstring(`<span class="badge overall NOT-STARTED">NOT STARTED</span>`))
		Expect(junit.String()).To(ContainSubstring(`<property name="not_started" value="the server could not be reached: ` + cause + `">`))
		Expect(validateJUnit(junit.Bytes())).To(BeEmpty())
		Expect(gh.String()).To(Equal("::error title=wirecheck%3A the suite did not run::the server could not be reached: " + cause + "\n"))
	})
})
