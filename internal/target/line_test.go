package target_test

import (
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/target"
)

// cmd/wirecheck's reproduce tests paste whole lines into a shell; these
// pin the words a line is made of.
var _ = Describe("the rerun line", func() {
	t := target.Target{Argv: []string{"./srv", "--header", "Authorization: Bearer abc"},
		Env: []string{"WC_FAULT=on", "API_TOKEN=s3cret"}, Cwd: "/tmp/my server"}

	It("carries the target's folder and environment, secrets as placeholders, and every setting given", func() {
		line := t.Line(target.Rerun{Command: "run", Head: []string{"--scenario", "tools list"}, Protocol: "mcp",
			Timeout: time.Second, Startup: 2 * time.Second, Level: "SHOULD", Params: []string{"k=v w"},
			Revision: "2024-11-05", Rules: []string{"MCP-*"}, Seed: 7})
		Expect(line).To(Equal(`wirecheck run --protocol mcp --scenario 'tools list' --cwd '/tmp/my server' --env WC_FAULT=on` +
			` --env API_TOKEN="$API_TOKEN" --timeout 1s --startup-timeout 2s --level should --param 'k=v w' --revision 2024-11-05` +
			` --rules 'MCP-*' --seed 7 -- ./srv --header 'Authorization: Bearer [REDACTED]'`))
	})

	It("names replay's files before the protocol and leaves out what is the default", func() {
		line := target.Target{Argv: []string{"srv"}}.Line(target.Rerun{Command: "replay", Head: []string{"r.yaml"}, Protocol: "sonde-serve"})
		Expect(line).To(Equal("wirecheck replay r.yaml --protocol sonde-serve -- srv"))
	})

	It("masks a setting that names a secret", func() {
		line := target.Target{URL: "https://as.example/"}.Line(target.Rerun{Command: "run", Params: []string{"client-id=c1", "client-secret=x1"}})
		Expect(line).NotTo(ContainSubstring("x1"))
		Expect(line).To(ContainSubstring("--param client-id=c1 --param 'client-secret=[REDACTED]'"))
	})

	It("masks a secret whose name is no shell variable", func() {
		line := target.Target{Argv: []string{"srv"}, Env: []string{"MY-TOKEN=x1"}}.Line(target.Rerun{Command: "run"})
		Expect(line).NotTo(ContainSubstring("x1"))
	})

	DescribeTable("shell quoting reads back every word unchanged",
		func(word string) {
			out, err := exec.Command("sh", "-c", "printf '%s' "+target.Quote(word)).Output()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(out)).To(Equal(word))
		},
		Entry("plain", "serve"),
		Entry("space", "my server"),
		Entry("dollar", "$HOME"),
		Entry("quotes", `it's "x"`),
		Entry("glob", "*.yaml"),
		Entry("backslash", `a\b`),
		Entry("semicolon and pipe", "a;b|c&d"),
		Entry("backtick", "`id`"),
		Entry("leading equals", "=x"),
		Entry("empty", ""),
	)
})

var _ = Describe("a target over HTTP as reports and rerun lines show it", func() {
	It("names a running server by its URL, credentials and query values masked", func() {
		t := target.Target{URL: "https://user:pw@h.example/mcp?key=abc&flag#top"}
		Expect(t.String()).To(Equal("https://[REDACTED]@h.example/mcp?key=[REDACTED]&flag#top"))
	})

	It("names a launched server by its command, {port} as written", func() {
		t := target.Target{Argv: []string{"srv", "--port", "{port}"}, Transport: "http"}
		Expect(t.String()).To(Equal("srv --port '{port}'"))
	})

	It("carries the transport, the URL and the headers, a secret header masked unless it names a variable", func() {
		GinkgoT().Setenv("WC_T", "x")
		t := target.Target{URL: "http://h:1/mcp?token=abc", Headers: []string{"Authorization: Bearer abc", "X-Api-Key: k1", "Cookie: c=1",
			"X-Trace: on", "Authorization: Bearer ${WC_T}"}}
		line := t.Line(target.Rerun{Command: "run", Protocol: "mcp"})
		Expect(line).To(Equal(`wirecheck run --protocol mcp --transport http --url 'http://h:1/mcp?token=[REDACTED]'` +
			` --header 'Authorization: [REDACTED]' --header 'X-Api-Key: [REDACTED]' --header 'Cookie: [REDACTED]'` +
			` --header 'X-Trace: on' --header 'Authorization: Bearer ${WC_T}'`))
		for _, secret := range []string{"abc", "k1", "c=1"} {
			Expect(line).NotTo(ContainSubstring(secret))
		}
	})

	It("carries the transport and the URL template of a launched server before its command", func() {
		t := target.Target{Argv: []string{"srv", "{port}"}, Transport: "sse", URL: "http://127.0.0.1:{port}/events"}
		Expect(t.Line(target.Rerun{Command: "run", Protocol: "mcp"})).To(Equal(
			`wirecheck run --protocol mcp --transport sse --url 'http://127.0.0.1:{port}/events' -- srv '{port}'`))
	})
})
