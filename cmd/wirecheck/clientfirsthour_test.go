package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// What a new user checking an MCP client sees in the first hour, as
// firsthour_test.go is for a server. Runs that connect exec the built
// binary: the client reaches wirecheck through {server}, which execs it.
var _ = Describe("the first hour of a client", func() {
	refClient := func(extra ...string) []string {
		return append(append([]string{bin(), "serve", "mcp", "--role", "client"}, extra...), "--", "{server}")
	}
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin(), append([]string{"run", "--protocol", "mcp", "--role", "client", "--no-color", "--no-progress"}, args...)...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	validJSON := func(path string) map[string]any {
		GinkgoHelper()
		return validReport(path).(map[string]any)
	}

	It("lists and prints the client's rules with rules --role client, typos exit 2 with the closest", func() {
		code, out, errs := cli("", "rules", "--protocol", "mcp", "--role", "client")
		Expect(code).To(Equal(0), errs)
		Expect(out).To(MatchRegexp(`(?m)^MCP-CLIENT-LIFECYCLE-1 +MUST `))
		Expect(out).NotTo(MatchRegexp(`(?m)^MCP-LIFECYCLE-1 `), "the server's rules are not the client's")

		code, out, errs = cli("", "rules", "--protocol", "mcp", "--role", "client", "MCP-CLIENT-LIFECYCLE-1")
		Expect(code).To(Equal(0), errs)
		Expect(out).To(ContainSubstring("Quote:"))
		Expect(out).To(ContainSubstring("list-first (sends tools/list before initialize)"))
		Expect(out).To(ContainSubstring("(wirecheck serve mcp --role client --fault NAME -- SERVER-CMD serves one)"))

		code, _, errs = cli("", "rules", "--protocol", "mcp", "--role", "client", "MCP-CLIENT-LIFECYLE-1")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("did you mean MCP-CLIENT-LIFECYCLE-1"))

		By("the whole catalogue has the client's rules, and finds one by its ID alone")
		code, out, _ = cli("", "rules")
		Expect(code).To(Equal(0))
		Expect(out).To(MatchRegexp(`(?m)^MCP-CLIENT-PING-1 +MUST `))
		code, out, _ = cli("", "rules", "MCP-CLIENT-PING-1")
		Expect(code).To(Equal(0))
		Expect(out).To(HavePrefix("MCP-CLIENT-PING-1  MUST  (mcp-client)"))

		code, _, errs = cli("", "rules", "--role", "client")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--protocol mcp --role client"))

		code, _, errs = cli("", "run", "--protocol", "mcp", "--role", "client", "--rules", "MCP-CLIENT-LIFECYLE-*", "--", "c", "{server}")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("did you mean MCP-CLIENT-LIFECYCLE-*"))
	})

	It("certifies the client by its own name in every report format, with the role, and a JSON report the schema accepts", func() {
		dir := GinkgoT().TempDir()
		p := func(n string) string { return filepath.Join(dir, n) }
		code, out := run(append([]string{"--rules", "MCP-CLIENT-LIFECYCLE-*", "--report", "json=" + p("r.json"), "--report", "junit=" + p("r.xml"),
			"--report", "html=" + p("r.html"), "--report", "markdown=" + p("r.md"), "--"}, refClient()...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(MatchRegexp(`^wirecheck \S+ · mcp-client · client wirecheck-reference-client 0\.1\.0 · target `))

		doc := validJSON(p("r.json"))
		Expect(doc).To(HaveKeyWithValue("protocol", "mcp-client"))
		Expect(doc).To(HaveKeyWithValue("role", "client"))
		Expect(doc).To(HaveKeyWithValue("client", map[string]any{"name": "wirecheck-reference-client", "version": "0.1.0"}))
		Expect(doc).NotTo(HaveKey("server"), "wirecheck's own server is no claim of the report's")

		h, _ := os.ReadFile(p("r.html"))
		Expect(string(h)).To(ContainSubstring(`<dt>Client</dt><dd class="client">wirecheck-reference-client 0.1.0</dd>`))
		Expect(string(h)).To(ContainSubstring(`<dt>Role</dt><dd class="role">client (wirecheck played the server it talks to)</dd>`))
		x, _ := os.ReadFile(p("r.xml"))
		Expect(string(x)).To(ContainSubstring(`<property name="role" value="client">`))
		Expect(string(x)).To(ContainSubstring(`<property name="client" value="wirecheck-reference-client 0.1.0">`))
		md, _ := os.ReadFile(p("r.md"))
		Expect(string(md)).To(ContainSubstring("- Client: wirecheck-reference-client 0.1.0 (role client"))
	})

	It("runs every revision in a column of its own, and shards merge back to one report of the client", func() {
		dir := GinkgoT().TempDir()
		code, out := run(append([]string{"--revision", "all", "--rules", "MCP-CLIENT-LIFECYCLE-1", "--report", "json=" + filepath.Join(dir, "all.json"), "--"}, refClient()...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(MatchRegexp(`(?m)^VERDICT +RULE +LEVEL +2024-11-05 +2025-03-26 +2025-06-18 +2025-11-25 +2026-07-28 +TITLE`))
		Expect(validJSON(filepath.Join(dir, "all.json"))["revisions"]).To(HaveLen(5))

		var parts []string
		for _, s := range []string{"1/2", "2/2"} {
			part := filepath.Join(dir, strings.ReplaceAll(s, "/", "of")+".json")
			code, out = run(append([]string{"--shard", s, "--report", "json=" + part, "--"}, refClient()...)...)
			Expect(code).To(Equal(0), out)
			parts = append(parts, part)
		}
		code, merged, errs := cli("", append([]string{"report", "merge"}, parts...)...)
		Expect(code).To(Equal(0), errs)
		var rep map[string]any
		Expect(json.Unmarshal([]byte(merged), &rep)).To(Succeed())
		Expect(rep).To(HaveKeyWithValue("role", "client"))
		Expect(rep).To(HaveKeyWithValue("client", HaveKeyWithValue("name", "wirecheck-reference-client")))
	})

	It("keeps a known failure of a faulty client known with --baseline", func() {
		dir := GinkgoT().TempDir()
		code, out := run(append([]string{"--rules", "MCP-CLIENT-LIFECYCLE-*", "--report", "json=" + filepath.Join(dir, "f.json"), "--"}, refClient("--fault", "list-first")...)...)
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`(?m)^FAIL +MCP-CLIENT-LIFECYCLE-1 `))
		code, out = run(append([]string{"--rules", "MCP-CLIENT-LIFECYCLE-*", "--baseline", filepath.Join(dir, "f.json"), "--"}, refClient("--fault", "list-first")...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(MatchRegexp(`(?m)^known +MCP-CLIENT-LIFECYCLE-1 `))
	})

	Describe("a client that does not reach wirecheck", func() {
		It("that exits at once ends at exit 3 naming the client, with its stderr and where {server} goes", func() {
			dir := GinkgoT().TempDir()
			code, out, errs := cli("", "run", "--protocol", "mcp", "--role", "client", "--no-color", "--report", "json="+filepath.Join(dir, "r.json"),
				"--", "sh", "-c", "echo 'no server configured' >&2; exit 1", "{server}")
			Expect(code).To(Equal(3), out+errs)
			all := out + errs
			Expect(all).To(ContainSubstring("The client never connected: the suite did not run (exit 3)."))
			Expect(all).To(ContainSubstring("cause:    the client exited (exit 1) without connecting to {server}"))
			Expect(all).To(ContainSubstring("no server configured"))
			Expect(all).To(ContainSubstring("hint:     {server} becomes the command of a server"))
			Expect(all).NotTo(ContainSubstring("OPTIONS *"), "no port was awaited")
			doc := validJSON(filepath.Join(dir, "r.json"))
			Expect(doc).To(HaveKeyWithValue("role", "client"))
			Expect(doc).To(HaveKeyWithValue("not_started", HaveKeyWithValue("state", "not-ready")))

			code, out, errs = cli("", "run", "--protocol", "mcp", "--role", "client", "--no-color", "--", "./no-such-client", "{server}")
			Expect(code).To(Equal(3))
			Expect(out + errs).To(ContainSubstring(`The client could not be started`))
			Expect(out + errs).To(ContainSubstring(`cannot start the client "./no-such-client"`))
		})

		It("that never connects and never exits is ended at --startup-timeout, and nothing of it is left", func() {
			code, out, errs := cli("", "run", "--protocol", "mcp", "--role", "client", "--no-color", "--startup-timeout", "500ms",
				"--", "sh", "-c", "exec sleep 1000.25", "{server}")
			Expect(code).To(Equal(3), out+errs)
			Expect(out + errs).To(ContainSubstring("the client did not connect to {server} within 500ms (--startup-timeout)"))
			Eventually(processes).WithArguments("1000.25").Should(BeEmpty())
		})

		It("that lingers after its session (never exits) is judged and ended, with nothing left", func() {
			code, out := run("--scenario", "client-session", "--timeout", "1s", "--", "sh", "-c", `"$1" serve mcp --role client -- "$0"; exec sleep 1000.75`, "{server}", bin())
			Expect(code).To(Equal(0), out)
			Expect(out).To(MatchRegexp(`(?m)^pass +MCP-CLIENT-LIFECYCLE-1 `))
			Eventually(processes).WithArguments("1000.75").Should(BeEmpty())
		})

		It("that connects and sends nothing is an error, not a pass, and is ended with nothing left", func() {
			code, out := run("--scenario", "client-session", "--timeout", "500ms", "--", "sh", "-c", `sleep 1000.5 | "$0"`, "{server}")
			Expect(code).To(Equal(1), out)
			Expect(out).To(MatchRegexp(`(?m)^ERROR +MCP-CLIENT-JSONRPC-1 `))
			Expect(out).To(ContainSubstring("the client stayed connected and sent nothing for 500ms (--timeout): nothing of it could be judged"))
			Eventually(processes).WithArguments("1000.5").Should(BeEmpty())
		})
	})
})

// processes lists the pids whose command line has arg, for a test that
// proves nothing it launched outlives the run.
func processes(arg string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), "\x00"+arg) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
