package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("wirecheck serve over HTTP", func() {
	// start runs the binary's server and reads the address it names.
	start := func(args ...string) (*exec.Cmd, string) {
		cmd := exec.Command(bin(), append([]string{"serve", "mcp"}, args...)...)
		stderr, err := cmd.StderrPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(stderr).ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		return cmd, strings.TrimSpace(line)
	}

	It("serves Streamable HTTP on --http, says where, and ends cleanly on SIGTERM", func() {
		cmd, line := start("--http", "127.0.0.1:0")
		Expect(line).To(MatchRegexp(`^listening on http://127\.0\.0\.1:\d+/mcp$`))
		url := regexp.MustCompile(`http://\S+`).FindString(line)
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Mcp-Session-Id")).NotTo(BeEmpty())
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		Eventually(done, 20*time.Second).Should(Receive(BeNil()))
	})

	It("serves the legacy transport on --sse, binding 127.0.0.1 when the host is left out", func() {
		_, line := start("--sse", ":0")
		Expect(line).To(MatchRegexp(`^listening on http://127\.0\.0\.1:\d+/sse$`))
	})

	DescribeTable("a --url without --transport is judged over the transport the server answers on, which the report and the rerun line name",
		func(front, want string, note string) {
			_, line := start(front, "127.0.0.1:0", "--fault", "tool-result-bad")
			url := regexp.MustCompile(`http://\S+`).FindString(line)
			code, out, errs := cli("", "run", "--protocol", "mcp", "--url", url, "--scenario", "tools", "--timeout", "10s")
			Expect(code).To(Equal(1), "%s\n%s", out, errs)
			Expect(out).To(ContainSubstring("MCP-TOOLS-4"))
			Expect(out).To(ContainSubstring(note))
			Expect(out).To(ContainSubstring("judged over --transport " + want))
			Expect(out).To(ContainSubstring("wirecheck run --protocol mcp --scenario tools --transport " + want + " --url " + url))
		},
		Entry("Streamable HTTP", "--http", "http", "POST initialize answered HTTP 200: Streamable HTTP"),
		Entry("the legacy HTTP+SSE transport, where the POST is refused 405 and GET names the endpoint", "--sse", "sse",
			"POST initialize answered HTTP 405 and GET opened an event stream whose first event is endpoint"),
	)

	It("refuses an address that is no host:port, and --http with --sse (exit 2)", func() {
		code, _, errs := cli("", "serve", "mcp", "--http", "nope")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`--http "nope": want an address to listen on, host:port`))
		code, _, errs = cli("", "serve", "mcp", "--http", ":1", "--sse", ":2")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("give one of --http, --sse"))
	})
})
