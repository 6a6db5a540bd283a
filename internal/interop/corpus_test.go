package interop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// CorpusEnv switches the corpus on: `make interop` sets it, `make test`
// leaves it unset and so stays within its time budget (.ci/run runs both).
const CorpusEnv = "WIRECHECK_INTEROP_CORPUS"

// ReportsEnv names a folder to keep each run's JSON report in (as
// <record>.json), for the maintainer who triages a new finding.
const ReportsEnv = "WIRECHECK_INTEROP_REPORTS"

// corpusRun is one server over one of its transports, launched as a user
// launches it with `wirecheck run --protocol mcp --revision all`.
type corpusRun struct {
	// record names testdata/<record>.json; server and version are what it
	// says it records (the version the pin installed).
	record, server, version string
	// flags go before `--`: the transport, --env, --header, --url.
	flags []string
	// argv is the server's command line.
	argv []string
}

var installOnce sync.Once

// installed runs test/interop/install.sh once per test process: a no-op
// where .ci/run has installed the pinned servers, an install on first use
// elsewhere.
func installed() {
	installOnce.Do(func() {
		cmd := exec.Command("bash", filepath.Join(interop.Dir(), "install.sh"))
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "test/interop/install.sh:\n%s", out)
	})
}

// npmEntry is a file of an npm package installed in test/interop, with
// node to run it; the test is skipped where there is no node.
func npmEntry(pkg, file string) (node, entry, version string) {
	node, err := exec.LookPath("node")
	if err != nil {
		Skip("node is not installed: the npm server " + pkg + " cannot run (.ci/run installs it)")
	}
	installed()
	version, err = interop.NPMVersion(pkg)
	Expect(err).NotTo(HaveOccurred())
	entry = filepath.Join(interop.Dir(), "node_modules", filepath.FromSlash(pkg), filepath.FromSlash(file))
	Expect(entry).To(BeAnExistingFile(), "test/interop/install.sh did not install %s", pkg)
	return node, entry, version
}

// goServer is the binary of a Go server pinned in go-servers.txt.
func goServer(pkg string) (bin, version string) {
	g, err := interop.GoServerOf(pkg)
	Expect(err).NotTo(HaveOccurred())
	if _, err := exec.LookPath("go"); err != nil {
		Skip("go is not on PATH: cannot install " + pkg)
	}
	installed()
	Expect(g.Bin()).To(BeAnExistingFile(), "test/interop/install.sh did not install %s", pkg)
	return g.Bin(), g.Version
}

// runCorpus runs `wirecheck run --protocol mcp --revision all` (the binary
// built from this tree) against the server and compares its failed and
// errored findings, each with the revision it was judged by, with the
// record. The run's exit status is 1 for a server that deviates; anything
// else but 0 is a run that did not complete.
func runCorpus(r corpusRun) {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	out := filepath.Join(GinkgoT().TempDir(), "report.json")
	// A generous --startup-timeout: CI runs the corpus beside make test on
	// two cores, where a Node server that starts a child (mcp-proxy) may
	// take more than the default 10 s to listen. It bounds a wait, and
	// judges nothing.
	args := append([]string{"run", "--protocol", "mcp", "--revision", "all", "--level", "should",
		"--startup-timeout", "60s", "--no-progress", "--report", "json=" + out}, r.flags...)
	args = append(append(args, "--"), r.argv...)
	cmd := exec.Command(bin, args...)
	var console bytes.Buffer
	cmd.Stdout, cmd.Stderr = &console, &console
	err = cmd.Run()
	b, rerr := os.ReadFile(out)
	if dir := os.Getenv(ReportsEnv); dir != "" && rerr == nil {
		Expect(os.WriteFile(filepath.Join(dir, r.record+".json"), b, 0o644)).To(Succeed())
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	Expect(err).NotTo(HaveOccurred(), "wirecheck %s\n%s", strings.Join(args, " "), tail(console.String(), 4000))
	Expect(rerr).NotTo(HaveOccurred())
	var rep report.Report
	Expect(json.Unmarshal(b, &rep)).To(Succeed())
	if os.Getenv("UPDATE_INTEROP") != "" {
		exp, _ := interop.Load(r.record)
		if exp == nil {
			exp = &interop.Expected{}
		}
		exp.Server, exp.Version = r.server, r.version
		b, _ := json.MarshalIndent(exp, "", "  ")
		Expect(os.WriteFile(filepath.Join(interop.Root(), "internal", "interop", "testdata", r.record+".json"), append(b, '\n'), 0o644)).To(Succeed())
	}
	exp, err := interop.Load(r.record)
	Expect(err).NotTo(HaveOccurred())
	Expect(exp.Version).To(Equal(r.version), "testdata/%s.json records another version than the one pinned: rerun with UPDATE_INTEROP=1 and examine every change", r.record)
	compare(r.record, &rep)
}

// tail is the end of a console output, where its notes and summary are.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// largeGraph writes a knowledge graph for server-memory to a fresh file:
// n entities of two observations each and a chain of relations. At 4000
// (about 2.6 MB of JSON lines) the memory://knowledge-graph resource is a
// line of about 3 MB (pretty-printed, then escaped as a JSON string) and
// read_graph's result one of about 5.4 MB (the graph as text and again as
// structuredContent): an answer over 4 MiB, as a real server's 4.4 MB
// resources/read that wirecheck once cut short (issue 25 item 6), below
// the 64 MiB --max-frame allows. At 1500 (about 1 MB) the resource is a
// line of about 1.1 MB, read_graph's result one of about 2 MB.
func largeGraph(n int) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := range n {
		obs := []string{}
		for j := range 2 {
			obs = append(obs, fmt.Sprintf("observation %d of entity %d: %s", j, i, strings.Repeat("y", 200)))
		}
		Expect(enc.Encode(map[string]any{"type": "entity", "name": fmt.Sprintf("entity-%05d", i),
			"entityType": "wirecheck-fixture", "observations": obs})).To(Succeed())
	}
	for i := range n - 1 {
		Expect(enc.Encode(map[string]any{"type": "relation", "from": fmt.Sprintf("entity-%05d", i),
			"to": fmt.Sprintf("entity-%05d", i+1), "relationType": "precedes"})).To(Succeed())
	}
	path := filepath.Join(GinkgoT().TempDir(), "memory.jsonl")
	Expect(os.WriteFile(path, []byte(b.String()), 0o644)).To(Succeed())
	return path
}

// sandbox is a fresh folder for server-filesystem to serve: the suite calls
// every tool with generated arguments, write_file and create_directory
// among them, so each run gets its own.
func sandbox() string {
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, "README.txt"), []byte("a folder wirecheck's interop corpus serves\n"), 0o644)).To(Succeed())
	return dir
}

var _ = Describe("the interop corpus: real MCP servers, every revision, every transport", Label("corpus"), func() {
	BeforeEach(func() {
		if os.Getenv(CorpusEnv) == "" {
			Skip(CorpusEnv + " is not set: `make interop` runs the corpus (outside make test's time budget)")
		}
	})

	It("@modelcontextprotocol/server-filesystem over stdio has exactly the recorded findings", func() {
		node, entry, v := npmEntry("@modelcontextprotocol/server-filesystem", "dist/index.js")
		runCorpus(corpusRun{record: "server-filesystem", server: "@modelcontextprotocol/server-filesystem", version: v, argv: []string{node, entry, sandbox()}})
	})

	It("@modelcontextprotocol/server-memory over stdio, with a graph of about 2.6 MB (an answer over 4 MiB), has exactly the recorded findings", func() {
		node, entry, v := npmEntry("@modelcontextprotocol/server-memory", "dist/index.js")
		runCorpus(corpusRun{record: "server-memory", server: "@modelcontextprotocol/server-memory", version: v, flags: []string{"--env", "MEMORY_FILE_PATH=" + largeGraph(4000)},
			argv: []string{node, entry}})
	})

	It("@modelcontextprotocol/server-sequential-thinking over stdio has exactly the recorded findings", func() {
		node, entry, v := npmEntry("@modelcontextprotocol/server-sequential-thinking", "dist/index.js")
		runCorpus(corpusRun{record: "server-sequential-thinking", server: "@modelcontextprotocol/server-sequential-thinking", version: v, argv: []string{node, entry}})
	})

	// mcp-proxy serves a stdio server over Streamable HTTP (/mcp) and the
	// legacy HTTP+SSE transport (/sse) at once, with the TypeScript SDK's
	// version 2; it passes its child only a few variables of its own
	// environment, so the memory file is named through env(1). It gets
	// the 1 MB graph: relayed by the proxy, read_graph's 5.4 MB answer of
	// the larger one takes a second and more per lane, and on a loaded
	// machine a 3 MB resources/read missed the 5 s --timeout (one corpus
	// run of two); server-memory over stdio holds the answer over 4 MiB.
	for _, tr := range []string{"http", "sse"} {
		It("mcp-proxy in front of server-memory over "+tr+" has exactly the recorded findings", func() {
			node, proxy, v := npmEntry("mcp-proxy", "dist/bin/mcp-proxy.mjs")
			_, memory, mv := npmEntry("@modelcontextprotocol/server-memory", "dist/index.js")
			runCorpus(corpusRun{record: "mcp-proxy-" + tr, server: "mcp-proxy (" + tr + ") in front of @modelcontextprotocol/server-memory " + mv, version: v, flags: []string{"--transport", tr},
				argv: []string{node, proxy, "--host", "127.0.0.1", "--port", "{port}", "--",
					"env", "MEMORY_FILE_PATH=" + largeGraph(1500), node, memory}})
		})
	}

	// fastmcp ships one runnable server, its custom-routes example: Streamable
	// HTTP on FASTMCP_PORT, every request authenticated by a Bearer key it
	// names (user-token).
	It("fastmcp's examples/custom-routes over Streamable HTTP has exactly the recorded findings", func() {
		node, entry, v := npmEntry("fastmcp", "dist/examples/custom-routes.js")
		runCorpus(corpusRun{record: "fastmcp-custom-routes", server: "fastmcp dist/examples/custom-routes.js", version: v, flags: []string{"--transport", "http",
			"--env", "FASTMCP_PORT={port}", "--header", "Authorization: Bearer user-token"}, argv: []string{node, entry}})
	})

	It("mcp-go's examples/everything over stdio has exactly the recorded findings", func() {
		bin, v := goServer("github.com/mark3labs/mcp-go/examples/everything")
		runCorpus(corpusRun{record: "mcp-go-everything", server: "github.com/mark3labs/mcp-go/examples/everything", version: v, argv: []string{bin}})
	})

	// Its HTTP mode listens on :8080, a port it does not let anyone choose:
	// wirecheck launches it and reaches it there (--url with a command).
	It("mcp-go's examples/everything over Streamable HTTP has exactly the recorded findings", func() {
		bin, v := goServer("github.com/mark3labs/mcp-go/examples/everything")
		runCorpus(corpusRun{record: "mcp-go-everything-http", server: "github.com/mark3labs/mcp-go/examples/everything -t http", version: v, flags: []string{"--transport", "http",
			"--url", "http://127.0.0.1:8080/mcp"}, argv: []string{bin, "-t", "http"}})
	})

	It("mcp-go's examples/conformance over Streamable HTTP has exactly the recorded findings", func() {
		bin, v := goServer("github.com/mark3labs/mcp-go/examples/conformance")
		runCorpus(corpusRun{record: "mcp-go-conformance", server: "github.com/mark3labs/mcp-go/examples/conformance", version: v, flags: []string{"--transport", "http",
			"--env", "CONFORMANCE_ADDR=127.0.0.1:{port}"}, argv: []string{bin}})
	})
})
