package spec_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The revision table (internal/revtable, specs/*.yaml features:) is the one
// place that tells revisions apart: code asks it whether a revision has a
// feature. A comparison of revision ids anywhere else is a second table,
// one that drifts from the spec; this test finds them.

// revisionTable is the table's own file, the one place allowed to order
// revision ids.
const revisionTable = "internal/revtable/revtable.go"

// dateLike is a revision id or a prefix of one: YYYY, YYYY-MM, YYYY-MM-DD.
var dateLike = regexp.MustCompile(`^(19|20)\d\d(-\d\d(-\d\d)?)?$`)

// comparing are the calls that compare their arguments.
var comparing = map[string]bool{
	"strings.Compare": true, "strings.HasPrefix": true, "strings.HasSuffix": true, "strings.EqualFold": true,
	"strings.Contains": true, "strings.TrimPrefix": true, "strings.CutPrefix": true,
	"cmp.Compare": true, "cmp.Less": true, "slices.Contains": true, "slices.Index": true,
}

// revisionSource is one Go file to check: its name, the directory that
// is its package (constants are scoped to it), its parsed form.
type revisionSource struct {
	name, pkg string
	file      *ast.File
}

// revisionComparisons lists, as file:line: what, every comparison of a
// revision id in files: with a date-like string literal, or with a
// constant whose value is one (a package's own, or another's exported).
func revisionComparisons(fset *token.FileSet, files []revisionSource) []string {
	local := map[string]map[string]bool{} // package -> date constants
	exported := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f.file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if i < len(vs.Values) && isDateLit(vs.Values[i]) && isConst(f.file, vs) {
					if local[f.pkg] == nil {
						local[f.pkg] = map[string]bool{}
					}
					local[f.pkg][name.Name] = true
					if name.IsExported() {
						exported[name.Name] = true
					}
				}
			}
			return true
		})
	}
	var out []string
	for _, f := range files {
		dated := func(e ast.Expr) string {
			switch x := ast.Unparen(e).(type) {
			case *ast.BasicLit:
				if isDateLit(x) {
					return x.Value
				}
			case *ast.Ident:
				if local[f.pkg][x.Name] {
					return "constant " + x.Name
				}
			case *ast.SelectorExpr:
				if exported[x.Sel.Name] {
					return "constant " + x.Sel.Name
				}
			}
			return ""
		}
		report := func(pos token.Pos, what string) {
			p := fset.Position(pos)
			out = append(out, fmt.Sprintf("%s:%d: %s", p.Filename, p.Line, what))
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				switch x.Op {
				case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
					if d := cmpOr(dated(x.X), dated(x.Y)); d != "" {
						report(x.OpPos, "compares a revision id with "+d+" ("+x.Op.String()+")")
					}
				}
			case *ast.SwitchStmt:
				if x.Tag == nil {
					return true
				}
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if d := dated(e); d != "" {
							report(e.Pos(), "switch case on the revision "+d)
						}
					}
				}
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok || !comparing[pkg.Name+"."+sel.Sel.Name] {
					return true
				}
				for _, a := range x.Args {
					if d := dated(a); d != "" {
						report(x.Pos(), pkg.Name+"."+sel.Sel.Name+" on the revision "+d)
						break
					}
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func isDateLit(e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && dateLike.MatchString(s)
}

// isConst reports whether a value spec is in a const declaration.
func isConst(f *ast.File, vs *ast.ValueSpec) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				if s == vs {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// parseSources parses in-memory files, each its own package unless named
// dir/file.go.
func parseSources(fset *token.FileSet, srcs map[string]string) []revisionSource {
	var out []revisionSource
	for name, src := range srcs {
		f, err := parser.ParseFile(fset, name, src, 0)
		Expect(err).NotTo(HaveOccurred(), name)
		out = append(out, revisionSource{name: name, pkg: filepath.Dir(name), file: f})
	}
	return out
}

var _ = Describe("revision ids are compared only by the revision table", func() {
	findings := func(srcs map[string]string) []string {
		fset := token.NewFileSet()
		return revisionComparisons(fset, parseSources(fset, srcs))
	}

	DescribeTable("a planted comparison is found, naming its file and line",
		func(src string, want ...string) {
			got := findings(map[string]string{"p/x.go": "package p\n\nimport (\"cmp\"; \"slices\"; \"strings\")\n\nvar _, _, _ = cmp.Compare, slices.Contains[[]string], strings.Compare\n\n" + src})
			if len(want) == 0 {
				Expect(got).To(BeEmpty())
			} else {
				Expect(got).To(Equal(want))
			}
		},
		Entry("an ordering with a date literal", `func f(v string) bool {
	return v >= "2025-06-18"
}`, "p/x.go:8: compares a revision id with \"2025-06-18\" (>=)"),
		Entry("a year prefix, on the left", `func f(v string) bool { return "2026" <= v }`,
			"p/x.go:7: compares a revision id with \"2026\" (<=)"),
		Entry("equality with a year-month", `func f(v string) bool { return v != "2025-11" }`,
			"p/x.go:7: compares a revision id with \"2025-11\" (!=)"),
		Entry("a constant holding a revision", `const modern = "2026-07-28"

func f(v string) bool { return v == modern }`, "p/x.go:9: compares a revision id with constant modern (==)"),
		Entry("a constant in a block, in parentheses", `const (
	a = 1
	headerVersion = "2025-06-18"
)

func f(v string) bool { return (v < headerVersion) }`, "p/x.go:12: compares a revision id with constant headerVersion (<)"),
		Entry("a switch case", `func f(v string) int {
	switch v {
	case "2025-03-26":
		return 1
	}
	return 0
}`, "p/x.go:9: switch case on the revision \"2025-03-26\""),
		Entry("strings.HasPrefix", `func f(v string) bool { return strings.HasPrefix(v, "2026") }`,
			"p/x.go:7: strings.HasPrefix on the revision \"2026\""),
		Entry("strings.Compare", `func f(v string) int { return strings.Compare(v, "2025-03-26") }`,
			"p/x.go:7: strings.Compare on the revision \"2025-03-26\""),
		Entry("cmp.Compare", `func f(v string) int { return cmp.Compare("2025-03-26", v) }`,
			"p/x.go:7: cmp.Compare on the revision \"2025-03-26\""),
		Entry("an assignment, a list, a message: no comparison", `const latest = "2025-11-25"

var versions = []string{"2024-11-05", latest}

func f() string { v := "2025-06-18"; return "revision " + v + latest }`),
		Entry("other strings compared: not revisions", `func f(v string) bool { return v == "2.0" || v == "12345" || v == "" || v < "abc" }`),
		Entry("a var, not a constant: left to review", `var modern = "2026-07-28"

func f(v string) bool { return v == modern }`),
	)

	It("finds an exported constant of another package compared through its name", func() {
		Expect(findings(map[string]string{
			"a/a.go": "package a\n\nconst Modern = \"2026-07-28\"\n",
			"b/b.go": "package b\n\nimport \"a\"\n\nfunc f(v string) bool { return v == a.Modern }\n",
		})).To(Equal([]string{"b/b.go:5: compares a revision id with constant Modern (==)"}))
	})

	It("finds none in the module outside the revision table", func() {
		root, err := filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(root, "go.mod")).To(BeAnExistingFile())
		fset := token.NewFileSet()
		var files []revisionSource
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() {
				if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
					return filepath.SkipDir
				}
				// A folder with a go.mod of its own is another module
				// (test/interop/goclient, a real client program).
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(rel) == revisionTable {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, 0)
			if err != nil {
				return err
			}
			files = append(files, revisionSource{name: rel, pkg: filepath.Dir(rel), file: f})
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(len(files)).To(BeNumerically(">", 100), "the walk found the module's files")
		Expect(revisionComparisons(fset, files)).To(BeEmpty(), "ask the revision table (spec.Protocol.Has, mcprevisions.Has, revtable.Table.Has) instead")
	})
})
