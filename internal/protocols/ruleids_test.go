package protocols_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

// ruleShape is the shape of a rule ID: upper-case words and numbers
// joined by dashes (MCP-LIFECYCLE-1, TOOLHOST-GEN-SURVIVE).
var ruleShape = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// specRules returns every rule ID the specs define, in every revision, and
// the first words of those IDs (MCP, SONDE, …): a literal of rule shape
// starting with one of them is taken for a rule ID, so "UTF-8" is not.
func specRules() (ids, prefixes map[string]bool) {
	ids, prefixes = map[string]bool{}, map[string]bool{}
	for _, id := range protocols.AllIDs() {
		b, err := protocols.Load(id)
		Expect(err).NotTo(HaveOccurred())
		for _, r := range b.Protocol.Rules {
			ids[r.ID] = true
			prefixes[strings.SplitN(r.ID, "-", 2)[0]] = true
		}
	}
	return ids, prefixes
}

// unknownRuleIDs lists, as "file:line: ID", the string literals of the
// non-test Go files of fsys that look like rule IDs (a known prefix, the
// rule shape) but name no rule of ids. Folders the go tool ignores
// (testdata, node_modules, dot and underscore folders) are skipped.
func unknownRuleIDs(fsys fs.FS, ids, prefixes map[string]bool) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !ruleShape.MatchString(s) || !prefixes[strings.SplitN(s, "-", 2)[0]] || ids[s] {
				return true
			}
			out = append(out, fmt.Sprintf("%s:%d: %s", path, fset.Position(lit.Pos()).Line, s))
			return true
		})
		return nil
	})
	return out, err
}

var _ = Describe("rule IDs in Go", func() {
	It("are all defined by a spec", func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		ids, prefixes := specRules()
		bad, err := unknownRuleIDs(os.DirFS(root), ids, prefixes)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(BeEmpty(), "rule IDs no spec defines (a typo, or a rule the spec lost)")
	})

	It("are checked: a planted ID no spec defines is reported with its file and line", func() {
		ids, prefixes := specRules()
		Expect(ids).To(HaveKey("MCP-LIFECYCLE-1"))
		planted := fstest.MapFS{
			"internal/suite/x/x.go": {Data: []byte("package x\n\nfunc f(e env) {\n\te.Pass(\"MCP-LIFECYCLE-1\", 1)\n\te.Fail(\"MCP-LIFECYCLE-99\", 1)\n\t_ = \"UTF-8\"\n}\n")},
			// Tests may name rules that do not exist, to test that.
			"internal/suite/x/x_test.go":       {Data: []byte("package x\n\nvar _ = \"MCP-NOPE-1\"\n")},
			"internal/suite/x/testdata/t.go":   {Data: []byte("package t\n\nvar _ = \"MCP-NOPE-2\"\n")},
			"cmd/y/y.go":                       {Data: []byte("package main\n\nvar bad = []string{`SONDE-NOPE`}\n")},
			"test/interop/node_modules/z/z.go": {Data: []byte("package z\n\nvar _ = \"MCP-NOPE-3\"\n")},
		}
		bad, err := unknownRuleIDs(planted, ids, prefixes)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(ConsistOf("cmd/y/y.go:3: SONDE-NOPE", "internal/suite/x/x.go:5: MCP-LIFECYCLE-99"))
	})
})
