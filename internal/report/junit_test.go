package report_test

import (
	"bytes"
	"encoding/xml"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Independent of the writer's own types, so a mistake there cannot hide
// itself here.
type parsedSuites struct {
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Suites   []parsedSuite `xml:"testsuite"`
}

type parsedSuite struct {
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Cases    []parsedCase `xml:"testcase"`
}

type parsedCase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:",chardata"`
	} `xml:"skipped"`
}

func junit(r *report.Report) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteJUnit(&buf, r)).To(Succeed())
	return buf.Bytes()
}

// parseJUnit reads the document strictly, token by token first (so any
// ill-formed XML fails), then into the structs.
func parseJUnit(g Gomega, doc []byte) parsedSuites {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		g.Expect(err).NotTo(HaveOccurred(), "JUnit output is not well-formed XML")
	}
	var s parsedSuites
	g.Expect(xml.Unmarshal(doc, &s)).To(Succeed())
	return s
}

// expectConsistent checks every count attribute against the test cases
// actually present: the bug h2spec's writer had.
func expectConsistent(g Gomega, s parsedSuites, r *report.Report) {
	g.Expect(s.Suites).To(HaveLen(1))
	su := s.Suites[0]
	var fail, errs, skip int
	for _, c := range su.Cases {
		if c.Failure != nil {
			fail++
		}
		if c.Error != nil {
			errs++
		}
		if c.Skipped != nil {
			skip++
		}
	}
	g.Expect(su.Cases).To(HaveLen(len(r.Findings)))
	g.Expect(su.Tests).To(Equal(len(su.Cases)))
	g.Expect(su.Failures).To(Equal(fail))
	g.Expect(su.Errors).To(Equal(errs))
	g.Expect(su.Skipped).To(Equal(skip))
	g.Expect([]int{s.Tests, s.Failures, s.Errors}).To(Equal([]int{su.Tests, su.Failures, su.Errors}))
}

var _ = Describe("WriteJUnit", func() {
	It("counts tests, failures, errors and skips correctly", func() {
		r := tallied()
		s := parseJUnit(Default, junit(r))
		expectConsistent(Default, s, r)
		su := s.Suites[0]
		Expect(su.Name).To(Equal("sonde-serve"))
		Expect(su.Time).To(Equal("1.234"))
		Expect([]int{su.Tests, su.Failures, su.Errors, su.Skipped}).To(Equal([]int{11, 2, 1, 2}))
		Expect([]int{su.Failures, su.Errors, su.Skipped}).To(Equal([]int{r.Summary.Fail, r.Summary.Error, r.Summary.Skip}))
	})

	It("names each case after its rule and scenario, typed by rule and level", func() {
		su := parseJUnit(Default, junit(tallied())).Suites[0]
		c := su.Cases[4]
		Expect(c.Classname).To(Equal("SONDE-ID-1"))
		Expect(c.Name).To(Equal("ids/string-id"))
		Expect(c.Time).To(Equal("0"))
		Expect(c.Failure).NotTo(BeNil())
		Expect(c.Failure.Type).To(Equal("SONDE-ID-1 MUST"))
		Expect(c.Failure.Message).To(Equal(`response id 7 (number) does not match request id "a" (string)`))
		Expect(c.Failure.Body).To(ContainSubstring("Expected:\n  {\n    \"id\": \"a\"\n  }\n"))
		Expect(c.Failure.Body).To(ContainSubstring("Actual:\n"))
		Expect(c.Failure.Body).To(ContainSubstring("  160.9ms ← {\"id\":7,\"result\":{}}"))
		Expect(c.Failure.Body).To(ContainSubstring("Reproduce: wirecheck replay"))
		Expect(su.Cases[8].Error).NotTo(BeNil())
		Expect(su.Cases[8].Error.Type).To(Equal("SONDE-SHUTDOWN-1 MUST"))
		Expect(su.Cases[6].Skipped).NotTo(BeNil())
		Expect(su.Cases[6].Skipped.Message).To(Equal("batches not supported by this protocol version"))
	})

	It("carries hostile text as visible escapes, including a CDATA terminator", func() {
		su := parseJUnit(Default, junit(tallied())).Suites[0]
		body := su.Cases[7].Failure.Body
		Expect(body).To(ContainSubstring(`\x1b[2J\x1b]0;pwned\x07<script>alert(1)</script>`))
		Expect(body).To(ContainSubstring(`]]> `), "the CDATA section was split, not cut short")
		Expect(body).To(ContainSubstring(`\u202eevil \xff\x00 | tail`))
		Expect(su.Cases[7].Failure.Message).To(ContainSubstring(`<img src=x onerror=alert(1)>`))
	})

	It("reports a verdict it does not know as an error, never a pass", func() {
		r := &report.Report{Protocol: "p", Findings: []report.Finding{
			{Rule: "A-1", Level: verdict.Must, Verdict: "flaky", Scenario: "s", Message: "m"},
		}}
		s := parseJUnit(Default, junit(r))
		expectConsistent(Default, s, r)
		Expect(s.Suites[0].Errors).To(Equal(1))
		Expect(s.Suites[0].Cases[0].Error.Message).To(Equal(`unknown verdict "flaky": m`))
	})

	It("writes an empty suite for a report without findings", func() {
		r := &report.Report{Protocol: "p"}
		s := parseJUnit(Default, junit(r))
		expectConsistent(Default, s, r)
		Expect(s.Tests).To(Equal(0))
	})
})
