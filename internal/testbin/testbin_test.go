package testbin

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the key of a shared binary", func() {
	var root string
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
	}
	key := func() string {
		k, err := sourceKey(root)
		Expect(err).NotTo(HaveOccurred())
		return k
	}
	BeforeEach(func() {
		root = GinkgoT().TempDir()
		write("go.mod", "module example\n")
		write("cmd/wirecheck/main.go", "package main\n")
		write("specs/mcp.yaml", "id: mcp\n")
	})

	It("changes with any source, embedded data included, so a binary is never stale", func() {
		first := key()
		Expect(key()).To(Equal(first))
		write("cmd/wirecheck/main.go", "package main // edited\n")
		second := key()
		Expect(second).NotTo(Equal(first))
		write("specs/mcp.yaml", "id: mcp # edited\n")
		Expect(key()).NotTo(Equal(second))
	})

	It("changes with a file added or renamed", func() {
		first := key()
		write("internal/x/x.go", "package x\n")
		second := key()
		Expect(second).NotTo(Equal(first))
		Expect(os.Rename(filepath.Join(root, "internal/x/x.go"), filepath.Join(root, "internal/x/y.go"))).To(Succeed())
		Expect(key()).NotTo(Equal(second))
	})

	It("ignores what no build reads: tests, testdata, version control, build output", func() {
		first := key()
		write("cmd/wirecheck/main_test.go", "package main\n")
		write("internal/protocols/testdata/verdicts.txt", "a verdict\n")
		write(".git/HEAD", "ref: refs/heads/main\n")
		write("bin/wirecheck", "a binary\n")
		write("reports/mcp.json", "{}\n")
		write("cmd/wirecheck/wirecheck", "a binary go build left\n")
		write("test/interop/node_modules/x/index.js", "x\n")
		Expect(key()).To(Equal(first))
	})

	It("changes with the build's environment", func() {
		first := key()
		GinkgoT().Setenv("GOFLAGS", "-tags=other")
		Expect(key()).NotTo(Equal(first))
	})
})
