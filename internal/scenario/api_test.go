package scenario_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const scenarioPath = "github.com/wirecheck/wirecheck/internal/scenario"

// envFields are the fields of Env a scenario may use; the others are the
// runner's wiring (Observe, Note, Agreed, Causes) and any field added
// later, which a scenario reaches through Env's methods or not at all.
var envFields = map[string]bool{
	"Protocol": true, "Timeout": true, "Seed": true, "Params": true,
	"Restart": true, "Hung": true, "Closed": true,
}

// engineMethods are the methods of Env only the runner and the session
// call: the raw peer, and the lane's bookkeeping of causes.
var engineMethods = map[string]bool{
	"Peer": true, "SetPeer": true, "Confirm": true, "Suspected": true,
}

// envMembers reads Env's exported fields and methods from the package's
// source, so a field added to Env is outside the API until envFields
// lists it.
func envMembers() (fields, methods map[string]bool) {
	fields, methods = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	Expect(err).NotTo(HaveOccurred())
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		Expect(err).NotTo(HaveOccurred())
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 && baseName(d.Recv.List[0].Type) == "Env" && d.Name.IsExported() {
					methods[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Env" {
						continue
					}
					for _, fl := range ts.Type.(*ast.StructType).Fields.List {
						for _, n := range fl.Names {
							if n.IsExported() {
								fields[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return fields, methods
}

func baseName(t ast.Expr) string {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// outsideAPI lists, as "file:line: x.Name", each selector in the files of
// one package that reaches a member of scenario.Env outside its API: on a
// name declared of type scenario.Env or *scenario.Env (a parameter, a
// result, a variable, a struct field such as bridge.e). It reads syntax
// only, so a value copied into an undeclared variable escapes it; the
// suites pass Env by its declared parameters and fields. seen counts the
// selectors on Env it found, the allowed ones included.
func outsideAPI(files map[string]string, fields, methods map[string]bool) (bad []string, seen int) {
	fset := token.NewFileSet()
	var parsed []*ast.File
	envNames := map[string]bool{}
	for _, name := range sortedNames(files) {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		Expect(err).NotTo(HaveOccurred(), name)
		parsed = append(parsed, f)
		alias := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == scenarioPath {
				alias = "scenario"
				if im.Name != nil {
					alias = im.Name.Name
				}
			}
		}
		if alias == "" {
			continue
		}
		isEnv := func(t ast.Expr) bool {
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			sel, ok := t.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Env" {
				return false
			}
			id, ok := sel.X.(*ast.Ident)
			return ok && id.Name == alias
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if isEnv(n.Type) {
					for _, id := range n.Names {
						envNames[id.Name] = true
					}
				}
			case *ast.ValueSpec:
				if n.Type != nil && isEnv(n.Type) {
					for _, id := range n.Names {
						envNames[id.Name] = true
					}
				}
			}
			return true
		})
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var on string
			switch x := sel.X.(type) {
			case *ast.Ident:
				on = x.Name
			case *ast.SelectorExpr:
				on = x.Sel.Name
			default:
				return true
			}
			name := sel.Sel.Name
			member := fields[name] || methods[name]
			allowed := envFields[name] || methods[name] && !engineMethods[name]
			if envNames[on] && member {
				seen++
				if !allowed {
					bad = append(bad, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), on, name))
				}
			}
			return true
		})
	}
	return bad, seen
}

func sortedNames(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

const plantedHead = `package planted

import (
	"time"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

`

var _ = Describe("Env is the only API a scenario uses", func() {
	fields, methods := envMembers()

	It("reads Env's members from its source", func() {
		Expect(fields).To(HaveKey("Observe"))
		Expect(methods).To(HaveKey("Await"))
		Expect(methods).To(HaveKey("Peer"))
		for f := range envFields {
			Expect(fields).To(HaveKey(f), "envFields names a field Env no longer has")
		}
	})

	DescribeTable("a planted scenario",
		func(src string, want []string) {
			got, seen := outsideAPI(map[string]string{"planted.go": plantedHead + src}, fields, methods)
			Expect(seen).To(BeNumerically(">=", len(want)))
			if want == nil {
				Expect(got).To(BeEmpty())
			} else {
				Expect(got).To(ConsistOf(want))
			}
		},
		Entry("reaching the peer fails",
			`func run(e *scenario.Env) { _, _ = e.Peer().Wait(nil, time.Second) }`,
			[]string{"planted.go:9:36: e.Peer"}),
		Entry("the runner's wiring fails, through a struct field too",
			"type bridge struct{ e *scenario.Env }\n"+
				`func (b *bridge) run() { b.e.Observe(nil); _ = b.e.Causes; _ = time.Second }`,
			[]string{"planted.go:10:26: e.Observe", "planted.go:10:48: e.Causes"}),
		Entry("the engine's bookkeeping fails, on a declared variable",
			`var env *scenario.Env
func run() { env.SetPeer(nil); env.Confirm(); _ = time.Second }`,
			[]string{"planted.go:10:14: env.SetPeer", "planted.go:10:32: env.Confirm"}),
		Entry("the API passes",
			`func run(e *scenario.Env) error {
	c, err := e.Send(map[string]any{"id": 1})
	if err != nil || e.Hung {
		return err
	}
	if _, err := e.Response(c, e.Timeout); err != nil {
		e.Forget(c)
	}
	for range e.Drain(time.Second, nil) {
	}
	e.Pass("R-1", -1)
	return nil
}`, nil),
		Entry("a member of the same name on another type passes",
			`type proc struct{ Peer func() int }
func run(p proc) int { _ = time.Second; return p.Peer() }`, nil),
	)

	It("fails on a renamed import of the package", func() {
		src := strings.Replace(plantedHead, `"github.com`, `sc "github.com`, 1) +
			`func run(e *sc.Env) { _ = e.Peer(); _ = time.Second }`
		bad, _ := outsideAPI(map[string]string{"planted.go": src}, fields, methods)
		Expect(bad).To(ConsistOf("planted.go:9:27: e.Peer"))
	})

	It("holds for every scenario package", func() {
		byDir := map[string]map[string]string{}
		err := filepath.WalkDir("../suite", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dir := filepath.Dir(path)
			if byDir[dir] == nil {
				byDir[dir] = map[string]string{}
			}
			byDir[dir][path] = string(b)
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(byDir).To(HaveKey(filepath.Join("..", "suite", "mcp")))
		var bad []string
		for dir, files := range byDir {
			b, seen := outsideAPI(files, fields, methods)
			Expect(seen).To(BeNumerically(">", 0), "%s uses Env: the check sees its uses", dir)
			bad = append(bad, b...)
		}
		Expect(bad).To(BeEmpty(), "scenarios use Env's API only (internal/scenario/api.go)")
	})
})
