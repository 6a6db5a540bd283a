package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// validReport is the JSON report the run wrote at path, as a JSON value,
// once it validates against the report contract's schema.
func validReport(path string) any {
	GinkgoHelper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "schemas", "report.schema.json"))
	Expect(err).NotTo(HaveOccurred())
	f, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	Expect(err).NotTo(HaveOccurred())
	Expect(sch.Validate(doc)).To(Succeed())
	return doc
}

// readReport reads a JSON report the run wrote, after validating it
// against the report contract's schema.
func readReport(path string) *report.Report {
	GinkgoHelper()
	validReport(path)
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var rep report.Report
	Expect(json.Unmarshal(data, &rep)).To(Succeed())
	return &rep
}

// cells are a report's rule × revision verdicts, "RULE@REV" → label.
func cells(rep *report.Report) map[string]string {
	out := map[string]string{}
	for _, g := range rep.ByRule() {
		for i, c := range rep.Matrix(g) {
			out[g.Rule.ID+"@"+rep.Revisions[i].ID] = c.Label()
		}
	}
	return out
}

var allRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

var _ = Describe("run --revision all", func() {
	// runAll runs `run --protocol mcp --revision all` with flags against
	// mcp's reference server started with serve, expects exit code want,
	// and returns the JSON report and the console's output.
	runAll := func(want int, flags []string, serve ...string) (*report.Report, string) {
		GinkgoHelper()
		dir := GinkgoT().TempDir()
		args := append(append([]string{"run", "--protocol", "mcp", "--revision", "all"}, flags...), "--report", "json="+filepath.Join(dir, "r.json"))
		code, out, errs := cli("", append(append(args, "--", bin(), "serve", "mcp"), serve...)...)
		Expect(code).To(Equal(want), out+errs)
		return readReport(filepath.Join(dir, "r.json")), out
	}

	It("runs every revision side by side into one report with a rule × revision matrix", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli("", "run", "--protocol", "mcp", "--revision", "all",
			"--report", "json="+filepath.Join(dir, "r.json"), "--report", "markdown="+filepath.Join(dir, "r.md"),
			"--report", "html="+filepath.Join(dir, "r.html"),
			"--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(MatchRegexp(`VERDICT\s+RULE\s+LEVEL\s+2024-11-05\s+2025-03-26\s+2025-06-18\s+2025-11-25\s+2026-07-28\s+TITLE`))

		rep := readReport(filepath.Join(dir, "r.json"))
		Expect(rep.Revisions).To(HaveLen(len(allRevisions)))
		for i, rev := range rep.Revisions {
			Expect(rev).To(Equal(report.Revision{ID: allRevisions[i], Negotiated: allRevisions[i], Judged: true}))
		}
		for _, f := range rep.Findings {
			Expect(allRevisions).To(ContainElement(f.Revision), "finding %s %s names no revision of the run", f.Rule, f.Scenario)
		}
		m := cells(rep)
		By("a rule of every revision judged in each, a rule of some only where it belongs")
		for _, rev := range allRevisions {
			Expect(m["MCP-JSONRPC-2@"+rev]).To(Equal("pass"), rev)
		}
		Expect(m["MCP-LIFECYCLE-1@2024-11-05"]).To(Equal("pass"))
		Expect(m["MCP-LIFECYCLE-1@2026-07-28"]).To(Equal("·"))
		Expect(m["MCP-DISCOVER-1@2026-07-28"]).To(Equal("pass"))
		Expect(m["MCP-DISCOVER-1@2025-06-18"]).To(Equal("·"))

		md, err := os.ReadFile(filepath.Join(dir, "r.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("| verdict | rule | level | 2024-11-05 | 2025-03-26 | 2025-06-18 | 2025-11-25 | 2026-07-28 | title | citation |"))
		html, err := os.ReadFile(filepath.Join(dir, "r.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring(`<th class="rev">2026-07-28</th><th>Title</th>`))
		Expect(string(html)).NotTo(ContainSubstring("<th>Scenarios</th>"))
	})

	It("leaves the revisions a server does not speak without verdicts, and says which it speaks instead", func() {
		rep, out := runAll(0, []string{"--rules", "MCP-LIFECYCLE-*"}, "--variant", "one-revision")
		judged := map[string]bool{}
		for _, rev := range rep.Revisions {
			judged[rev.ID] = rev.Judged
			Expect(rev.Negotiated).To(Equal("2025-06-18"), rev.ID)
		}
		Expect(judged).To(Equal(map[string]bool{"2024-11-05": false, "2025-03-26": false, "2025-06-18": true, "2025-11-25": false, "2026-07-28": false}))
		for _, f := range rep.Findings {
			Expect(judged[f.Revision]).To(BeTrue(), "a finding of %s, which the server does not speak", f.Revision)
		}
		m := cells(rep)
		Expect(m["MCP-LIFECYCLE-1@2025-06-18"]).To(Equal("pass"))
		Expect(m["MCP-LIFECYCLE-1@2024-11-05"]).To(Equal("—"))
		Expect(out).To(ContainSubstring("asked for 2024-11-05, the server negotiated 2025-06-18"))
		// 2026-07-28: server/discover is answered -32601, and the
		// fallback to initialize negotiates 2025-06-18.
		Expect(out).To(ContainSubstring("asked for 2026-07-28, the server negotiated 2025-06-18"))
	})

	It("stops the lanes of a revision once three sessions asking it were answered with another of the run, and judges the one spoken in full", func() {
		// --jobs 1: one lane at a time, so every unspoken revision has
		// lanes left when its third session has been answered.
		rep, _ := runAll(0, []string{"--jobs", "1"}, "--variant", "one-revision")
		for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-11-25", "2026-07-28"} {
			Expect(rep.Notes).To(ContainElement(MatchRegexp(`^%s: \d+ scenario\(s\) not run: the server answered each of the first \d+ sessions asking %s with 2025-06-18, a revision of this run whose column judges it`, rev, rev)))
		}
		for _, n := range rep.Notes {
			Expect(n).NotTo(HavePrefix("2025-06-18: "), "the spoken revision runs every scenario")
		}
		Expect(rep.Summary.Error).To(BeZero())
		Expect(rep.Summary.Fail).To(BeZero())
	})

	It("fails the run on a fault, in every revision it shows in, each finding rerun in its own revision", func() {
		rep, out := runAll(1, []string{"--scenario", "version-negotiation"}, "--fault", "version-echo-any")
		failed := map[string]string{}
		for _, f := range rep.Findings {
			if f.Rule == "MCP-LIFECYCLE-4" && f.Verdict == verdict.Fail {
				failed[f.Revision] = f.Reproduce
			}
		}
		Expect(failed).To(HaveLen(4)) // 2026-07-28 has no initialize
		for rev, line := range failed {
			Expect(line).To(ContainSubstring("--revision " + rev + " "))
			Expect(line).NotTo(ContainSubstring("all"))
		}
		Expect(out).To(ContainSubstring("scenario: version-negotiation @ 2025-03-26"))
	})

	It("shards merge into the verdicts of the whole run, column by column", func() {
		dir := GinkgoT().TempDir()
		args := func(extra ...string) []string {
			return append(append([]string{"run", "--protocol", "mcp", "--revision", "all", "--rules", "MCP-JSONRPC-*"}, extra...),
				"--", bin(), "serve", "mcp", "--variant", "one-revision")
		}
		code, out, _ := cli("", args("--report", "json="+filepath.Join(dir, "whole.json"))...)
		Expect(code).To(Equal(0), out)
		for _, s := range []string{"1", "2"} {
			code, out, _ := cli("", args("--shard", s+"/2", "--report", "json="+filepath.Join(dir, "s"+s+".json"))...)
			Expect(code).To(Equal(0), out)
		}
		code, out, errs := cli("", "report", "merge", filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json"))
		Expect(code).To(Equal(0), errs)
		merged, err := report.ReadJSON(strings.NewReader(out))
		Expect(err).NotTo(HaveOccurred())
		whole := readReport(filepath.Join(dir, "whole.json"))
		Expect(cells(merged)).To(Equal(cells(whole)))
		Expect(merged.Revisions).To(Equal(whole.Revisions))
	})

	It("judges no Streamable HTTP rule in the column of 2024-11-05, a revision without that transport", func() {
		rep, _ := runAll(0, []string{"--transport", "http"}, "--http", "127.0.0.1:{port}")
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		http := map[string]bool{}
		for _, r := range b.Protocol.Rules {
			if r.AppliesOn("http") && len(r.Transports) > 0 {
				http[r.ID] = true
			}
		}
		Expect(http).To(HaveKey("MCP-HTTP-1"))
		for _, f := range rep.Findings {
			Expect(f.Revision == "2024-11-05" && http[f.Rule]).To(BeFalse(), "%s judged %s in 2024-11-05 (%s)", f.Rule, f.Verdict, f.Message)
		}
		m := cells(rep)
		Expect(m["MCP-HTTP-1@2024-11-05"]).To(Equal("·"))
		Expect(m["MCP-HTTP-1@2025-03-26"]).To(Equal("pass"))
		Expect(m["MCP-HTTP-BADBODY-1@2024-11-05"]).To(Equal("·"))
		Expect(m["MCP-JSONRPC-2@2024-11-05"]).To(Equal("pass"))
		// Rules of another transport are skipped alike in every column.
		Expect(m["MCP-SSE-1@2024-11-05"]).To(Equal("skip"))
	})

	It("blames nothing on an HTTP server that lists other revisions in server/discover and refuses 2026-07-28 with -32022", func() {
		rep, out := runAll(0, []string{"--transport", "http"}, "--variant", "older-revisions", "--http", "127.0.0.1:{port}")
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s @ %s in %s: %s", f.Rule, f.Revision, f.Scenario, f.Message)
		}
		last := rep.Revisions[len(rep.Revisions)-1]
		Expect(last).To(Equal(report.Revision{ID: "2026-07-28", Negotiated: "2025-11-25", Judged: false}))
		Expect(out).To(ContainSubstring("asked for 2026-07-28, the server negotiated 2025-11-25"))
	})

	It("cites, for each rule, the page of a revision the run judges it in, never a later one's", func() {
		dir := GinkgoT().TempDir()
		rules := []string{"--rules", "MCP-JSONRPC-2", "--rules", "MCP-COMPLETION-1", "--rules", "MCP-DISCOVER-1"}
		code, out, errs := cli("", append(append([]string{"run", "--protocol", "mcp", "--revision", "all"}, rules...),
			"--report", "json="+filepath.Join(dir, "all.json"), "--", bin(), "serve", "mcp")...)
		Expect(code).To(Equal(0), out+errs)
		code, out, errs = cli("", append(append([]string{"run", "--protocol", "mcp", "--revision", "2024-11-05"}, rules...),
			"--report", "json="+filepath.Join(dir, "old.json"), "--", bin(), "serve", "mcp")...)
		Expect(code).To(Equal(0), out+errs)
		source := func(rep *report.Report) map[string]string {
			m := map[string]string{}
			for _, r := range rep.Rules {
				m[r.ID] = r.Source
			}
			return m
		}
		// Quoted from 2025-06-18's pages; a row spans the columns, so it
		// cites the first revision it holds in.
		Expect(source(readReport(filepath.Join(dir, "all.json")))).To(Equal(map[string]string{
			"MCP-JSONRPC-2":    "MCP 2024-11-05 § basic/messages#responses",
			"MCP-COMPLETION-1": "MCP 2025-03-26 § server/utilities/completion#capabilities",
			"MCP-DISCOVER-1":   "MCP 2026-07-28 § server/discover",
		}))
		Expect(source(readReport(filepath.Join(dir, "old.json")))).To(HaveKeyWithValue("MCP-JSONRPC-2", "MCP 2024-11-05 § basic/messages#responses"))
	})

	It("is refused where one revision judges (replay, fuzz, validate), naming the flag", func() {
		for _, args := range [][]string{
			{"fuzz", "--protocol", "mcp", "--revision", "all", "--runs", "1", "--", "true"},
			{"validate", "--protocol", "mcp", "--revision", "all", "-"},
		} {
			code, _, errs := cli("", args...)
			Expect(code).To(Equal(2), strings.Join(args, " "))
			Expect(errs).To(ContainSubstring("--revision all"))
		}
		f := filepath.Join(GinkgoT().TempDir(), "s.yaml")
		Expect(os.WriteFile(f, []byte("protocol: mcp\nname: x\nrules: [MCP-JSONRPC-1]\nsteps:\n  - send: {jsonrpc: \"2.0\", id: 1, method: ping}\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "replay", f, "--revision", "all", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--revision all"))
	})
})
