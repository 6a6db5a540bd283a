package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("wirecheck fuzz and replay", func() {
	It("finds a planted fault, saves a reproducer, and replay reports the same rule", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "60", "--seed", "42",
			"--timeout", "500ms", "--shrink-time", "5s", "--save", dir, "--report", "json="+filepath.Join(dir, "fuzz.json"),
			"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(ContainSubstring("SONDE-GEN-SURVIVE"))
		Expect(out).To(ContainSubstring("wirecheck replay " + dir))
		files, _ := filepath.Glob(filepath.Join(dir, "sonde-gen-survive-*.yaml"))
		Expect(files).NotTo(BeEmpty())
		Expect(filepath.Join(dir, "fuzz.json")).To(BeAnExistingFile())

		code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`FAIL\s+SONDE-GEN-SURVIVE`))
		code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out)
	})

	// Issue 26: sequences run on --jobs lanes side by side, and a seed
	// still saves the same reproducer of the same first failure.
	It("saves the same reproducer for a seed with --jobs 1 and --jobs 2", func() {
		saved := func(jobs string) []string {
			dir := GinkgoT().TempDir()
			code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "50", "--seed", "42", "--jobs", jobs,
				"--max-failures", "1", "--timeout", "500ms", "--shrink-time", "1m", "--save", dir,
				"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
			Expect(code).To(Equal(1), out+errs)
			files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
			var names []string
			for _, f := range files {
				names = append(names, filepath.Base(f))
			}
			return names
		}
		one := saved("1")
		Expect(one).To(HaveLen(1))
		Expect(saved("2")).To(Equal(one))

		code, _, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--jobs", "0", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--jobs 0: want 1 or more"))
	})

	It("caps --runs with --duration and says in the summary that the cap, not --runs, ended it", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "1000000", "--duration", "2s",
			"--save", GinkgoT().TempDir(), "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(MatchRegexp(`stopped at the --duration cap \(2s\) before --runs 1000000: \d+ of 1000000 sequences generated`))

		By("--duration alone is the only budget: no runs to be capped")
		code, out, errs = cli("", "fuzz", "--protocol", "sonde-serve", "--duration", "1s",
			"--save", GinkgoT().TempDir(), "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).NotTo(ContainSubstring("--duration cap"))

		code, _, errs = cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "0", "--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--runs must be positive"))
	})

	It("says in each reproducer's header and in the summary how far it was shrunk", func() {
		dir := GinkgoT().TempDir()
		// A shrink time no rerun fits in: the failure is saved as found.
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "20", "--seed", "42",
			"--timeout", "500ms", "--shrink-time", "1ns", "--save", dir,
			"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		Expect(code).To(Equal(1), out+errs)
		Expect(out).To(ContainSubstring("reproducer not shrunk (shrinking stopped: budget spent)"))
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		Expect(files).NotTo(BeEmpty())
		all := ""
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(MatchRegexp(`(?m)^# Reproducer (shrunk to \d+ steps|not shrunk) \(`))
			Expect(string(data)).NotTo(ContainSubstring("minimal run"))
			all += string(data)
		}
		Expect(all).To(MatchRegexp(`# Reproducer not shrunk \(shrinking stopped: budget spent\): the \d+ steps as found\.`))
	})

	// Rules judged by MCP's frame judge, which run alone judged once.
	DescribeTable("fails the MCP rules a fault breaks in the notifications a tool call brings",
		func(fault, rule string, flags ...string) {
			// The command; --max-failures 1 ends it at the first
			// failure found (the rest of the 300 runs would only cost time).
			args := append([]string{"fuzz", "--protocol", "mcp", "--runs", "300", "--max-failures", "1", "--shrink-time", "1ns", "--save", GinkgoT().TempDir()}, flags...)
			code, out, errs := cli("", append(args, "--", bin(), "serve", "mcp", "--fault", fault)...)
			Expect(code).To(Equal(1), out+errs)
			Expect(out).To(ContainSubstring(rule))
		},
		Entry(nil, "progress-wrong-token", "MCP-PROGRESS-1"),
		Entry(nil, "log-undeclared", "MCP-LOGGING-1"),
		Entry(nil, "list-changed-undeclared", "MCP-LISTCHANGED-1"),
		// 2026-07-28's _meta joins the tool call's progress token.
		Entry(nil, "progress-wrong-token", "MCP-PROGRESS-1", "--revision", "2026-07-28"),
	)

	It("exits 0 with no finding against the MCP reference server", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "mcp", "--runs", "120", "--save", GinkgoT().TempDir(),
			"--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("0 distinct failures"))
	})

	It("exits 0 with no finding against a healthy server", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "30", "--save", GinkgoT().TempDir(),
			"--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("0 distinct failures"))
	})

	It("rejects a broken reproducer file with its line", func() {
		f := filepath.Join(GinkgoT().TempDir(), "r.yaml")
		Expect(os.WriteFile(f, []byte("protocol: sonde-serve\nname: x\nrules: [SONDE-ID-1]\nsteps:\n  - sned: {}\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "replay", f, "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(f + ":5: field sned not found"))
	})

	It("ends cleanly on Ctrl-C, still writing the report and the reproducers", func() {
		dir := GinkgoT().TempDir()
		cmd := exec.Command(bin(), "fuzz", "--protocol", "sonde-serve", "--duration", "60s", "--timeout", "300ms",
			"--shrink-time", "2s", "--save", dir, "--report", "json="+filepath.Join(dir, "fuzz.json"),
			"--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		Expect(cmd.Start()).To(Succeed())
		time.Sleep(6 * time.Second)
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		Eventually(done, 10*time.Second).Should(Receive())
		Expect(out.String()).To(ContainSubstring("interrupted"))
		Expect(cmd.ProcessState.ExitCode()).To(Equal(130), out.String())
		data, err := os.ReadFile(filepath.Join(dir, "fuzz.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(And(ContainSubstring(`"interrupted": true`), ContainSubstring(`"signal": "SIGINT"`)))
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		Expect(files).NotTo(BeEmpty(), out.String())
	})
})

var _ = Describe("wirecheck fuzz and replay in an MCP revision", func() {
	// fuzzMCP fuzzes the MCP reference server with a small fixed budget.
	fuzzMCP := func(dir string, revision []string, faults ...string) (int, string) {
		args := append([]string{"fuzz", "--protocol", "mcp", "--runs", "25", "--seed", "3", "--timeout", "1s",
			"--shrink-time", "1s", "--save", dir}, revision...)
		args = append(args, "--", bin(), "serve", "mcp")
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		code, out, errs := cli("", args...)
		return code, out + errs
	}

	DescribeTable("finds nothing on the clean reference server",
		func(revision string, flags ...string) {
			code, out := fuzzMCP(GinkgoT().TempDir(), flags)
			Expect(code).To(Equal(0), out)
			Expect(out).To(ContainSubstring("0 distinct failures"))
			Expect(out).To(ContainSubstring("revision " + revision))
		},
		Entry("2024-11-05, by --mcp-version", "2024-11-05", "--mcp-version", "2024-11-05"),
		Entry("2025-03-26, by --revision", "2025-03-26", "--revision", "2025-03-26"),
		Entry("2026-07-28, by --param", "2026-07-28", "--param", "mcp-version=2026-07-28"),
	)

	DescribeTable("finds a fault in the revision, saves a reproducer naming it, and replay judges by it unasked",
		func(revision, fault, rule string, setup []string) {
			dir := GinkgoT().TempDir()
			code, out := fuzzMCP(dir, []string{"--mcp-version", revision}, fault)
			Expect(code).To(Equal(1), out)
			// The fault may break the rule after more than one kind of
			// input, each a reproducer of its own.
			files, _ := filepath.Glob(filepath.Join(dir, strings.ToLower(rule)+"-*.yaml"))
			Expect(files).NotTo(BeEmpty(), out)
			// The replay command printed carries the campaign's settings
			// (the file carries the revision too).
			Expect(out).To(ContainSubstring("replay: wirecheck replay " + files[0] + " --protocol mcp --timeout 1s --revision " + revision + " -- " + bin() + " serve mcp --fault " + fault + "\n"))
			data, err := os.ReadFile(files[0])
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("# Revision " + revision))
			Expect(string(data)).To(ContainSubstring("params:\n    mcp-version: \"" + revision + "\"\n"))
			for _, s := range setup {
				Expect(string(data)).To(ContainSubstring(s))
			}

			code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "mcp", "--fault", fault)
			Expect(code).To(Equal(1), out)
			Expect(out).To(MatchRegexp(`FAIL\s+` + rule + `\s`))
			code, out, _ = cli("", "replay", files[0], "--", bin(), "serve", "mcp")
			Expect(code).To(Equal(0), out)
		},
		Entry("2024-11-05: a server that exits on a line that is not JSON", "2024-11-05", "crash-on-garbage", "MCP-STDIO-3",
			[]string{"method: initialize", `protocolVersion: "2024-11-05"`}),
		// MCP-MRTR-4 judges a message only 2026-07-28 has (a ping among the
		// inputRequests of the ask-client tool, on the last page of
		// tools/list): found only when requests carry _meta and frames are
		// judged by that revision.
		Entry("2026-07-28: a server asking for a ping in inputRequests", "2026-07-28", "mrtr-bad-request", "MCP-MRTR-4",
			[]string{"method: server/discover", `io.modelcontextprotocol/protocolVersion: "2026-07-28"`, "$path: /result/nextCursor"}),
	)

	It("replays by the revision a flag names over the file's, refuses an unknown one and files that disagree", func() {
		dir := GinkgoT().TempDir()
		file := func(name, revision string) string {
			f := filepath.Join(dir, name)
			Expect(os.WriteFile(f, []byte("protocol: mcp\nparams: {mcp-version: \""+revision+"\"}\nrules: [MCP-STDIO-3]\nfresh: true\n"+
				"steps:\n  - send: {jsonrpc: \"2.0\", id: f1, method: ping}\n    as: r1\n  - expect: r1\n  - expect_alive: true\n    rule: MCP-STDIO-3\n"), 0o644)).To(Succeed())
			return f
		}
		old, bogus, modern := file("old.yaml", "2024-11-05"), file("bogus.yaml", "2099-01-01"), file("modern.yaml", "2026-07-28")

		code, _, errs := cli("", "replay", bogus, "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(bogus + `: protocol mcp has no version "2099-01-01" (known: 2024-11-05`))
		code, _, errs = cli("", "replay", old, "--mcp-version", "2099-01-01", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`no version "2099-01-01"`))
		code, _, errs = cli("", "replay", old, modern, "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("replay them apart"))

		// A flag overrides what the files say, however they disagree.
		code, out, _ := cli("", "replay", old, bogus, "--mcp-version", "2025-06-18", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0), out)
		code, out, _ = cli("", "replay", old, bogus, "--revision", "2025-06-18", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0), out)
		code, _, errs = cli("", "replay", old, "--revision", "2099-01-01", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(`no version "2099-01-01"`))
	})
})
