package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

// familyFile is the file of this package that holds the checks of each rule
// family (a rule ID without its number), so that a rule's check is found
// from its ID. doc.go says the same in prose.
var familyFile = map[string]string{
	"MCP-LIFECYCLE":       "lifecycle.go",
	"MCP-DISCOVER":        "lifecycle.go",
	"MCP-PING":            "lifecycle.go",
	"MCP-VERSION":         "lifecycle.go",
	"MCP-JSONRPC":         "jsonrpc.go",
	"MCP-STDIO":           "stdio.go",
	"MCP-TOOLS":           "tools.go",
	"MCP-PAGINATION":      "tools.go",
	"MCP-RESOURCES":       "resources.go",
	"MCP-PROMPTS":         "prompts.go",
	"MCP-COMPLETION":      "prompts.go",
	"MCP-LOGGING":         "logging.go",
	"MCP-CANCEL":          "cancel.go",
	"MCP-META":            "meta.go",
	"MCP-MRTR":            "mrtr.go",
	"MCP-SUBS":            "subscriptions.go",
	"MCP-HTTP-ACCEPT":     "http.go",
	"MCP-HTTP-ENDPOINT":   "http.go",
	"MCP-HTTP-VERSION":    "http.go",
	"MCP-SESSION":         "httpsession.go",
	"MCP-HTTP-STREAM":     "httpstream.go",
	"MCP-HTTP-GET":        "httpstream.go",
	"MCP-HTTP-BADBODY":    "httpinput.go",
	"MCP-HTTP-CANCEL":     "httpcancel.go",
	"MCP-HTTP-RESUME":     "resume.go",
	"MCP-HTTP-DISCONNECT": "resume.go",
	"MCP-HTTP-LEGACY":     "era.go",
	"MCP-HEADER":          "headers.go",
	"MCP-AUTH":            "auth.go",
	"MCP-ORIGIN":          "origin.go",
	"MCP-BIND":            "origin.go",
	"MCP-SSE":             "sse.go",
	"MCP-SKILLS":          "skills.go",
	"MCP-TASKS":           "tasks.go",
	"MCP-TASKEXT":         "taskext.go",
	// What a single frame shows is decided by the frame judge as each
	// frame arrives.
	"MCP-PROGRESS":    "judge.go",
	"MCP-LISTCHANGED": "judge.go",
	"MCP-CLIENT":      "judge.go",
}

// ruleFile names the rules whose check is not in their family's file.
var ruleFile = map[string]string{
	// Whether the server survives bad input, judged with the JSON-RPC
	// rule the input breaks (badInput).
	"MCP-STDIO-3": "jsonrpc.go",
	// No request from the server in 2026-07-28: a frame judge check.
	"MCP-STDIO-5": "judge.go",
}

// ruleLiterals returns, for each non-test Go file of the current folder,
// the string literals in it that are rule IDs of ids.
func ruleLiterals(ids map[string]bool) map[string]map[string]bool {
	entries, err := os.ReadDir(".")
	Expect(err).NotTo(HaveOccurred())
	out := map[string]map[string]bool{}
	for _, d := range entries {
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		Expect(err).NotTo(HaveOccurred())
		out[name] = map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && ids[s] {
					out[name][s] = true
				}
			}
			return true
		})
	}
	return out
}

var ruleNumber = regexp.MustCompile(`-[0-9]+$`)

// misplaced lists, for every rule of ids written somewhere in files, why
// its family's file (or its own, ruleFile) does not hold it.
func misplaced(ids map[string]bool, files map[string]map[string]bool) []string {
	var out []string
	for id := range ids {
		var in []string
		for name, lits := range files {
			if lits[id] {
				in = append(in, name)
			}
		}
		if len(in) == 0 {
			continue // not checked in this package (a built-in check, a kind)
		}
		sort.Strings(in)
		family := ruleNumber.ReplaceAllString(id, "")
		want, ok := ruleFile[id]
		if !ok {
			want, ok = familyFile[family]
		}
		switch {
		case !ok:
			out = append(out, id+": family "+family+" has no file (written in "+strings.Join(in, ", ")+")")
		case !files[want][id]:
			out = append(out, id+": not in "+want+", its family's file (written in "+strings.Join(in, ", ")+")")
		}
	}
	sort.Strings(out)
	return out
}

var _ = Describe("one file per rule family", func() {
	ids := func() map[string]bool {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		out := map[string]bool{}
		for _, r := range b.Protocol.Rules {
			out[r.ID] = true
		}
		return out
	}

	It("finds every rule checked in this package in its family's file", func() {
		all := ids()
		files := ruleLiterals(all)
		Expect(misplaced(all, files)).To(BeEmpty())
		for _, name := range familyFile {
			Expect(files).To(HaveKey(name), "the family table names a file that does not exist")
		}
	})

	It("names a check written in another family's file, and a family with no file", func() {
		ids := map[string]bool{"MCP-LOGGING-1": true, "MCP-NEW-1": true, "MCP-STDIO-3": true}
		files := map[string]map[string]bool{
			"tools.go":   {"MCP-LOGGING-1": true},
			"jsonrpc.go": {"MCP-STDIO-3": true},
			"new.go":     {"MCP-NEW-1": true},
		}
		Expect(misplaced(ids, files)).To(Equal([]string{
			"MCP-LOGGING-1: not in logging.go, its family's file (written in tools.go)",
			"MCP-NEW-1: family MCP-NEW has no file (written in new.go)",
		}))
	})
})
