package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("--max-frame", func() {
	// The reference server's variant big-resource answers a resources/read
	// with a line of about 5 MB, as a real server did.
	run := func(transport string, extra ...string) (int, string, []string, []string) {
		dir := GinkgoT().TempDir()
		// A 5 MB body under -race on a loaded machine may take seconds: the
		// test is of the frame's size, not of time.
		args := append([]string{"run", "--protocol", "mcp", "--scenario", "resources", "--no-progress", "--timeout", "30s",
			"--report", "json=" + filepath.Join(dir, "r.json")}, extra...)
		srv := []string{bin(), "serve", "mcp", "--variant", "big-resource"}
		if transport != "stdio" {
			args = append(args, "--transport", transport)
			srv = append(srv, "--"+transport, "127.0.0.1:{port}")
		}
		code, out, errs := cli("", append(append(args, "--"), srv...)...)
		var failed, errored []string
		for _, f := range readReport(filepath.Join(dir, "r.json")).Findings {
			switch f.Verdict {
			case verdict.Fail:
				failed = append(failed, f.Rule+": "+f.Message)
			case verdict.Error:
				errored = append(errored, f.Rule+": "+f.Message)
			}
		}
		return code, out + errs, failed, errored
	}

	DescribeTable("judges a 5 MB answer at the default",
		func(transport string) {
			code, out, failed, errored := run(transport)
			Expect(failed).To(BeEmpty())
			Expect(errored).To(BeEmpty())
			Expect(code).To(Equal(0), out)
		},
		Entry("on stdio", "stdio"),
		Entry("over Streamable HTTP", "http"),
		Entry("over the legacy HTTP+SSE transport", "sse"),
	)

	DescribeTable("reports a frame over it as wirecheck's limit, naming the flag, and fails no rule of the server",
		func(transport, says string) {
			code, out, failed, errored := run(transport, "--max-frame", "1MiB")
			Expect(failed).To(BeEmpty(), "the server broke nothing")
			Expect(errored).To(ContainElement(ContainSubstring(says)))
			Expect(errored).To(ContainElement(HavePrefix("MCP-JSONRPC-5: the answer to request id")))
			Expect(code).To(Equal(1), "an error is not a pass")
			if transport != "sse" {
				Expect(errored).To(HaveLen(2), "the scenario went on past the frame: %v", errored)
			}
			Expect(out).To(ContainSubstring("--max-frame 1MiB"), "the reproduce line keeps the flag")
		},
		Entry("on stdio", "stdio", "MCP-STDIO-1: the server sent a frame of more than 1MiB, wirecheck's --max-frame; raise it to judge this frame"),
		Entry("over Streamable HTTP", "http", "a body over wirecheck's --max-frame 1MiB; raise --max-frame to judge it"),
		// The event ends the session's one stream: what the scenario
		// sends after it is not judged either.
		Entry("over the legacy HTTP+SSE transport", "sse", "MCP-SSE-4: the server sent a frame of more than 1MiB, wirecheck's --max-frame; raise it to judge this frame"),
	)

	It("refuses a size it cannot read", func() {
		code, _, errs := cli("", "run", "--protocol", "mcp", "--max-frame", "lots", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`"lots" is not a size`))
	})
})
