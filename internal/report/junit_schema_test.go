package report_test

import (
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The Go XSD validators on the module proxy are cgo bindings to libxml2;
// xmllint is the same library without putting cgo into the module's test
// build. .ci/run installs it (Debian's libxml2-utils).
const junitSchema = "testdata/junit-jenkins.xsd"

// validateJUnit runs xmllint on doc against the Jenkins schema and returns
// its complaint, or "" when the document is valid.
func validateJUnit(doc []byte) string {
	GinkgoHelper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		Skip("xmllint not found (Debian package libxml2-utils, installed by .ci/run): the JUnit schema check needs it")
	}
	path := filepath.Join(GinkgoT().TempDir(), "junit.xml")
	Expect(os.WriteFile(path, doc, 0o644)).To(Succeed())
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", junitSchema, path).CombinedOutput()
	if err != nil {
		return string(out)
	}
	return ""
}

var _ = Describe("WriteJUnit against the JUnit schema Jenkins and GitLab read", func() {
	It("has a validator that rejects what the schema forbids", func() {
		// What the writer used to write: skipped with an attribute, and a
		// skipped count on testsuites.
		bad := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites skipped="1"><testsuite name="p" tests="1" failures="0" errors="0">
<testcase name="s"><skipped message="why"/></testcase></testsuite></testsuites>`)
		complaint := validateJUnit(bad)
		Expect(complaint).To(ContainSubstring("skipped"))
		Expect(complaint).To(ContainSubstring("not allowed"))
	})

	DescribeTable("writes documents the schema accepts",
		func(r func() *report.Report) {
			Expect(validateJUnit(junit(r()))).To(BeEmpty())
		},
		Entry("every verdict, hostile server text, notes", tallied),
		Entry("no findings", func() *report.Report { return &report.Report{Protocol: "p"} }),
		Entry("nothing but the protocol name", func() *report.Report {
			return &report.Report{Findings: []report.Finding{{Verdict: verdict.Skip}}}
		}),
		Entry("a verdict this version does not know", func() *report.Report {
			return &report.Report{Protocol: "p", Findings: []report.Finding{
				{Rule: "A-1", Level: verdict.Must, Verdict: "flaky", Scenario: "s", Message: "m"},
			}}
		}),
		Entry("a run longer than a thousand seconds", func() *report.Report {
			r := tallied()
			r.DurationMS = 12_345_678
			return r
		}),
	)
})
