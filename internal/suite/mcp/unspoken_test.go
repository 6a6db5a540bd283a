package mcp_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runUnder runs the whole suite under 2026-07-28 against the reference
// server with a variant, over stdio or Streamable HTTP.
func runUnder(variant, transport string) *report.Report {
	GinkgoHelper()
	srv := testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Variants: []string{variant}}
	if transport == "http" {
		t, stop := testrun.Front(refserver.Options{Variants: []string{variant}}, nil)
		DeferCleanup(stop)
		srv.Command = t
	}
	rep, err := testrun.Run(srv, runner.Config{Timeout: 5 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// blamed are the findings that fail or error.
func blamed(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
			out = append(out, f.Rule+" in "+f.Scenario+": "+f.Message)
		}
	}
	return out
}

var _ = Describe("a server that does not speak 2026-07-28, run under it", func() {
	DescribeTable("is not failed for the revision it does not claim; the version error's shape is judged",
		func(variant, transport, note string) {
			rep := runUnder(variant, transport)
			Expect(blamed(rep)).To(BeEmpty())
			v, msg := finding(rep, "MCP-VERSION-1")
			Expect(v).To(Equal(verdict.Pass), msg)
			v, msg = finding(rep, "MCP-DISCOVER-1")
			Expect(v).To(Equal(verdict.Pass), msg)
			Expect(rep.Notes).To(ContainElement(ContainSubstring(note)))
		},
		Entry("older revisions only, over stdio: the run falls back to initialize", "older-revisions", "stdio",
			"wirecheck fell back to initialize, which negotiated 2025-11-25"),
		Entry("older revisions only, over HTTP", "older-revisions", "http",
			"wirecheck fell back to initialize, which negotiated 2025-11-25"),
		Entry("a later revision only, over stdio: every scenario skips its rules", "newer-revision-only", "stdio",
			"none of those is a revision wirecheck judges with initialize"),
		Entry("a later revision only, over HTTP", "newer-revision-only", "http",
			"none of those is a revision wirecheck judges with initialize"),
	)

	It("judges the features of the revision it falls back to (older revisions only)", func() {
		rep := runUnder("older-revisions", "http")
		for _, rule := range []string{"MCP-TOOLS-7", "MCP-PROMPTS-4", "MCP-RESOURCES-5", "MCP-JSONRPC-9"} {
			v, msg := finding(rep, rule)
			Expect(v).To(Equal(verdict.Pass), rule+": "+msg)
		}
	})

	It("is not judged by that revision's transport rules on the exchanges that tell it does not speak it", func() {
		// server/discover answered on an SSE stream without
		// X-Accel-Buffering: no, a 2026-07-28 SHOULD (MCP-HTTP-XACCEL-1)
		// the server owes only in a revision it speaks. Found against
		// the go-sdk's everything example.
		t, stop := testrun.Front(refserver.Options{Variants: []string{"older-revisions", "sse-answers"}, Faults: []string{"no-xaccel"}}, nil)
		DeferCleanup(stop)
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2026-07-28", Command: t}, runner.Config{Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		Expect(blamed(rep)).To(BeEmpty())
		v, msg := finding(rep, "MCP-TOOLS-7")
		Expect(v).To(Equal(verdict.Pass), msg)
	})

	It("skips the rules of a revision it has none in common with, saying why", func() {
		rep := runUnder("newer-revision-only", "http")
		v, msg := finding(rep, "MCP-TOOLS-7")
		Expect(v).To(Equal(verdict.Skip))
		Expect(msg).To(ContainSubstring("the server does not speak revision 2026-07-28 (server/discover lists 2099-01-01"))
	})
})
