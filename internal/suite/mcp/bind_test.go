package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("MCP-BIND-1 of a launched server", func() {
	// bind runs http-origin against the reference server launched over
	// HTTP on 127.0.0.1 by argv (the reference server's arguments after
	// "serve mcp --http ADDR"), through sh when wrapped: then the
	// listener is the shell's child.
	bind := func(wrapped bool, args ...string) (verdict.Verdict, string, string) {
		if runtime.GOOS != "linux" {
			Skip("the launched server's sockets are read from Linux's /proc")
		}
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		argv := append([]string{bin, "serve", "mcp", "--http", "127.0.0.1:{port}"}, args...)
		if wrapped {
			// No exec: sh stays the parent, the server its child.
			argv = []string{"sh", "-c", strings.Join(argv, " ") + "; exit $?"}
		}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Command: target.Target{Argv: argv, Transport: "http"}},
			runner.Config{Scenarios: named("http-origin"), Partial: true, Timeout: 5 * time.Second, StartupTimeout: time.Minute})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-BIND-1")
		actual := ""
		for _, f := range rep.Findings {
			if f.Rule == "MCP-BIND-1" {
				actual = f.Actual
			}
		}
		return v, msg, actual
	}

	It("fails one listening on every interface (fault bind-all), naming the address", func() {
		v, msg, actual := bind(false, "--fault", "bind-all")
		Expect(v).To(Equal(verdict.Fail), msg)
		Expect(msg).To(MatchRegexp(`listens on (\[::\]|0\.0\.0\.0):\d+ \(every interface\), not on loopback only`))
		Expect(actual).To(ContainSubstring("listening on "))
	})

	It("fails it as well when the listener is a child of the launched command", func() {
		v, msg, _ := bind(true, "--fault", "bind-all")
		Expect(v).To(Equal(verdict.Fail), msg)
	})

	It("passes one on 127.0.0.1, and one on 127.0.0.1 and ::1 (variant loopback-dual)", func() {
		v, msg, _ := bind(false)
		Expect(v).To(Equal(verdict.Pass), msg)
		v, msg, _ = bind(true, "--variant", "loopback-dual")
		Expect(v).To(Equal(verdict.Pass), msg)
	})
})

var _ = Describe("the MCP suite's own network", func() {
	It("has no dialer: it reaches a server only through the transport, at the address the user named (MCP-BIND-1 reads /proc)", func() {
		// Until issue 25 MCP-BIND-1 connected to the machine's first
		// non-loopback address: a packet beyond loopback nobody asked for.
		files, err := filepath.Glob("*.go")
		Expect(err).NotTo(HaveOccurred())
		deny := map[string]bool{"Dial": true, "DialTimeout": true, "DialTCP": true, "DialUDP": true, "DialIP": true, "Dialer": true,
			"Listen": true, "ListenPacket": true, "InterfaceAddrs": true, "Interfaces": true, "LookupHost": true, "LookupIP": true,
			"Get": true, "Post": true, "Head": true, "PostForm": true, "Client": true, "DefaultClient": true, "Transport": true, "DefaultTransport": true}
		checked := 0
		for _, name := range append(files, "../../sockets/sockets.go") {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			checked++
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
			Expect(err).NotTo(HaveOccurred())
			pkgs := map[string]string{}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				Expect(path).NotTo(BeElementOf("net", "syscall", "golang.org/x/sys/unix"), "%s imports %s", name, path)
				local := filepath.Base(path)
				if imp.Name != nil {
					local = imp.Name.Name
				}
				pkgs[local] = path
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] == "net/http" && deny[sel.Sel.Name] {
					Fail(name + " uses http." + sel.Sel.Name)
				}
				return true
			})
		}
		Expect(checked).To(BeNumerically(">", 10))
	})
})
