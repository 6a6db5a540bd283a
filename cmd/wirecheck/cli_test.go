package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

var _ = Describe("wirecheck run", func() {
	It("exits 0 against the reference server and writes every report format", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli("", "run", "--protocol", "sonde-serve",
			"--report", "json="+filepath.Join(dir, "r.json"),
			"--report", "junit="+filepath.Join(dir, "r.xml"),
			"--report", "html="+filepath.Join(dir, "r.html"),
			"--report", "markdown="+filepath.Join(dir, "r.md"),
			"--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("SONDE-STARTUP-1"))
		Expect(out).To(ContainSubstring("PASS"))

		By("a JSON report that validates against the report contract's schema")
		rep := readReport(filepath.Join(dir, "r.json"))
		Expect(rep.Protocol).To(Equal("sonde-serve"))
		Expect(rep.Summary.Fail).To(BeZero())
		Expect(rep.Summary.Pass).To(BeNumerically(">", 20))

		By("a JUnit file that parses")
		x, _ := os.ReadFile(filepath.Join(dir, "r.xml"))
		var v any
		Expect(xml.Unmarshal(x, &v)).To(Succeed())
		Expect(string(x)).To(ContainSubstring(`failures="0"`))
	})

	It("exits 1 on a violation and prints the evidence and the command that reproduces it", func() {
		code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--timeout", "500ms",
			"--", bin(), "serve", "sonde-serve", "--fault", "runtime-null-id")
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("SONDE-RUNTIME-1"))
		Expect(out).To(ContainSubstring("Expected"))
		Expect(out).To(ContainSubstring("Actual"))
		Expect(out).To(ContainSubstring("wirecheck run --protocol sonde-serve --scenario tools-call-every"))
	})

	It("runs mcp under the revision --mcp-version names", func() {
		code, out, _ := cli("", "run", "--protocol", "mcp", "--mcp-version", "2024-11-05", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0), out)
	})

	// A server that refuses batches breaks MCP-JSONRPC-10 only in 2025-03-26,
	// the one revision that has them: the rule fails only if the revision
	// named reaches the run.
	DescribeTable("runs mcp under the revision --revision, or its alias --mcp-version, names, and reproduces with --revision",
		func(flag string) {
			code, out, _ := cli("", "run", "--protocol", "mcp", flag, "2025-03-26", "--scenario", "batch",
				"--", bin(), "serve", "mcp", "--fault", "batch-refused")
			Expect(code).To(Equal(1), out)
			Expect(out).To(MatchRegexp(`FAIL\s+MCP-JSONRPC-10\s`))
			Expect(out).To(ContainSubstring("--scenario batch --revision 2025-03-26 -- "))
		},
		Entry("--revision", "--revision"),
		Entry("--mcp-version", "--mcp-version"),
	)

	It("judges by --level: a SHOULD failure fails the run only at --level should", func() {
		args := []string{"run", "--protocol", "sonde-serve", "--", bin(), "serve", "sonde-serve", "--fault", "id-as-string"}
		code, _, _ := cli("", args...)
		Expect(code).To(Equal(0))
		code, _, _ = cli("", append([]string{"run", "--level", "should"}, args[1:]...)...)
		Expect(code).To(Equal(1))
	})

	It("lets a baseline of known failures pass the run, and says when an entry no longer fails", func() {
		dir := GinkgoT().TempDir()
		base := filepath.Join(dir, "baseline.txt")
		Expect(os.WriteFile(base, []byte("# known\nSONDE-RUNTIME-1\nSONDE-ID-1 tools-call-every\nSONDE-EMPTY-1\n"), 0o644)).To(Succeed())
		code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--baseline", base,
			"--", bin(), "serve", "sonde-serve", "--fault", "runtime-null-id")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("SONDE-EMPTY-1 no longer fails"))
	})

	It("with --baseline-strict fails the run on an entry that no longer fails; baseline write makes a baseline that passes the same run", func() {
		dir := GinkgoT().TempDir()
		base := filepath.Join(dir, "baseline.txt")
		Expect(os.WriteFile(base, []byte("SONDE-RUNTIME-1\nSONDE-ID-1 tools-call-every\nSONDE-EMPTY-1\n"), 0o644)).To(Succeed())
		server := []string{"--", bin(), "serve", "sonde-serve", "--fault", "runtime-null-id"}
		code, out, errs := cli("", append([]string{"run", "--protocol", "sonde-serve", "--baseline", base, "--baseline-strict"}, server...)...)
		Expect(code).To(Equal(1), out)
		Expect(errs).To(ContainSubstring("--baseline-strict: 1 baseline entries no longer fail"))

		rep := filepath.Join(dir, "run.json")
		code, _, _ = cli("", append([]string{"run", "--protocol", "sonde-serve", "--report", "json=" + rep}, server...)...)
		Expect(code).To(Equal(1))
		code, written, _ := cli("", "baseline", "write", rep)
		Expect(code).To(Equal(0))
		Expect(written).To(MatchRegexp(`(?m)^SONDE-RUNTIME-1 \S+  # .+$`))
		Expect(os.WriteFile(base, []byte(written), 0o644)).To(Succeed())
		code, out, _ = cli("", append([]string{"run", "--protocol", "sonde-serve", "--baseline", base, "--baseline-strict"}, server...)...)
		Expect(code).To(Equal(0), out)

		code, _, errs = cli("", "run", "--protocol", "sonde-serve", "--baseline-strict", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--baseline-strict needs --baseline FILE"))
	})

	It("reads the official suite's expected-failures file as a baseline: a check, a whole scenario, and an entry that maps to no rule", func() {
		dir := GinkgoT().TempDir()
		base := filepath.Join(dir, "expected-failures.yml")
		Expect(os.WriteFile(base, []byte("# the official suite's baseline\nserver:\n  - ping\n  - logging-set-level:logging-set-level\n  - server-stateless:sep-2575-request-meta-client-info-optional\nclient:\n  - initialize\n"), 0o644)).To(Succeed())
		args := []string{"run", "--protocol", "mcp", "--rules", "MCP-PING-1", "--rules", "MCP-LOGGING-2", "--level", "should"}
		server := []string{"--", bin(), "serve", "mcp", "--fault", "ping-not-empty", "--fault", "set-level-lenient"}
		code, out, _ := cli("", append(args, server...)...)
		Expect(code).To(Equal(1), out)

		code, out, _ = cli("", append(append(args, "--baseline", base), server...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(MatchRegexp(`known\s+MCP-PING-1`))
		Expect(out).To(MatchRegexp(`known\s+MCP-LOGGING-2`))
		Expect(out).To(ContainSubstring(base + ":5: server-stateless:sep-2575-request-meta-client-info-optional maps to no wirecheck rule: asked by no sentence"))

		code, _, errs := cli("", append(append(args, "--baseline", base, "--baseline-strict"), server...)...)
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--baseline-strict: " + base + ":5: server-stateless:sep-2575-request-meta-client-info-optional maps to no wirecheck rule"))

		code, _, errs = cli("", "run", "--protocol", "sonde-serve", "--baseline", base, "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("applies to --protocol mcp only"))
	})

	It("runs a shard of the suite, and report merge of all the shards gates as the whole run", func() {
		dir := GinkgoT().TempDir()
		server := []string{"--", bin(), "serve", "sonde-serve", "--fault", "runtime-null-id"}
		var files []string
		for _, sh := range []string{"1/2", "2/2"} {
			f := filepath.Join(dir, strings.ReplaceAll(sh, "/", "of")+".json")
			files = append(files, f)
			cli("", append([]string{"run", "--protocol", "sonde-serve", "--shard", sh, "--report", "json=" + f}, server...)...)
		}
		code, out, _ := cli("", append([]string{"report", "merge", "--format", "console"}, files...)...)
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("27 rules: 25 pass, 2 fail, 0 skip, 0 error"))
		code, _, errs := cli("", "run", "--protocol", "sonde-serve", "--shard", "3/2", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`"3/2": want i/n with 1 ≤ i ≤ n`))
	})

	It("draws no progress line when its output is no terminal, and takes --no-progress", func() {
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--no-progress", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		Expect(out + errs).NotTo(ContainSubstring("\r"))
		Expect(out + errs).NotTo(ContainSubstring("slowest:"))
		code, _, errs = cli("", "run", "--protocol", "sonde-serve", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		Expect(errs).NotTo(ContainSubstring("slowest:"))
	})

	It("says what it is: version and --version", func() {
		code, out, _ := cli("", "version")
		Expect(code).To(Equal(0))
		Expect(out).To(MatchRegexp(`^wirecheck \S+ \(.*go1\.\d+`))
		code, out2, _ := cli("", "--version")
		Expect(code).To(Equal(0))
		Expect(out2).To(ContainSubstring(strings.TrimPrefix(strings.TrimSpace(out), "wirecheck ")))
	})

	It("selects rules and scenarios by glob", func() {
		code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--rules", "SONDE-ID-*", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("SONDE-ID-3"))
		Expect(out).NotTo(ContainSubstring("SONDE-EMPTY-1"))
		code, out, _ = cli("", "run", "--protocol", "sonde-serve", "--scenario", "empty-*", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("SONDE-EMPTY-1"))
		Expect(out).NotTo(ContainSubstring("SONDE-MISSING-NAME-1"))
	})

	It("serves a manifest from --cwd and calls its tools", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "sondage.manifest.json"), []byte(
			`{"tools":[{"name":"quota","description":"always over quota","inputSchema":{"type":"object"},"error":"quota exceeded"},
			  {"name":"ping","description":"pong","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]},"output":{"pong":true}}]}`), 0o644)).To(Succeed())
		dir2 := GinkgoT().TempDir()
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--cwd", dir, "--report", "json="+filepath.Join(dir2, "r.json"), "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		data, _ := os.ReadFile(filepath.Join(dir2, "r.json"))
		var rep report.Report
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		var calls int
		for _, f := range rep.Findings {
			if f.Rule == "SONDE-CALL-2" {
				calls += f.Count
			}
		}
		Expect(calls).To(Equal(5), "3 built-in tools and 2 from the manifest")
	})

	DescribeTable("rejects bad input with exit 2 and a message naming the problem",
		func(want string, args ...string) {
			code, _, errs := cli("", args...)
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring(want))
			Expect(errs).NotTo(ContainSubstring("goroutine"))
		},
		Entry("no protocol", "--protocol is required", "run", "--", "true"),
		Entry("unknown protocol", `unknown protocol "nope"`, "run", "--protocol", "nope", "--", "true"),
		Entry("no command", "no server command", "run", "--protocol", "sonde-serve"),
		Entry("bad level", `--level "sometimes"`, "run", "--protocol", "sonde-serve", "--level", "sometimes", "--", "true"),
		Entry("bad report format", `--report "pdf=x.pdf"`, "run", "--protocol", "sonde-serve", "--report", "pdf=x.pdf", "--", "true"),
		Entry("report without path", `--report "json"`, "run", "--protocol", "sonde-serve", "--report", "json", "--", "true"),
		Entry("bad env", `--env "NOEQUALS"`, "run", "--protocol", "sonde-serve", "--env", "NOEQUALS", "--", "true"),
		Entry("bad cwd", "not a directory", "run", "--protocol", "sonde-serve", "--cwd", "/nonexistent/dir", "--", "true"),
		Entry("bad timeout", "invalid argument", "run", "--protocol", "sonde-serve", "--timeout", "soon", "--", "true"),
		Entry("no jobs", "--jobs 0: want 1 or more", "run", "--protocol", "sonde-serve", "--jobs", "0", "--", "true"),
		Entry("unknown flag", "unknown flag: --frobnicate", "run", "--frobnicate"),
		Entry("url on a stdio protocol", "stdio only", "run", "--protocol", "sonde-serve", "--url", "http://127.0.0.1:1/"),
		Entry("http on a stdio protocol", `--transport "http": protocol sonde-serve supports stdio`, "run", "--protocol", "sonde-serve", "--transport", "http", "--", "true"),
		Entry("an unknown transport", `--transport "ws": protocol mcp supports stdio, http, sse`, "run", "--protocol", "mcp", "--transport", "ws", "--", "true"),
		Entry("a URL that is no http", `--url "ftp://h/mcp": want an http:// or https:// URL`, "run", "--protocol", "mcp", "--url", "ftp://h/mcp"),
		Entry("a URL and a command without --transport", "--url with a server command: say how the server is reached, --transport http or --transport sse",
			"run", "--protocol", "mcp", "--url", "http://127.0.0.1:1/mcp", "--", "srv"),
		Entry("{port} in the URL of a running server", `--url "http://127.0.0.1:{port}/mcp": {port} stands for the port`,
			"fuzz", "--protocol", "mcp", "--url", "http://127.0.0.1:{port}/mcp"),
		Entry("a launched HTTP server with no {port}", "--transport http: wirecheck picks the server's port; put {port} in the server's arguments, an --env value or --url",
			"run", "--protocol", "mcp", "--transport", "http", "--", "srv", "--port", "8080"),
		Entry("a fixed port to fuzz", "--url http://127.0.0.1:8080/mcp: fuzz starts several servers at once; put {port} in --url",
			"fuzz", "--protocol", "mcp", "--transport", "http", "--url", "http://127.0.0.1:8080/mcp", "--", "srv"),
		Entry("a header over stdio", "--header applies to HTTP transports only; this run uses stdio", "run", "--protocol", "mcp", "--header", "X-A: b", "--", "true"),
		Entry("a header with no colon", `--header "Authorization Bearer x": want 'Name: value' with a token name`,
			"replay", filepath.Join("..", "..", "fixtures", "sonde-serve", "eof.yaml"), "--protocol", "mcp", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization Bearer x"),
		Entry("a header naming an unset variable", "--header Authorization: ${WC_SURELY_UNSET_VAR} is not set in the environment",
			"run", "--protocol", "mcp", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: Bearer ${WC_SURELY_UNSET_VAR}"),
		Entry("unknown scenario", "matches no scenario", "run", "--protocol", "sonde-serve", "--scenario", "nope", "--", "true"),
		Entry("missing baseline", "--baseline", "run", "--protocol", "sonde-serve", "--baseline", "/nonexistent", "--", "true"),
		Entry("unknown fault", `unknown fault "nope"`, "serve", "sonde-serve", "--fault", "nope"),
		Entry("unknown MCP revision", `protocol mcp has no version "2099-01-01" (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`,
			"run", "--protocol", "mcp", "--mcp-version", "2099-01-01", "--", "true"),
		Entry("unknown MCP revision to fuzz", `protocol mcp has no version "2099-01-01" (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`,
			"fuzz", "--protocol", "mcp", "--mcp-version", "2099-01-01", "--", "true"),
		Entry("unknown MCP revision to fuzz, by --param", `protocol mcp has no version "2099-01-01" (known: 2024-11-05`,
			"fuzz", "--protocol", "mcp", "--param", "mcp-version=2099-01-01", "--", "true"),
		Entry("a fuzz --param that is no revision", "--param seed: fuzz takes only --param mcp-version=V",
			"fuzz", "--protocol", "mcp", "--param", "seed=3", "--", "true"),
		Entry("a revision for a protocol without revisions", "protocol sonde-serve has no revisions to choose from",
			"fuzz", "--protocol", "sonde-serve", "--mcp-version", "2025-06-18", "--", "true"),
		Entry("--revision to run a protocol without revisions", "--revision 2025-06-18: protocol sonde-serve has no revisions to choose from",
			"run", "--protocol", "sonde-serve", "--revision", "2025-06-18", "--", "true"),
		Entry("--mcp-version to run a protocol without revisions", "--revision 2025-06-18: protocol sonde-serve has no revisions to choose from",
			"run", "--protocol", "sonde-serve", "--mcp-version", "2025-06-18", "--", "true"),
		Entry("--revision to fuzz a protocol without revisions", "--revision 1: protocol sonde-serve has no revisions to choose from",
			"fuzz", "--protocol", "sonde-serve", "--revision", "1", "--", "true"),
		Entry("--revision to replay a protocol without revisions", "--revision 1: protocol sonde-serve has no revisions to choose from",
			"replay", filepath.Join("..", "..", "fixtures", "sonde-serve", "eof.yaml"), "--protocol", "sonde-serve", "--revision", "1", "--", "true"),
		Entry("--revision to validate a protocol without revisions", "--revision 1: protocol sonde-serve has no revisions to choose from",
			"validate", "--protocol", "sonde-serve", "--revision", "1", "/dev/null"),
		Entry("an unknown revision by --revision", `protocol mcp has no version "2099-01-01" (known: 2024-11-05`,
			"run", "--protocol", "mcp", "--revision", "2099-01-01", "--", "true"),
		Entry("unknown message kind to validate as", `--kind "nope": sonde-serve defines ["ready"`,
			"validate", "--protocol", "sonde-serve", "--kind", "nope", "/dev/null"),
		Entry("unknown subcommand", "unknown command", "frobnicate"),
	)

	It("rejects a malformed baseline naming the file and line", func() {
		base := filepath.Join(GinkgoT().TempDir(), "b.txt")
		Expect(os.WriteFile(base, []byte("SONDE-ID-1\nthis is not a rule\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "run", "--protocol", "sonde-serve", "--baseline", base, "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(base + ":2:"))
	})

	It("exits 3 with the reason when the command does not exist", func() {
		code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--", "/nonexistent/server", "--json")
		Expect(code).To(Equal(3))
		Expect(out).To(ContainSubstring(`cannot start server "/nonexistent/server"`))
		Expect(out).To(ContainSubstring("not run"))
	})

	It("exits 3 with what a launched HTTP server wrote when its port never answers", func() {
		code, out, _ := cli("", "run", "--protocol", "mcp", "--transport", "http", "--startup-timeout", "20s",
			"--", "sh", "-c", "echo cannot listen on $0 >&2; exit 7", "{port}")
		Expect(code).To(Equal(3))
		Expect(out).To(MatchRegexp(`the server exited \(exit 7\) before 127\.0\.0\.1:\d+ accepted a connection`))
		Expect(out).To(MatchRegexp(`cannot listen on \d+`))
		Expect(out).To(ContainSubstring("awaited:  an answer on its port (OPTIONS *, or a TLS handshake)"))
		Expect(out).To(ContainSubstring("20s (--startup-timeout sets it)"))
		Expect(out).To(ContainSubstring("sh -c"))
	})

	It("exits 3 when the server never becomes ready, without waiting out every scenario", func() {
		code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--startup-timeout", "300ms",
			"--", bin(), "serve", "sonde-serve", "--fault", "no-ready")
		Expect(code).To(Equal(3))
		Expect(out).To(ContainSubstring("no ready line within 300ms"))
	})
})

var _ = Describe("the other commands", func() {
	It("protocols lists sonde-serve with its rule count", func() {
		code, out, _ := cli("", "protocols")
		Expect(code).To(Equal(0))
		Expect(out).To(MatchRegexp(`sonde-serve\s+stdio\s+\d+`))
	})

	It("rules prints the catalogue as text and as JSON", func() {
		code, out, _ := cli("", "rules", "--protocol", "sonde-serve")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("SONDE-STARTUP-1"))
		code, out, _ = cli("", "rules", "--protocol", "sonde-serve", "--format", "json")
		Expect(code).To(Equal(0))
		var rows []map[string]any
		Expect(json.Unmarshal([]byte(out), &rows)).To(Succeed())
		Expect(rows[0]).To(HaveKeyWithValue("id", "SONDE-STARTUP-1"))
		Expect(rows[0]["source"]).To(ContainSubstring("000_239269c7ecb57487.txt § Startup contract"))
		Expect(rows[0]).To(HaveKeyWithValue("document", "the sonde-serve protocol document (Sonde Docs: Integrate with Sonde Serve)"))
	})

	It("rules RULE prints one rule whole, and names the IDs near an unknown one", func() {
		code, out, errs := cli("", "rules", "--protocol", "sonde-serve", "SONDE-ID-1")
		Expect(code).To(Equal(0), errs)
		for _, want := range []string{
			"SONDE-ID-1  MUST  (sonde-serve)",
			"a response carries the id of the request it answers",
			"Quote:       “Request:",
			"Document:    the sonde-serve protocol document (Sonde Docs: Integrate with Sonde Serve), § tools/list, tools/call, Edge cases",
			"cited as 000_239269c7ecb57487.txt, shared/seeds/000_239269c7ecb57487.txt, sha256 ecc26309d29c743633a40433fe1c1881c14b7069bb9205edc1bfe6ac25624ae2",
			"Transports:  stdio",
			"Checked by:  built-in check rpc.id-echo",
			"scenario tools-list (fixtures/sonde-serve/tools-list.yaml)",
			"Faults:      wrong-id (echoes a different id",
		} {
			Expect(out).To(ContainSubstring(want))
		}
		code, out, _ = cli("", "rules", "--protocol", "mcp", "MCP-LIFECYCLE-1")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("Revisions:   2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25\n"))
		Expect(out).To(ContainSubstring("Checked by:  scenario initialize (internal/suite/mcp)"))

		code, out, errs = cli("", "rules", "--protocol", "sonde-serve", "SONDE-ID-9")
		Expect(code).To(Equal(2))
		Expect(out).To(BeEmpty())
		Expect(errs).To(ContainSubstring(`rule "SONDE-ID-9": protocol sonde-serve defines no such rule; did you mean SONDE-ID-1, SONDE-ID-2, SONDE-ID-3?`))
	})

	It("serve --fault list prints every fault with the rules it trips", func() {
		code, out, _ := cli("", "serve", "sonde-serve", "--fault", "list")
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring("wrong-id"))
		Expect(out).To(ContainSubstring("SONDE-ID-1"))
	})

	It("serve speaks the protocol on stdin and stdout", func() {
		code, out, _ := cli("{\"id\":1,\"method\":\"tools/list\"}\n", "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		Expect(lines).To(HaveLen(2))
		Expect(lines[0]).To(ContainSubstring(`"status":"ready"`))
		Expect(lines[1]).To(ContainSubstring(`"tools"`))
	})

	It("validate checks frames line by line and exits 1 on an invalid one", func() {
		in := `{"ok":true,"apiVersion":"1.0.0","protocolVersion":"1.0.0","command":"serve","status":"ready"}
{"id":"1","ok":true,"protocolVersion":"1.0.0","result":{"tools":[{"name":"deploy","description":"Deploy project","inputSchema":{"type":"object"}}]}}
{"id":"2","ok":false,"protocolVersion":"1.0.0","error":{"message":"Unknown tool 'x'"}}
{"id":"3","ok":false,"error":{}}
`
		code, out, _ := cli(in, "validate", "--protocol", "sonde-serve", "-")
		Expect(code).To(Equal(1))
		Expect(out).To(ContainSubstring("stdin:1: ok (ready)"))
		Expect(out).To(ContainSubstring("stdin:2: ok (tools/list result)"))
		Expect(out).To(ContainSubstring("stdin:3: ok (response)"))
		Expect(out).To(ContainSubstring("stdin:4: SONDE-RESPONSE-1"))
		Expect(out).To(ContainSubstring("stdin:4: SONDE-VERSION-1"))
		Expect(out).To(ContainSubstring("4 lines: 3 valid, 1 invalid"))
	})

	It("validate --revision (or --mcp-version) judges by the revision named, and refuses an unknown one", func() {
		// notifications/elicitation/complete exists from 2025-11-25 on.
		note := `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"x"}}` + "\n"
		code, out, _ := cli(note, "validate", "--protocol", "mcp", "--mcp-version", "2025-11-25", "-")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("stdin:1: ok (elicitation/complete notification)"))
		code, out, _ = cli(note, "validate", "--protocol", "mcp", "--revision", "2025-11-25", "-")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("stdin:1: ok (elicitation/complete notification)"))
		code, out, _ = cli(note, "validate", "--protocol", "mcp", "--mcp-version", "2025-06-18", "-")
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("stdin:1: MCP-SCHEMA-1"))
		Expect(out).To(ContainSubstring("schemas/mcp/2025-06-18/schema.json"))
		code, out, _ = cli(note, "validate", "--protocol", "mcp", "-")
		Expect(code).To(Equal(1), "the default revision, 2025-06-18: "+out)

		// A tools/list result without the cache fields 2026-07-28 requires,
		// picked by the generic --param.
		list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}` + "\n"
		code, out, _ = cli(list, "validate", "--protocol", "mcp", "--param", "mcp-version=2025-06-18", "--kind", "tools/list result", "-")
		Expect(code).To(Equal(0), out)
		code, out, _ = cli(list, "validate", "--protocol", "mcp", "--param", "mcp-version=2026-07-28", "--kind", "tools/list result", "-")
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("MCP-TOOLS-2"))
		Expect(out).To(ContainSubstring("ttlMs"))

		code, _, errs := cli(list, "validate", "--protocol", "mcp", "--mcp-version", "1999-01-01", "-")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`protocol mcp has no version "1999-01-01" (known: 2024-11-05`))
		code, _, errs = cli(list, "validate", "--protocol", "mcp", "--param", "colour=red", "-")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("validate takes only --param mcp-version=V"))
		code, _, errs = cli(list, "validate", "--protocol", "sonde-serve", "--mcp-version", "2025-06-18", "-")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("protocol sonde-serve has no revisions"))
	})

	It("report render turns a JSON report into another format, and merge joins two", func() {
		dir := GinkgoT().TempDir()
		j := filepath.Join(dir, "r.json")
		code, _, _ := cli("", "run", "--protocol", "sonde-serve", "--rules", "SONDE-ID-*", "--report", "json="+j, "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0))
		data, _ := os.ReadFile(j)
		code, out, _ := cli(string(data), "report", "render", "--format", "junit", "-")
		Expect(code).To(Equal(0))
		Expect(out).To(HavePrefix("<?xml"))
		code, out, _ = cli("", "report", "merge", j, j)
		Expect(code).To(Equal(0))
		var rep report.Report
		Expect(json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&rep)).To(Succeed())
		Expect(rep.Protocol).To(Equal("sonde-serve"))
		code, _, errs := cli("not json", "report", "render", "-")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("stdin"))
	})
})
