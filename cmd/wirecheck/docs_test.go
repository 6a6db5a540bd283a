package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The documents a new user reads first (issue 27): where the design is,
// how to install, and text that went stale as the code moved on.
var _ = Describe("the docs", func() {
	root := filepath.Join("..", "..")
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, rel))
		Expect(err).NotTo(HaveOccurred())
		return string(data)
	}
	markdown := func() []string {
		files := []string{"README.md"}
		err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return err
		})
		Expect(err).NotTo(HaveOccurred())
		return files
	}

	Describe("the design, in docs/design.md", func() {
		design := func() string { return read("docs/design.md") }
		block := func(doc, heading string) string {
			_, after, ok := strings.Cut(doc, heading)
			Expect(ok).To(BeTrue(), "no %q", heading)
			next := strings.Index(after, "\n## ")
			return after[:next]
		}

		It("is where every document that names the design points", func() {
			for _, f := range append(markdown(), "docs/architecture.md") {
				Expect(read(f)).NotTo(MatchRegexp(`(^|[^/\w])DESIGN\.md`), "%s names a DESIGN.md the repository does not have", f)
			}
			Expect(read("docs/architecture.md")).To(ContainSubstring("docs/design.md"))
		})

		It("has a CLI contract whose every command the binary has", func() {
			contract := block(design(), "## CLI contract")
			cmds := regexp.MustCompile(`(?m)^wirecheck ([a-z]+)`).FindAllStringSubmatch(contract, -1)
			Expect(len(cmds)).To(BeNumerically(">=", 10))
			root := newRoot(nil, io.Discard, io.Discard)
			for _, m := range cmds {
				c, _, err := root.Find([]string{m[1]})
				Expect(err).NotTo(HaveOccurred())
				Expect(c.Name()).To(Equal(m[1]), "the contract's 'wirecheck %s'", m[1])
			}
			By("its common flags, each a flag of run")
			common := contract[strings.Index(contract, "Common flags"):strings.Index(contract, "Exit codes")]
			run, _, err := root.Find([]string{"run"})
			Expect(err).NotTo(HaveOccurred())
			for _, m := range regexp.MustCompile("`--([a-z-]+)").FindAllStringSubmatch(common, -1) {
				Expect(run.Flags().Lookup(m[1])).NotTo(BeNil(), "--%s", m[1])
			}
			By("its exit codes, as the CLI's")
			Expect(contract).To(ContainSubstring("Exit codes: 0 nothing at or above `--level` failed; 1 violations; 2 usage or\nconfiguration error; 3 the target could not be started or reached."))
			Expect([]int{exitOK, exitViolations, exitUsage, exitNoTarget}).To(Equal([]int{0, 1, 2, 3}))
		})

		It("has a JSON report contract whose every field the report schema requires", func() {
			contract := block(design(), "## CLI contract")
			var schema struct {
				Required []string `json:"required"`
			}
			Expect(json.Unmarshal([]byte(read("schemas/report.schema.json")), &schema)).To(Succeed())
			top, _, _ := strings.Cut(contract[strings.Index(contract, "JSON report:"):], `"summary": {`)
			for _, m := range regexp.MustCompile(`"([a-z_]+)"`).FindAllStringSubmatch(top, -1) {
				Expect(schema.Required).To(ContainElement(m[1]))
			}
		})
	})

	It("says how to install wirecheck from a clone, and the way it says works", func() {
		for _, f := range markdown() {
			Expect(read(f)).NotTo(ContainSubstring("github.com/wirecheck/wirecheck/cmd/wirecheck@"), "%s: the module is not published", f)
		}
		Expect(read("README.md")).To(MatchRegexp("(?m)^make install +# "))

		gobin := GinkgoT().TempDir()
		cmd := exec.Command("make", "install")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOBIN="+gobin)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		installed := filepath.Join(gobin, "wirecheck")
		Expect(string(out)).To(ContainSubstring("installed " + installed + "\n"))
		Expect(string(out)).To(ContainSubstring(gobin + " is not on your PATH: add it, e.g. export PATH=\"" + gobin + ":$PATH\""))
		v, err := exec.Command(installed, "version").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(v)).To(HavePrefix("wirecheck "))
	})

	It("runs every block of docs/ci.md in its test (each is a ci-recipe)", func() {
		fences := regexp.MustCompile("(?m)^```(.*)$").FindAllStringSubmatch(read("docs/ci.md"), -1)
		Expect(fences).NotTo(BeEmpty())
		for i := 0; i < len(fences); i += 2 {
			Expect(fences[i][1]).To(ContainSubstring(" ci-recipe "), "a block the recipes' test does not run")
		}
	})

	It("has no text that went stale", func() {
		readme := read("README.md")
		Expect(readme).NotTo(MatchRegexp(`\b(session|issue) \d+`), "the project's history means nothing to a reader")
		Expect(read("docs/plans/mcp-http.md")).NotTo(ContainSubstring("not built yet"))
		for _, f := range []string{"internal/protocols/module.go", "README.md", "docs/architecture.md", "docs/design.md"} {
			Expect(read(f)).NotTo(MatchRegexp(`\b(two|three|four|five|six) built-in protocols`), f)
		}
	})
})

// Every wirecheck command line in the README's blocks parses as written:
// the command exists and takes every flag given. (What they run against,
// a user's server, is theirs; the generated sections and docs/ci.md's
// recipes are run for real.)
var _ = Describe("the readme's command lines", func() {
	It("name commands and flags the binary has", func() {
		data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
		Expect(err).NotTo(HaveOccurred())
		blocks := regexp.MustCompile("(?ms)^```(sh)?\n(.*?)^```\n").FindAllStringSubmatch(string(data), -1)
		n := 0
		for _, b := range blocks {
			// In a block of commands and their output, the commands are
			// the lines after a prompt.
			prompted := strings.Contains("\n"+b[2], "\n$ ")
			for _, line := range strings.Split(b[2], "\n") {
				if prompted && !strings.HasPrefix(line, "$ ") {
					continue
				}
				line = strings.TrimPrefix(line, "$ ")
				if !strings.HasPrefix(line, "wirecheck ") {
					continue
				}
				head, _, _ := strings.Cut(line, " -- ")
				if strings.ContainsAny(head, "[…<") || strings.Contains(head, "  ") {
					continue // a synopsis ("[flags]", "FILE…") or a listing with its description
				}
				words := shellWords(head)[1:]
				for i, w := range words {
					if w == "|" || w == ">" || w == "&&" || w == ";" || strings.HasPrefix(w, "#") {
						words = words[:i]
						break
					}
				}
				n++
				root := newRoot(nil, io.Discard, io.Discard)
				cmd, rest, err := root.Find(words)
				Expect(err).NotTo(HaveOccurred(), line)
				Expect(cmd).NotTo(BeIdenticalTo(root), "no command: %s", line)
				Expect(cmd.ParseFlags(rest)).To(Succeed(), line)
			}
		}
		Expect(n).To(BeNumerically(">=", 25), "the README's command lines")
	})
})

// shellWords splits a line as a POSIX shell does, for quotes ('…', "…")
// and backslashes; nothing is expanded.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, in = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
