package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
