package report_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

const schemaPath = "../../schemas/report.schema.json"

// reportSchema is compiled from the file on disk, not a copy, so the test
// checks the schema users get. Formats are asserted so "started" must be a
// real date-time.
var reportSchema = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	return c.MustCompile(schemaPath)
})

func validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return reportSchema().Validate(inst)
}

func toJSON(r *report.Report) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteJSON(&buf, r)).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("JSON", func() {
	It("writes a report that validates against schemas/report.schema.json", func() {
		Expect(validate(toJSON(tallied()))).To(Succeed())
	})

	It("writes [] rather than null, so a minimal report also validates", func() {
		r := &report.Report{Tool: "wirecheck", Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: verdict.Pass},
		}}
		doc := toJSON(r)
		Expect(string(doc)).To(ContainSubstring(`"findings": [`))
		Expect(string(doc)).To(ContainSubstring(`"transcript": []`))
		Expect(string(doc)).NotTo(ContainSubstring("null"))
		Expect(validate(doc)).To(Succeed())
		Expect(r.Findings[0].Transcript).To(BeNil(), "the caller's report is not modified")
		Expect(validate(toJSON(&report.Report{Tool: "wirecheck", Protocol: "p"}))).To(Succeed())
	})

	It("keeps the contract's field names in struct order", func() {
		doc := string(toJSON(tallied()))
		var last int
		for _, key := range []string{"tool", "version", "protocol", "target", "started", "duration_ms",
			"summary", "findings", "rules", "level", "notes"} {
			i := strings.Index(doc, "\n  \""+key+"\": ")
			Expect(i).To(BeNumerically(">", last), "%s out of order", key)
			last = i
		}
		Expect(doc).To(ContainSubstring(`"t_ms": 151.2`))
		Expect(doc).NotTo(ContainSubstring("<script>"), "HTML is escaped in case the file is served as a page")
	})

	DescribeTable("the schema rejects what breaks the contract",
		func(edit func(m map[string]any)) {
			var m map[string]any
			Expect(json.Unmarshal(toJSON(tallied()), &m)).To(Succeed())
			edit(m)
			doc, err := json.Marshal(m)
			Expect(err).NotTo(HaveOccurred())
			Expect(validate(doc)).NotTo(Succeed())
		},
		Entry("missing summary", func(m map[string]any) { delete(m, "summary") }),
		Entry("renamed field", func(m map[string]any) { m["duration"] = m["duration_ms"]; delete(m, "duration_ms") }),
		Entry("unknown verdict", func(m map[string]any) { finding(m, 0)["verdict"] = "flaky" }),
		Entry("lower-case level", func(m map[string]any) { finding(m, 0)["level"] = "must" }),
		Entry("finding without transcript", func(m map[string]any) { delete(finding(m, 0), "transcript") }),
		Entry("negative count", func(m map[string]any) { m["summary"].(map[string]any)["fail"] = -1 }),
		Entry("bad direction", func(m map[string]any) {
			finding(m, 4)["transcript"].([]any)[0].(map[string]any)["dir"] = "sideways"
		}),
		Entry("bad start time", func(m map[string]any) { m["started"] = "yesterday" }),
	)

	It("reads back what it wrote", func() {
		r := tallied()
		// Invalid UTF-8 is written as U+FFFD, so only valid text round-trips.
		for i := range r.Findings {
			r.Findings[i].Message = strings.ToValidUTF8(r.Findings[i].Message, "\ufffd")
			r.Findings[i].Actual = strings.ToValidUTF8(r.Findings[i].Actual, "\ufffd")
			for j := range r.Findings[i].Transcript {
				r.Findings[i].Transcript[j].Text = strings.ToValidUTF8(r.Findings[i].Transcript[j].Text, "\ufffd")
			}
		}
		got, err := report.ReadJSON(bytes.NewReader(toJSON(r)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Started.Equal(r.Started)).To(BeTrue())
		got.Started = r.Started
		// The writer turns nil transcripts into [], which is the one
		// intended difference.
		for i := range r.Findings {
			if r.Findings[i].Transcript == nil {
				Expect(got.Findings[i].Transcript).To(BeEmpty())
				got.Findings[i].Transcript = nil
			}
		}
		Expect(got).To(Equal(r))
	})

	DescribeTable("ReadJSON says what is wrong and where",
		func(doc string, want string) {
			_, err := report.ReadJSON(strings.NewReader(doc))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(HavePrefix("report: reading JSON report: "))
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("empty", "  \n", "input is empty"),
		Entry("syntax", "{\n  \"tool\": \"wirecheck\",\n  \"protocol\": oops\n}", "invalid JSON at line 3, column"),
		Entry("truncated", `{"tool": "wirecheck", "findings": [`, "ends early"),
		Entry("not an object", `[1, 2]`, "a report is a JSON object"),
		Entry("wrong type", "{\"tool\": \"wirecheck\",\n\"duration_ms\": \"12\"}", `line 2, column`),
		Entry("wrong type names field", `{"tool": "wirecheck", "duration_ms": "12"}`, `"duration_ms" must be a number`),
		Entry("not a report", `{"seq": 1, "dir": "sent", "text": "x"}`, "not a wirecheck report"),
		Entry("no protocol", `{"tool": "wirecheck"}`, `"protocol" is missing`),
		Entry("bad verdict", `{"tool":"w","protocol":"p","findings":[{"rule":"A","level":"MUST","verdict":"pass"},{"rule":"A","level":"MUST","verdict":"flaky"}]}`,
			`findings[1].verdict: unknown verdict "flaky"`),
		Entry("bad level", `{"tool":"w","protocol":"p","findings":[{"rule":"A","level":"must","verdict":"pass"}]}`,
			`findings[0].level: unknown level "must"`),
		Entry("bad run level", `{"tool":"w","protocol":"p","level":"HIGH"}`, `"level": unknown level "HIGH"`),
		Entry("bad time", `{"tool":"w","protocol":"p","started":"yesterday"}`, `"started" must be an RFC 3339 date-time`),
		Entry("trailing data", "{\"tool\":\"w\",\"protocol\":\"p\"}\n{\"tool\":\"w\"}", "unexpected data after the report at line 2"),
	)

	It("writes the findings through one buffer, allocating nothing per finding", func() {
		// A run of every revision writes some 1,900 findings: encoding each
		// by itself allocated a few buffers apiece.
		r := tallied()
		for len(r.Findings) < 2000 {
			r.Findings = append(r.Findings, r.Findings...)
		}
		Expect(testing.AllocsPerRun(3, func() { Expect(report.WriteJSON(io.Discard, r)).To(Succeed()) })).To(BeNumerically("<", 100))
	})

	It("refuses a transcript time JSON cannot hold, as encoding/json does", func() {
		r := tallied()
		r.Findings[4].Transcript = append([]transcript.Entry{}, r.Findings[4].Transcript...)
		r.Findings[4].Transcript[1].OffsetMS = math.NaN()
		err := report.WriteJSON(io.Discard, r)
		Expect(err).To(MatchError(ContainSubstring("report: writing JSON: json: unsupported value: NaN")))
	})

	It("ignores fields a newer version may add", func() {
		r, err := report.ReadJSON(strings.NewReader(`{"tool":"w","protocol":"p","started":"2025-06-01T12:00:00Z","future":{"x":1}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Started).To(BeTemporally("==", time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)))
	})
})

func finding(m map[string]any, i int) map[string]any {
	return m["findings"].([]any)[i].(map[string]any)
}
