package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// What a new user and a vendor see in the first hour (issue 27).
var _ = Describe("the first hour", func() {
	// A baselined failure: the run exits 0, so no report may read red.
	It("shows a failure the baseline knows as known in the console, JUnit, HTML and Markdown", func() {
		dir := GinkgoT().TempDir()
		base := filepath.Join(dir, "known.txt")
		Expect(os.WriteFile(base, []byte("SONDE-ID-1  # the wrong-id fault\n"), 0o644)).To(Succeed())
		xmlPath, htmlPath, mdPath := filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html"), filepath.Join(dir, "r.md")
		jsonPath := filepath.Join(dir, "r.json")
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--scenario", "tools-list", "--timeout", "1s", "--no-color",
			"--baseline", base, "--report", "json="+jsonPath, "--report", "junit="+xmlPath, "--report", "html="+htmlPath, "--report", "markdown="+mdPath,
			"--", bin(), "serve", "sonde-serve", "--fault", "wrong-id")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(MatchRegexp(`(?m)^known +SONDE-ID-1 +MUST `))
		Expect(out).NotTo(MatchRegexp(`(?m)^FAIL +SONDE-ID-1`))
		Expect(out).To(ContainSubstring("──── known FAIL SONDE-ID-1 MUST"))
		Expect(out).To(ContainSubstring("PASS at level MUST (1 rule failed as the baseline " + base + " knows, which does not fail the run)"))

		x, _ := os.ReadFile(xmlPath)
		Expect(string(x)).To(ContainSubstring(`failures="0"`))
		Expect(string(x)).NotTo(ContainSubstring("<failure"))
		Expect(string(x)).To(MatchRegexp(`<testcase classname="SONDE-ID-1" name="tools-list" time="0">\s*<skipped><!\[CDATA\[known failure \(baseline ` + regexp.QuoteMeta(base) + `\): `))

		h, _ := os.ReadFile(htmlPath)
		Expect(string(h)).To(ContainSubstring(`<span class="badge overall PASS">PASS</span>`))
		Expect(string(h)).To(MatchRegexp(`<span class="badge known">known</span></td><td><a class="rule-id" href="#rule-\d+">SONDE-ID-1</a>`))
		Expect(string(h)).NotTo(ContainSubstring(`<span class="badge fail">FAIL</span>`))

		md, _ := os.ReadFile(mdPath)
		Expect(string(md)).To(ContainSubstring("| known | SONDE-ID-1 | MUST |"))
		Expect(string(md)).NotTo(ContainSubstring("**FAIL**"))

		By("a JSON report naming the baseline that still validates against the report schema")
		doc := validReport(jsonPath)
		Expect(doc).To(HaveKeyWithValue("baseline", base))
	})

	Describe("a typo", func() {
		It("in --rules exits 2 naming the closest rules, as --scenario does", func() {
			code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--rules", "SONDE-NOPE-*", "--", bin(), "serve", "sonde-serve")
			Expect(code).To(Equal(2), out+errs)
			Expect(errs).To(ContainSubstring(`--rules "SONDE-NOPE-*" matches no rule of sonde-serve; did you mean `))
			Expect(errs).To(ContainSubstring("wirecheck rules --protocol sonde-serve lists them"))
			Expect(out).To(BeEmpty(), "nothing ran")

			code, _, errs = cli("", "run", "--protocol", "sonde-serve", "--rules", "sonde-id-*", "--", bin(), "serve", "sonde-serve")
			Expect(code).To(Equal(2))
			Expect(errs).To(ContainSubstring("did you mean SONDE-ID-*"), "a glob is offered the family it misspells")

			code, _, errs = cli("", "run", "--protocol", "sonde-serve", "--rules", "SONDE-ID-*", "--rules", "SONDE-STARTUP-9", "--", bin(), "serve", "sonde-serve")
			Expect(code).To(Equal(2), "one glob of several that selects nothing is a typo too")
			Expect(errs).To(MatchRegexp(`--rules "SONDE-STARTUP-9" matches no rule of sonde-serve; did you mean SONDE-STARTUP-\d`))
			Expect(errs).NotTo(ContainSubstring(`"SONDE-ID-*"`))
		})

		It("in fuzz --rules exits 2 too", func() {
			code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "1", "--rules", "SONDE-IDD-1", "--save", GinkgoT().TempDir(),
				"--", bin(), "serve", "sonde-serve")
			Expect(code).To(Equal(2), out+errs)
			Expect(errs).To(ContainSubstring(`--rules "SONDE-IDD-1" matches no rule of sonde-serve; did you mean SONDE-ID-1`))
		})

		DescribeTable("in a baseline exits 2 naming the file, the line and the closest rules",
			func(strict bool) {
				base := filepath.Join(GinkgoT().TempDir(), "known.txt")
				Expect(os.WriteFile(base, []byte("# known\nSONDE-ID-1\nSONDE-IDD-1 tools-list\n"), 0o644)).To(Succeed())
				args := []string{"run", "--protocol", "sonde-serve", "--baseline", base}
				if strict {
					args = append(args, "--baseline-strict")
				}
				code, out, errs := cli("", append(args, "--", bin(), "serve", "sonde-serve")...)
				Expect(code).To(Equal(2), out+errs)
				Expect(errs).To(ContainSubstring("--baseline: " + base + ":3: SONDE-IDD-1 is no rule of sonde-serve; did you mean SONDE-ID-1"))
				Expect(errs).NotTo(ContainSubstring(":2:"), "the entry that names a rule is not at fault")
			},
			Entry("strict", true),
			Entry("not strict", false),
		)
	})

	Describe("skipped rules in the console", func() {
		It("are counted in one line, the MUST ones' reasons a line each, and listed with -v", func() {
			code, out, errs := cli("", "run", "--protocol", "mcp", "--no-color", "--", bin(), "serve", "mcp")
			Expect(code).To(Equal(0), out+errs)
			Expect(out).NotTo(MatchRegexp(`(?m)^skip +MCP-`), "no row per skipped rule")
			Expect(out).To(MatchRegexp(`(?m)^skipped: \d+ rules \(\d+ MUST, \d+ SHOULD(, \d+ MAY)?\) not judged by this run; -v lists each with its reason\. The MUST ones:$`))
			Expect(out).To(MatchRegexp(`(?m)^ +\d+  HTTP only; this run is over stdio$`))
			Expect(out).To(MatchRegexp(`(?m)^pass +MCP-LIFECYCLE-1 `))
			short := strings.Count(out, "\n")

			code, out, errs = cli("", "run", "--protocol", "mcp", "--no-color", "-v", "--", bin(), "serve", "mcp")
			Expect(code).To(Equal(0), out+errs)
			Expect(out).To(MatchRegexp(`(?m)^skip +MCP-HTTP-\S+ +MUST `))
			Expect(out).To(MatchRegexp(`(?m)^ +skip +\S+ +.*HTTP only; this run is over stdio$`))
			Expect(out).NotTo(ContainSubstring("skipped: "))
			Expect(strings.Count(out, "\n")).To(BeNumerically(">", 2*short), "-v lists what the short form counts")
		})
	})

	Describe("small traps", func() {
		It("a relative command not found under --cwd says where it was looked for", func() {
			cwd := GinkgoT().TempDir()
			code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--cwd", cwd, "--", "./bin/my-server", "--stdio")
			Expect(code).To(Equal(3), out+errs)
			Expect(out).To(ContainSubstring("no such file or directory: looked for " + filepath.Join(cwd, "bin", "my-server") +
				", since a relative command is taken inside --cwd " + cwd))
		})

		It("a server silent on stdout until the startup timeout gets the stdout-buffering hint", func() {
			code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--startup-timeout", "1s", "--", "sh", "-c", "sleep 30")
			Expect(code).To(Equal(3), out+errs)
			Expect(out).To(ContainSubstring("  hint:     nothing reached stdout: if the server prints its ready line, it may still sit in its stdout buffer"))
			Expect(out).To(ContainSubstring("PYTHONUNBUFFERED=1"))
			Expect(out).To(ContainSubstring("stdbuf -oL"))
			Expect(out).To(ContainSubstring("flush"))
		})

		It("a server that exits or writes something else gets no buffering hint", func() {
			code, out, _ := cli("", "run", "--protocol", "sonde-serve", "--startup-timeout", "1s", "--", "sh", "-c", "echo oops >&2; exit 1")
			Expect(code).To(Equal(3))
			Expect(out).NotTo(ContainSubstring("hint:"))
			code, out, _ = cli("", "run", "--protocol", "sonde-serve", "--startup-timeout", "1s", "--", "sh", "-c", "echo not-json; sleep 30")
			Expect(code).To(Equal(3))
			Expect(out).NotTo(ContainSubstring("hint:"))
		})
	})
})
