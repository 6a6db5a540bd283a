package report_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// hostileLine is what a malicious server might put on stdout: a terminal
// escape that clears the screen and retitles the window, a bidi override,
// markup for every rendered format, a CDATA terminator, a backtick run
// longer than a Markdown fence, an invalid UTF-8 byte and a NUL.
const hostileLine = "{\"id\":3,\"result\":\"\x1b[2J\x1b]0;pwned\x07<script>alert(1)</script>" +
	"\\\"><img src=x onerror=alert(1)> ]]> ````` \u202eevil \xff\x00 | tail\"}"

// fixture is one realistic run: every verdict, an uncatalogued rule, a
// multi-line expectation, a long transcript of which only the tail is
// shown, a frame the recorder cut, and a hostile server line.
func fixture() *report.Report {
	var ts []transcript.Entry
	add := func(dir transcript.Direction, t float64, text string) {
		ts = append(ts, transcript.Entry{Seq: len(ts), OffsetMS: t, Dir: dir, Text: text, Scenario: "ids/string-id"})
	}
	add(transcript.Received, 151.2, `{"ready":true,"version":"1.4.0"}`)
	for i := 0; i < 6; i++ {
		add(transcript.Sent, 152.0+float64(i), fmt.Sprintf(`{"id":%d,"method":"ping"}`, i))
		add(transcript.Received, 152.4+float64(i), fmt.Sprintf(`{"id":%d,"result":{}}`, i))
	}
	add(transcript.Sent, 160.1, `{"id":"a","method":"ping"}`)
	add(transcript.Stderr, 160.3, "warn: coercing id\nto number")
	add(transcript.Received, 160.9, `{"id":7,"result":{}}`)
	add(transcript.Received, 161.0, hostileLine)
	ts = append(ts, transcript.Entry{Seq: len(ts), OffsetMS: 161.5, Dir: transcript.Received,
		Text: strings.Repeat("x", 64), Truncated: 1048512, Scenario: "ids/string-id"})
	add(transcript.Note, 170.0, "scenario ended")

	crash := []transcript.Entry{
		{Seq: 0, OffsetMS: 0.5, Dir: transcript.Sent, Text: `{"id":1,"method":"shutdown"}`},
		{Seq: 1, OffsetMS: 3.25, Dir: transcript.Stderr, Text: "panic: runtime error: index out of range [3] with length 3"},
		{Seq: 2, OffsetMS: 4, Dir: transcript.Note, Text: "server exited: exit status 2"},
	}

	return &report.Report{
		Tool:       "wirecheck",
		Version:    "0.3.0",
		Protocol:   "sonde-serve",
		Target:     "sonde serve --json --data ./testdata <b>",
		Started:    time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		DurationMS: 1234,
		Level:      verdict.Must,
		Rules: []verdict.Rule{
			{ID: "SONDE-STARTUP-1", Level: verdict.Must, Title: "The first stdout line is the ready object", Source: "000_239269c7ecb57487.txt §2.1"},
			{ID: "SONDE-ID-1", Level: verdict.Must, Title: "A response echoes the id of its request, with its type", Source: "000_239269c7ecb57487.txt §3.2"},
			{ID: "SONDE-STDOUT-2", Level: verdict.Should, Title: "Nothing but protocol frames on stdout", Source: "000_239269c7ecb57487.txt §2.4"},
			{ID: "SONDE-SHUTDOWN-1", Level: verdict.Must, Title: "shutdown is answered before the process exits", Source: "000_239269c7ecb57487.txt §5"},
			{ID: "SONDE-CANCEL-1", Level: verdict.May, Title: "A cancelled request may be answered with an error", Source: "000_239269c7ecb57487.txt §4.3"},
			{ID: "SONDE-UNUSED-9", Level: verdict.May, Title: "A rule with no findings is left out of the table", Source: "000_239269c7ecb57487.txt §9"},
		},
		Findings: []report.Finding{
			{Rule: "SONDE-STARTUP-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "startup/ready", Message: "ready line received first", Transcript: []transcript.Entry{}},
			{Rule: "SONDE-STARTUP-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "startup/ready-after-stderr"},
			{Rule: "SONDE-STARTUP-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "startup/slow"},
			{Rule: "SONDE-ID-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "ids/numeric-id", Count: 12},
			{Rule: "SONDE-ID-1", Level: verdict.Must, Verdict: verdict.Fail, Scenario: "ids/string-id",
				Message:    `response id 7 (number) does not match request id "a" (string)`,
				Expected:   "{\n  \"id\": \"a\"\n}",
				Actual:     "{\n  \"id\": 7\n}",
				Transcript: ts,
				Reproduce:  "wirecheck replay fixtures/sonde-serve/ids.yaml --scenario ids/string-id -- sonde serve --json"},
			{Rule: "SONDE-ID-1", Level: verdict.Must, Verdict: verdict.Pass, Scenario: "ids/null-id"},
			{Rule: "SONDE-ID-1", Level: verdict.Must, Verdict: verdict.Skip, Scenario: "ids/batch", Message: "batches not supported by this protocol version"},
			{Rule: "SONDE-STDOUT-2", Level: verdict.Should, Verdict: verdict.Fail, Scenario: "ids/string-id",
				Message:    "a line on stdout is not a protocol frame: " + hostileLine,
				Expected:   "one JSON object per line",
				Actual:     hostileLine,
				Transcript: ts[len(ts)-3:]},
			{Rule: "SONDE-SHUTDOWN-1", Level: verdict.Must, Verdict: verdict.Error, Scenario: "lifecycle/shutdown",
				Message:    "server exited before the rule could be observed",
				Transcript: crash},
			{Rule: "SONDE-CANCEL-1", Level: verdict.May, Verdict: verdict.Skip, Scenario: "cancel/inflight", Message: "no slow method to cancel"},
			{Rule: "NDJSON-LINE-1", Level: verdict.Should, Verdict: verdict.Pass, Scenario: "startup/ready", Count: 3},
		},
		Notes: []string{"scenario restart/crash-loop not run: --rules excluded it"},
	}
}

// tallied returns the fixture with its summary computed, as the runner
// would hand it over.
func tallied() *report.Report {
	r := fixture()
	r.Tally()
	return r
}
