package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// closedPort is a loopback address nothing listens on: a port the kernel
// handed out, closed again.
func closedPort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	return addr
}

// savedPing is a saved MCP scenario for replay.
func savedPing(dir string) string {
	f := filepath.Join(dir, "ping.yaml")
	Expect(os.WriteFile(f, []byte("protocol: mcp\nrules: [MCP-PING-1]\nfresh: true\n"+
		"steps:\n  - send: {jsonrpc: \"2.0\", id: f1, method: ping}\n    as: r1\n  - expect: r1\n    rule: MCP-PING-1\n"), 0o644)).To(Succeed())
	return f
}

var _ = Describe("an unreachable --url", func() {
	// No network is needed: the port is this machine's, and a name under
	// .invalid never resolves (RFC 6761 §6.4), so wirecheck answers it
	// without asking a DNS server.
	DescribeTable("ends as not started: exit 3, one block naming the URL, the cause in plain words, what to check",
		func(command string, host func() string, cause, check string) {
			dir := GinkgoT().TempDir()
			u := "http://" + host() + "/mcp"
			args := []string{command}
			switch command {
			case "replay":
				args = append(args, savedPing(dir))
			case "fuzz":
				args = append(args, "--runs", "5", "--save", dir)
			}
			args = append(args, "--protocol", "mcp", "--url", u, "--timeout", "2s",
				"--report", "json="+filepath.Join(dir, "r.json"), "--report", "markdown="+filepath.Join(dir, "r.md"))
			code, out, errs := cli("", args...)
			Expect(code).To(Equal(3), out+errs)
			Expect(out).To(HavePrefix("The server could not be reached: the suite did not run (exit 3).\n"))
			Expect(strings.Count(out, "The server could not be reached")).To(Equal(1), "one block: %s", out)
			Expect(out).To(ContainSubstring("  url:      " + u + "\n"))
			Expect(out).To(MatchRegexp(`  cause:    ` + cause))
			Expect(out).To(ContainSubstring("  check:    " + check))
			Expect(out).NotTo(ContainSubstring("────"), "no failure block")
			Expect(out).NotTo(ContainSubstring("ERROR"), "no row blames the server")
			Expect(out).NotTo(ContainSubstring("FAIL"))
			Expect(out).NotTo(ContainSubstring("Post \"http"), "the cause in plain words, not Go's error")

			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			Expect(err).NotTo(HaveOccurred())
			var rep report.Report
			Expect(json.Unmarshal(data, &rep)).To(Succeed())
			Expect(rep.NotStarted).NotTo(BeNil(), "the JSON report says the run never began")
			Expect(rep.NotStarted.State).To(Equal("unreachable"))
			Expect(rep.NotStarted.Reason).To(MatchRegexp(cause))
			Expect(rep.NotStarted.Check).To(ContainSubstring(check))
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(Equal(verdict.Fail), "no rule failed: %+v", f)
				if f.Verdict == verdict.Error {
					Expect(f.Message).To(HavePrefix("not run: "), "an error is a scenario not run, not the server's")
				}
			}
			md, err := os.ReadFile(filepath.Join(dir, "r.md"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(md)).To(MatchRegexp(cause))
			if command == "fuzz" {
				saved, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
				Expect(saved).To(BeEmpty(), "no reproducer of a server never reached")
			}
		},
		Entry("run: nothing listening", "run", closedPort, `nothing is listening on 127\.0\.0\.1:\d+ \(connection refused\)`, "that the server is running"),
		Entry("run: a host that does not resolve", "run", func() string { return "nosuch.invalid" }, `the host nosuch\.invalid does not resolve`, "the host name"),
		Entry("fuzz: nothing listening", "fuzz", closedPort, `nothing is listening on 127\.0\.0\.1:\d+ \(connection refused\)`, "that the server is running"),
		Entry("fuzz: a host that does not resolve", "fuzz", func() string { return "nosuch.invalid:8080" }, `the host nosuch\.invalid does not resolve`, "the host name"),
		Entry("replay: nothing listening", "replay", closedPort, `nothing is listening on 127\.0\.0\.1:\d+ \(connection refused\)`, "that the server is running"),
		Entry("replay: a host that does not resolve", "replay", func() string { return "nosuch.invalid" }, `the host nosuch\.invalid does not resolve`, "the host name"),
	)

	It("run --revision all says it once too", func() {
		u := "http://" + closedPort() + "/mcp"
		code, out, errs := cli("", "run", "--protocol", "mcp", "--revision", "all", "--url", u)
		Expect(code).To(Equal(3), out+errs)
		Expect(strings.Count(out, "The server could not be reached")).To(Equal(1), out)
		Expect(out).NotTo(ContainSubstring("ERROR"))
	})
})
