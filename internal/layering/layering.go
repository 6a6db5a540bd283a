// Package layering keeps the engine free of any one protocol: the packages
// every protocol runs through (Engine) name no MCP and no SSE, in an
// identifier, a string, an import path or a comment. MCP's transports and
// their checks live with the MCP module (internal/mcp) and register with
// the engine (transport.Register, verdict.Register); a name of theirs in
// the engine is a transport the engine would have to change for.
package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Engine are the engine's packages, relative to internal/. Only each
// directory's own files count: a tool in a subdirectory is a package of
// its own.
var Engine = []string{"verdict", "peer", "scenario", "session", "runner", "tally", "report", "target", "spec", "transport"}

// Leak is one protocol name found where it must not be.
type Leak struct {
	Pos  token.Position
	Text string
}

func (l Leak) String() string { return fmt.Sprintf("%s:%d: %s", l.Pos.Filename, l.Pos.Line, l.Text) }

// Names reports whether text names MCP or SSE: a word, or a part of one
// cut at a change of case or at a digit ("httpmcp", "CheckSSEStream",
// "Mcp-Session-Id", "HTTP+SSE"), never letters inside an unrelated word
// ("assert", "passes", "session", "Messenger", "NumCPU").
func Names(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, seg := range segments(w) {
			s := strings.ToLower(seg)
			if s == "sse" || strings.Contains(s, "mcp") {
				return true
			}
		}
	}
	return false
}

// segments cuts a word where its case or its kind of character changes:
// "CheckSSEStream" is Check, SSE, Stream; "httpmcp" stays one (and holds
// "mcp"); "NumCPU" is Num, CPU.
func segments(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, r := rs[i-1], rs[i]
		cut := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) ||
			unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) ||
			unicode.IsDigit(r) != unicode.IsDigit(prev)
		if cut {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// Leaks parses one Go file (src as go/parser takes it: nil reads
// filename) and returns every identifier, string literal, import path and
// comment line in it that Names a protocol, in order.
func Leaks(filename string, src any) ([]Leak, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []Leak
	add := func(pos token.Pos, text string) {
		if Names(text) {
			out = append(out, Leak{fset.Position(pos), text})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			add(n.Pos(), n.Name)
		case *ast.BasicLit:
			if n.Kind == token.STRING || n.Kind == token.CHAR {
				add(n.Pos(), n.Value)
			}
		}
		return true
	})
	for _, g := range f.Comments {
		for _, c := range g.List {
			pos := fset.Position(c.Pos())
			for i, line := range strings.Split(c.Text, "\n") {
				if Names(line) {
					p := pos
					p.Line += i
					out = append(out, Leak{p, strings.TrimSpace(line)})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Line < out[j].Pos.Line })
	return out, nil
}

// Dir returns the leaks of every non-test .go file in dir (not its
// subdirectories).
func Dir(dir string) ([]Leak, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Leak
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		ls, err := Leaks(filepath.Join(dir, name), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}
