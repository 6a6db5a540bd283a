package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("wirecheck run --role client", func() {
	It("checks the reference MCP client through {server}, and fails a faulty one with the rule and a rerun line that says --role client", func() {
		dir := GinkgoT().TempDir()
		out, err := exec.Command(bin(), "run", "--protocol", "mcp", "--role", "client", "--no-progress",
			"--report", "json="+filepath.Join(dir, "r.json"),
			"--", bin(), "serve", "mcp", "--role", "client", "--", "{server}").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		data, err := os.ReadFile(filepath.Join(dir, "r.json"))
		Expect(err).NotTo(HaveOccurred())
		var rep report.Report
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		Expect(rep.Summary.Fail).To(BeZero())
		Expect(rep.Summary.Pass).To(BeNumerically(">=", 10))

		cmd := exec.Command(bin(), "run", "--protocol", "mcp", "--role", "client", "--no-progress", "--timeout", "2s",
			"--", bin(), "serve", "mcp", "--role", "client", "--fault", "ping-not-empty", "--", "{server}")
		out, _ = cmd.CombinedOutput()
		Expect(cmd.ProcessState.ExitCode()).To(Equal(1), string(out))
		Expect(string(out)).To(ContainSubstring("MCP-CLIENT-PING-1"))
		Expect(string(out)).To(MatchRegexp(`wirecheck run --protocol mcp --scenario client-session --role client .* -- .* --fault ping-not-empty -- '\{server\}'`))
	})

	DescribeTable("refuses what has no meaning for a client, exit 2, naming it",
		func(want string, args ...string) {
			code, _, errs := cli("", append([]string{"run"}, args...)...)
			Expect(code).To(Equal(2), errs)
			Expect(errs).To(ContainSubstring(want))
			Expect(errs).NotTo(ContainSubstring("goroutine"))
		},
		Entry("a protocol without a client role", "wirecheck checks no tool-host client", "--protocol", "tool-host", "--role", "client", "--", "c", "{server}"),
		Entry("the role's module named as a protocol", "run it as --protocol mcp --role client", "--protocol", "mcp-client", "--", "c", "{server}"),
		Entry("an unknown role", `--role "peer"`, "--protocol", "mcp", "--role", "peer", "--", "c", "{server}"),
		Entry("--url", "--url with --role client", "--protocol", "mcp", "--role", "client", "--url", "http://127.0.0.1:1/mcp", "--", "c", "{url}"),
		Entry("a client command without {server}", "names no {server}", "--protocol", "mcp", "--role", "client", "--", "c", "--server", "x"),
		Entry("a client command over HTTP without {url}", "names no {url}", "--protocol", "mcp", "--role", "client", "--transport", "http", "--", "c", "{server}"),
		Entry("no client command", "give the client's command after --", "--protocol", "mcp", "--role", "client"),
		Entry("an authorization extension it has no scenario of", "--param extension=oauth: no such authorization extension", "--protocol", "mcp", "--role", "client", "--transport", "http", "--param", "extension=oauth", "--", "c", "{url}"),
		Entry("--header", "--header: wirecheck sends no HTTP request", "--protocol", "mcp", "--role", "client", "--header", "A: b", "--", "c", "{server}"),
	)

	It("gives a client of an authorization extension its credentials through words of its --env, and its rerun line keeps the words", func() {
		args := []string{"run", "--protocol", "mcp", "--role", "client", "--no-progress", "--transport", "http", "--scenario", "client-cc",
			"--param", "extension=client-credentials", "--env", "MCP_CLIENT_ID={client_id}", "--env", "MCP_CLIENT_SECRET={client_secret}",
			"--env", "MCP_CLIENT_KEY={client_key}", "--", bin(), "serve", "mcp", "--role", "client"}
		out, err := exec.Command(bin(), append(args, "--", "{url}")...).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(MatchRegexp(`pass +MCP-CLIENT-CC-4`))

		cmd := exec.Command(bin(), append(args, "--fault", "cc-jwt-aud", "--", "{url}")...)
		out, _ = cmd.CombinedOutput()
		Expect(cmd.ProcessState.ExitCode()).To(Equal(1), string(out))
		Expect(string(out)).To(ContainSubstring("FAIL MCP-CLIENT-CC-4"))
		Expect(string(out)).To(ContainSubstring("--env 'MCP_CLIENT_SECRET={client_secret}'"))
		Expect(string(out)).To(ContainSubstring("--param extension=client-credentials"))
	})

	It("takes {server} in an --env value as well", func() {
		code, _, errs := cli("", "run", "--protocol", "mcp", "--role", "client", "--env", "MCP_SERVER={server}", "--startup-timeout", "1s", "--", "/nonexistent/client")
		Expect(errs).NotTo(ContainSubstring("names no {server}"))
		Expect(code).To(Equal(3), errs)
	})

	It("ends at exit 3, saying why and with its stderr, when the client exits or never connects", func() {
		code, out, errs := cli("", "run", "--protocol", "mcp", "--role", "client", "--no-color", "--", "sh", "-c", "echo oops >&2; exit 4", "{server}")
		Expect(code).To(Equal(3), out+errs)
		Expect(out + errs).To(ContainSubstring("the client exited (exit 4) without connecting to {server}"))
		Expect(out + errs).To(ContainSubstring("oops"))
		code, out, errs = cli("", "run", "--protocol", "mcp", "--role", "client", "--no-color", "--startup-timeout", "300ms", "--", "sh", "-c", "sleep 30", "{server}")
		Expect(code).To(Equal(3), out+errs)
		Expect(out + errs).To(ContainSubstring("the client did not connect to {server} within 300ms (--startup-timeout)"))
	})

	It("serve --role client needs the server command after --", func() {
		code, _, errs := cli("", "serve", "mcp", "--role", "client")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("give the server command after --"))
		code, _, errs = cli("", "serve", "mcp", "extra")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("a server command follows -- only with --role client"))
	})
})

var _ = Describe("wirecheck fuzz --role client", func() {
	// The clean campaign and replay are internal/fuzz's (clientrole_test.go).
	It("fuzzes the reference MCP client as a hostile server, saves a reproducer whose replay line says --role client", func() {
		dir := GinkgoT().TempDir()
		client := []string{bin(), "serve", "mcp", "--role", "client", "--variant", "linger"}
		cmd := exec.Command(bin(), append([]string{"fuzz", "--protocol", "mcp", "--role", "client", "--no-progress", "--runs", "30", "--jobs", "1", "--timeout", "500ms",
			"--shrink-time", "2s", "--max-failures", "1", "--save", dir, "--"}, append(client, "--fault", "crash-on-unknown-id", "--", "{server}")...)...)
		out, _ := cmd.CombinedOutput()
		Expect(cmd.ProcessState.ExitCode()).To(Equal(1), string(out))
		Expect(string(out)).To(ContainSubstring("MCP-CLIENT-SURVIVE-1"))
		Expect(string(out)).To(MatchRegexp(`wirecheck replay \S+\.yaml --protocol mcp --role client .*--fault crash-on-unknown-id -- '\{server\}'`))
		// wirecheck, as the server, answered the client's initialize.
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(1))
		saved, err := os.ReadFile(files[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(string(saved)).To(MatchRegexp(`→ \{"id":1,"jsonrpc":"2.0","result":\{"capabilities"`))

		// --protocol mcp without --role: the file's role is the client's.
		cmd = exec.Command(bin(), append([]string{"replay", files[0], "--protocol", "mcp", "--timeout", "500ms", "--level", "should", "--"},
			append(client, "--fault", "crash-on-unknown-id", "--", "{server}")...)...)
		out, _ = cmd.CombinedOutput()
		Expect(cmd.ProcessState.ExitCode()).To(Equal(1), string(out))
		Expect(string(out)).To(ContainSubstring("MCP-CLIENT-SURVIVE-1"))
	})
})
