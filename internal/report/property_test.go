package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// hostileText draws what a server could send: arbitrary bytes, arbitrary
// runes, or text built from the pieces that break renderers.
var hostileText = rapid.OneOf(
	rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 64), func(b []byte) string { return string(b) }),
	rapid.StringN(0, 64, -1),
	rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]string{
		"\x1b[2J", "\x1b]0;t\x07", "\u009b", "\u202e", "\r", "\n", "\t", "\x00", "\xff",
		"<script>", `"><img src=x onerror=alert(1)>`, "]]>", "```", "````````", "|", `\`, "&amp;", "a", " ",
	}), 0, 12), func(p []string) string { return strings.Join(p, "") }),
)

func randomReport(t *rapid.T) *report.Report {
	levels := rapid.SampledFrom([]verdict.Level{verdict.Must, verdict.Should, verdict.May})
	verdicts := rapid.SampledFrom([]verdict.Verdict{verdict.Pass, verdict.Fail, verdict.Skip, verdict.Error})
	ruleIDs := rapid.SampledFrom([]string{"A-1", "B-2", "C-3", "D-4"})
	dirs := rapid.SampledFrom([]transcript.Direction{transcript.Sent, transcript.Received, transcript.Stderr, transcript.Note})
	r := &report.Report{
		Tool:       "wirecheck",
		Version:    hostileText.Draw(t, "version"),
		Protocol:   "p" + hostileText.Draw(t, "protocol"),
		Target:     hostileText.Draw(t, "target"),
		Started:    time.Unix(rapid.Int64Range(0, 4e9).Draw(t, "started"), 0).UTC(),
		DurationMS: rapid.Int64Range(0, 1e7).Draw(t, "duration"),
		Level:      levels.Draw(t, "level"),
		Notes:      rapid.SliceOfN(hostileText, 0, 2).Draw(t, "notes"),
	}
	for _, id := range []string{"A-1", "B-2"} {
		r.Rules = append(r.Rules, verdict.Rule{ID: id, Level: levels.Draw(t, "rule level"),
			Title: hostileText.Draw(t, "title"), Source: hostileText.Draw(t, "source")})
	}
	n := rapid.IntRange(0, 8).Draw(t, "findings")
	for i := 0; i < n; i++ {
		f := report.Finding{
			Rule: ruleIDs.Draw(t, "rule"), Level: levels.Draw(t, "level"), Verdict: verdicts.Draw(t, "verdict"),
			Scenario: hostileText.Draw(t, "scenario"), Message: hostileText.Draw(t, "message"),
			Expected: hostileText.Draw(t, "expected"), Actual: hostileText.Draw(t, "actual"),
			Reproduce: hostileText.Draw(t, "reproduce"), Count: rapid.IntRange(0, 3).Draw(t, "count"),
		}
		m := rapid.IntRange(0, 4).Draw(t, "entries")
		for j := 0; j < m; j++ {
			f.Transcript = append(f.Transcript, transcript.Entry{Seq: j, OffsetMS: float64(j) * 1.5,
				Dir: dirs.Draw(t, "dir"), Text: hostileText.Draw(t, "text")})
		}
		r.Findings = append(r.Findings, f)
	}
	r.Tally()
	return r
}

// everyField fills what randomReport leaves at its zero value, for the
// JSON writer, which writes findings, transcript entries and rules by
// hand: every optional field, times of any size, negative counts, rules
// with quotes and documents, and no rules at all.
func everyField(t *rapid.T, r *report.Report) {
	texts := rapid.OneOf(rapid.Just(""), hostileText)
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Count = rapid.IntRange(-2, 1<<40).Draw(t, "count")
		f.Known = rapid.Bool().Draw(t, "known")
		f.Revision = texts.Draw(t, "revision")
		f.Cause = texts.Draw(t, "cause")
		f.Unanswered = texts.Draw(t, "unanswered")
		f.Frames = rapid.SliceOfN(rapid.IntRange(-1, 1<<20), 0, 3).Draw(t, "frames")
		if rapid.Bool().Draw(t, "empty transcript") && f.Transcript == nil {
			f.Transcript = []transcript.Entry{}
		}
		for j := range f.Transcript {
			e := &f.Transcript[j]
			e.OffsetMS = rapid.OneOf(rapid.Float64(), rapid.Float64Range(-1e-5, 1e-5),
				rapid.SampledFrom([]float64{0, 1e-6, 1e-7, 1e20, 1e21, 123.456, -0.5, 5e-324})).Draw(t, "t_ms")
			e.Seq = rapid.IntRange(-1, 1<<30).Draw(t, "seq")
			e.Scenario = texts.Draw(t, "entry scenario")
			e.Truncated = rapid.IntRange(0, 1<<20).Draw(t, "truncated")
		}
	}
	for i := range r.Rules {
		r.Rules[i].Quote = texts.Draw(t, "quote")
		r.Rules[i].Document = texts.Draw(t, "document")
	}
	if rapid.Bool().Draw(t, "no rules") {
		r.Rules = nil
	}
}

var _ = Describe("any report, however hostile its text", func() {
	It("is written as JSON byte for byte as encoding/json writes it whole, findings streamed one at a time", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			r := randomReport(t)
			everyField(t, r)
			// The hostile text may hold what the writer splices at.
			if rapid.Bool().Draw(t, "spliced key in text") {
				r.Notes = append(r.Notes, "\n  \"findings\": []", `"findings": []`)
			}
			var got bytes.Buffer
			if err := report.WriteJSON(&got, r); err != nil {
				t.Fatal(err)
			}
			whole := *r
			whole.Findings = append([]report.Finding{}, r.Findings...)
			for i := range whole.Findings {
				if whole.Findings[i].Transcript == nil {
					whole.Findings[i].Transcript = []transcript.Entry{}
				}
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(&whole); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("WriteJSON differs from encoding the whole report:\ngot:\n%s\nwant:\n%s", got.String(), want.String())
			}
		})
	})

	It("renders safely in every format", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			// Assertions go through t, so that rapid can shrink a failure
			// to a minimal report instead of Ginkgo aborting the first try.
			g := NewWithT(t)
			r := randomReport(t)
			render := func(f string) string {
				var buf bytes.Buffer
				if err := report.Write(f, &buf, r); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if f != "json" && !utf8.Valid(buf.Bytes()) {
					t.Fatalf("%s output is not valid UTF-8", f)
				}
				return buf.String()
			}

			var con bytes.Buffer
			g.Expect(report.WriteConsole(&con, r, report.ConsoleOptions{Color: true, Verbose: true})).To(Succeed())
			expectTerminalSafe(g, con.String())

			doc := []byte(render("junit"))
			expectConsistent(g, parseJUnit(g, doc), r)

			expectNoMarkupFrom(g, render("html"))

			md := render("markdown")
			prose := outsideFences(g, md)
			g.Expect(prose).NotTo(ContainSubstring("<script"))
			for _, row := range tableRow.FindAllString(prose, -1) {
				n := unescapedPipes(row)
				g.Expect(n == 6 || n == 7).To(BeTrue(), "row %q has %d separators", row, n)
			}

			js := []byte(render("json"))
			g.Expect(json.Valid(js)).To(BeTrue())
			g.Expect(validate(js)).To(Succeed())
			back, err := report.ReadJSON(bytes.NewReader(js))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(back.Findings).To(HaveLen(len(r.Findings)))
			g.Expect(back.Summary).To(Equal(r.Summary))
		})
	})
})
