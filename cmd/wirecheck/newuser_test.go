package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// What a new user tripped over (issue 10): each case is one of them.
var _ = Describe("what a new user trips over", func() {
	It("replay of a file with a YAML syntax error names the file and line first", func() {
		f := filepath.Join(GinkgoT().TempDir(), "broken.yaml")
		Expect(os.WriteFile(f, []byte("protocol: sonde-serve\nname: x\nrules: [SONDE-ID-1\nsteps:\n  - send: {}\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "replay", f, "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(MatchRegexp(`^wirecheck: ` + regexp.QuoteMeta(f) + `:\d+: did not find expected`))
		Expect(errs).NotTo(ContainSubstring("names no protocol"))
	})

	It("replay of a file whose protocol is not a string says where", func() {
		f := filepath.Join(GinkgoT().TempDir(), "typed.yaml")
		Expect(os.WriteFile(f, []byte("name: x\nprotocol: [sonde-serve]\n"), 0o644)).To(Succeed())
		code, _, errs := cli("", "replay", f, "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring(f + ":2:"))
	})

	It("the CLI's comments point only at documents the repository holds", func() {
		srcs, err := filepath.Glob("*.go")
		Expect(err).NotTo(HaveOccurred())
		doc := regexp.MustCompile(`[\w./-]+\.md\b`)
		for _, src := range srcs {
			if strings.HasSuffix(src, "_test.go") {
				continue // tests name files they write
			}
			data, err := os.ReadFile(src)
			Expect(err).NotTo(HaveOccurred())
			for _, name := range doc.FindAllString(string(data), -1) {
				found := false
				for _, at := range []string{name, filepath.Join("docs", name)} {
					if _, err := os.Stat(filepath.Join("..", "..", at)); err == nil {
						found = true
					}
				}
				Expect(found).To(BeTrue(), "%s refers to %s, which the repository does not hold", src, name)
			}
		}
	})
})

var _ = Describe("fuzz --duration", func() {
	It("bounds the whole command, shrinking included, and says how the time went", func() {
		dir := GinkgoT().TempDir()
		start := time.Now()
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--duration", "3s", "--shrink-time", "1m",
			"--seed", "42", "--timeout", "500ms", "--save", dir, "--", bin(), "serve", "sonde-serve", "--fault", "exit-non-object")
		// Generous: a 3 s budget with a 1 min shrink time once ran 60 s and more.
		Expect(time.Since(start)).To(BeNumerically("<", 30*time.Second), out+errs)
		Expect(code).To(Or(Equal(0), Equal(1)), out+errs)
		Expect(out).To(MatchRegexp(`(?m)^  time: generation \S+, shrinking \S+`))
		Expect(errs).NotTo(ContainSubstring("could not be started"))
	})
})

var _ = Describe("several failures of one rule in one scenario", func() {
	It("are each shown with their count: console, Markdown, HTML, and every one in JSON", func() {
		dir := GinkgoT().TempDir()
		file := filepath.Join(dir, "two.yaml")
		Expect(os.WriteFile(file, []byte(`protocol: sonde-serve
name: two-failures
rules: [SONDE-ONE-RESPONSE-1]
fresh: true
steps:
  - send: {id: a, method: tools/list}
    as: r1
  - expect: r1
  - send: {id: c, method: tools/call, params: {name: echo, arguments: {text: hi}}}
    as: r2
  - expect: r2
`), 0o644)).To(Succeed())
		code, out, errs := cli("", "replay", file, "--timeout", "1s", "--no-color",
			"--report", "json="+filepath.Join(dir, "r.json"), "--report", "markdown="+filepath.Join(dir, "r.md"),
			"--report", "html="+filepath.Join(dir, "r.html"),
			"--", bin(), "serve", "sonde-serve", "--fault", "double-answer", "--fault", "drop-call")
		Expect(code).To(Equal(1), out+errs)
		second, none := `a second response to request id "a"`, `no response to request id "c"`
		Expect(out).To(MatchRegexp(`FAIL\s+SONDE-ONE-RESPONSE-1\s+MUST\s+1 fail of 1\s`), "the column counts scenarios")
		Expect(out).To(ContainSubstring(second))
		Expect(out).To(ContainSubstring(none))
		Expect(out).To(MatchRegexp(`scenario: two-failures( \(seen \d+ times\))?\n  message:  ` + regexp.QuoteMeta(none)))

		md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
		Expect(string(md)).To(ContainSubstring(second))
		Expect(string(md)).To(ContainSubstring(none))
		html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
		Expect(string(html)).To(ContainSubstring("a second response to request id &#34;a&#34;"))
		Expect(string(html)).To(ContainSubstring("no response to request id &#34;c&#34;"))

		data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
		var rep report.Report
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		var messages []string
		for _, f := range rep.Findings {
			if f.Rule == "SONDE-ONE-RESPONSE-1" && f.Verdict == verdict.Fail {
				messages = append(messages, f.Message)
				Expect(f.Count).To(BeNumerically(">=", 1))
			}
		}
		// The liveness probe after the scenario is a tools/list too, so
		// double-answer may show a third distinct message, about the probe.
		Expect(messages).To(ContainElements(ContainSubstring(second), ContainSubstring(none)))
		for _, m := range messages {
			Expect(m).To(Or(ContainSubstring(second), ContainSubstring(none), MatchRegexp(`a second response to request id "probe-\d+"`)))
		}
	})
})

var _ = Describe("a server that never becomes ready", func() {
	It("gets one block first: what was awaited, for how long, the command, its last stderr lines, exit 3", func() {
		dir := GinkgoT().TempDir()
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--startup-timeout", "1s", "--level", "should",
			"--report", "json="+filepath.Join(dir, "r.json"),
			"--", "sh", "-c", "echo loading config >&2; echo listening on nothing >&2; sleep 30")
		Expect(code).To(Equal(3), out+errs)
		Expect(out).To(HavePrefix("The server never became ready: the suite did not run (exit 3).\n"))
		Expect(out).To(ContainSubstring("  awaited:  its ready line: a ready frame as the first line on stdout (SONDE-STARTUP-1)\n"))
		Expect(out).To(ContainSubstring("  waited:   1s (--startup-timeout sets it)\n"))
		Expect(out).To(ContainSubstring("  command:  sh -c 'echo loading config >&2; echo listening on nothing >&2; sleep 30'\n"))
		Expect(out).To(ContainSubstring("  stderr (last 2 lines):\n    loading config\n    listening on nothing\n"))
		Expect(out).To(ContainSubstring("exit 3"))
		Expect(out).NotTo(ContainSubstring("FAIL at level"))
		Expect(out).NotTo(ContainSubstring("ERROR"))
		Expect(strings.Count(out+errs, "no ready line")).To(Equal(1), "the cause is said once")

		data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
		var rep report.Report
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		Expect(rep.NotStarted).NotTo(BeNil())
		Expect(rep.NotStarted.State).To(Equal("not-ready"))
		Expect(rep.NotStarted.Reason).To(ContainSubstring("no ready line within 1s"))
		notRun := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Error && strings.HasPrefix(f.Message, "not run") {
				notRun[f.Scenario] = true
			}
		}
		Expect(len(notRun)).To(BeNumerically(">", 5), "the JSON report lists the scenarios not run")
		Expect(out).To(ContainSubstring(fmt.Sprintf("not run:  %d scenarios", len(notRun))))
	})

	It("says so when the command cannot be started at all", func() {
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--", "./no-such-server")
		Expect(code).To(Equal(3), out+errs)
		Expect(out).To(HavePrefix("The server could not be started: the suite did not run (exit 3).\n"))
		Expect(out).To(ContainSubstring("  awaited:  the process to start\n"))
		Expect(out).To(ContainSubstring("no-such-server"))
	})

	It("fuzz says it the same way", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--startup-timeout", "1s", "--save", GinkgoT().TempDir(),
			"--", "sh", "-c", "echo loading config >&2; sleep 30")
		Expect(code).To(Equal(3), out+errs)
		Expect(out).To(HavePrefix("The server never became ready: the suite did not run (exit 3).\n"))
		Expect(out).To(ContainSubstring("  waited:   1s (--startup-timeout sets it)\n"))
		Expect(out).To(ContainSubstring("    loading config\n"))
	})
})
