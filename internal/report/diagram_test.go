package report_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// markedFrames lists, per diagram on the page, the direction and label of
// the frame drawn as failing.
func markedFrames(page string) [][2]string {
	GinkgoHelper()
	re := regexp.MustCompile(`(?s)<g class="frame f-([a-z]+) failing">.*?<text class="label"[^>]*>([^<]*)</text>`)
	var out [][2]string
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

var _ = Describe("the sequence diagram of a failure", func() {
	It("marks the frame Actual quotes, else the server's last word", func() {
		page := htmlOf(tallied())
		Expect(regexp.MustCompile(`<svg class="seq"`).FindAllString(page, -1)).To(HaveLen(3))
		marks := markedFrames(page)
		Expect(marks).To(HaveLen(3))
		// Actual is {"id": 7}, pretty-printed: the frame with those members.
		Expect(marks[0]).To(Equal([2]string{"received", `{&#34;id&#34;:7,&#34;result&#34;:{}}`}))
		// Actual is the hostile line itself.
		Expect(marks[1][0]).To(Equal("received"))
		Expect(marks[1][1]).To(HavePrefix(`{&#34;id&#34;:3,`))
		// No Actual: the server's last word before it died.
		Expect(marks[2]).To(Equal([2]string{"stderr", "stderr: panic: runtime error: index out of range [3] with length 3"}))
	})

	It("draws the last frames of a long exchange, client to server and back", func() {
		var ts []transcript.Entry
		for i := 0; i < 30; i++ {
			ts = append(ts, transcript.Entry{Dir: transcript.Sent, Text: "ping"}, transcript.Entry{Dir: transcript.Received, Text: "pong"})
		}
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Actual: "nothing quotes this", Transcript: ts},
		}}
		page := htmlOf(r)
		Expect(page).To(ContainSubstring("Sequence diagram (last 20 of 60 frames)"))
		Expect(regexp.MustCompile(`<g class="frame f-sent`).FindAllString(page, -1)).To(HaveLen(10))
		Expect(regexp.MustCompile(`<g class="frame f-received`).FindAllString(page, -1)).To(HaveLen(10))
		// Sent runs from the client's lane (x=170) to the server's (640).
		Expect(page).To(MatchRegexp(`<g class="frame f-sent">\s*<text class="time"[^>]*>[^<]*</text>\s*<line x1="170" y1="(\d+)" x2="640" y2="(\d+)"/>`))
		Expect(page).To(MatchRegexp(`<g class="frame f-received">\s*<text class="time"[^>]*>[^<]*</text>\s*<line x1="640" y1="(\d+)" x2="170" y2="(\d+)"/>`))
		Expect(markedFrames(page)).To(Equal([][2]string{{"received", "pong"}}), "the last frame the server sent")
	})

	It("marks the frames the finding names, not the probe's reply after them", func() {
		// A reply with the wrong id, then the probe's reply (valid): the
		// finding names the first.
		ts := []transcript.Entry{
			{Seq: 40, Dir: transcript.Sent, Text: `{"id":"a","method":"tools/list"}`},
			{Seq: 41, Dir: transcript.Received, Text: `{"id":"a-x","ok":true}`},
			{Seq: 42, Dir: transcript.Sent, Text: `{"id":"probe-1","method":"tools/list"}`},
			{Seq: 43, Dir: transcript.Received, Text: `{"id":"probe-1","ok":true}`},
		}
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Actual: `id "a-x"`, Transcript: ts, Frames: []int{41}},
		}}
		Expect(markedFrames(htmlOf(r))).To(Equal([][2]string{{"received", `{&#34;id&#34;:&#34;a-x&#34;,&#34;ok&#34;:true}`}}))
	})

	It("shows a request that got no answer as such, even before the last frames", func() {
		ts := []transcript.Entry{{Seq: 0, Dir: transcript.Sent, Text: `{"id":"call-1","method":"tools/call"}`}}
		for i := 1; i <= 30; i++ {
			ts = append(ts, transcript.Entry{Seq: i, Dir: transcript.Received, Text: `{"note":"busy"}`})
		}
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Actual: "nothing", Transcript: ts,
				Frames: []int{0}, Unanswered: "10s"},
		}}
		page := htmlOf(r)
		Expect(markedFrames(page)).To(Equal([][2]string{{"sent", `{&#34;id&#34;:&#34;call-1&#34;,&#34;method&#34;:&#34;tools/call&#34;}`}}))
		Expect(page).To(ContainSubstring("✗ no answer within 10s"))
		Expect(page).To(ContainSubstring("Sequence diagram (20 of 31 frames)"))
		Expect(page).NotTo(ContainSubstring("✗ failing"))
	})

	It("is left out when the finding has no transcript", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "s", Message: "m"},
		}}
		Expect(htmlOf(r)).NotTo(ContainSubstring("<svg"))
	})
})
