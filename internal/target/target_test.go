package target_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/target"
)

var _ = Describe("a target's check", func() {
	It("accepts KEY=VALUE environment entries (empty values too) and an existing folder", func() {
		Expect(target.Target{Argv: []string{"x"}, Env: []string{"A=1", "B="}, Cwd: GinkgoT().TempDir()}.Check()).To(Succeed())
		Expect(target.Target{Argv: []string{"x"}}.Check()).To(Succeed())
	})

	It("refuses an entry that is no KEY=VALUE, naming --env", func() {
		Expect(target.Target{Env: []string{"A=1", "NOEQUALS"}}.Check()).To(MatchError(`--env "NOEQUALS": want KEY=VALUE`))
		Expect(target.Target{Env: []string{"=1"}}.Check()).To(MatchError(`--env "=1": want KEY=VALUE`))
	})

	It("refuses a folder that does not exist or is a file, naming --cwd", func() {
		Expect(target.Target{Cwd: "/nonexistent/dir"}.Check()).To(MatchError(`--cwd "/nonexistent/dir": not a directory`))
		file := filepath.Join(GinkgoT().TempDir(), "f")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		Expect(target.Target{Cwd: file}.Check()).To(MatchError(`--cwd "` + file + `": not a directory`))
	})
})

var _ = Describe("a target over HTTP", func() {
	DescribeTable("is refused, naming the flag at fault",
		func(t target.Target, want string) {
			Expect(t.Check()).To(MatchError(want))
		},
		Entry("an unknown transport", target.Target{Argv: []string{"x"}, Transport: "ws"}, `--transport "ws": want stdio, http or sse`),
		Entry("a URL that is no http", target.Target{URL: "ftp://h/mcp"}, `--url "ftp://h/mcp": want an http:// or https:// URL`),
		Entry("a URL without a host", target.Target{URL: "http:///mcp"}, `--url "http:///mcp": no host`),
		Entry("a URL that is no URL", target.Target{URL: "http://h:x y/"}, `--url "http://h:x y/": not a URL`),
		Entry("{port} in the URL of a running server", target.Target{URL: "http://127.0.0.1:{port}/mcp"},
			`--url "http://127.0.0.1:{port}/mcp": {port} stands for the port of a server wirecheck launches; give the command after '--' with --transport http or sse`),
		Entry("a URL over stdio", target.Target{URL: "http://h/mcp", Transport: "stdio"}, "--url with --transport stdio: a URL is reached over http or sse"),
		Entry("a URL and a command without --transport", target.Target{Argv: []string{"srv"}, URL: "http://h/mcp"},
			"--url with a server command: say how the server is reached, --transport http or --transport sse"),
		Entry("headers over stdio", target.Target{Argv: []string{"srv"}, Headers: []string{"A: b"}}, "--header applies to HTTP transports only; this run uses stdio"),
		Entry("a header without a colon", target.Target{URL: "http://h/", Headers: []string{"Authorization Bearer x"}},
			`--header "Authorization Bearer x": want 'Name: value' with a token name`),
		Entry("a header name that is no token", target.Target{URL: "http://h/", Headers: []string{"X A: b"}}, `--header "X A: b": want 'Name: value' with a token name`),
		Entry("a header with a line break", target.Target{URL: "http://h/", Headers: []string{"X-A: b\r\nX-B: c"}},
			`--header "X-A: b\r\nX-B: c": a header is one line (no CR, LF or NUL)`),
		Entry("a header naming an unset variable", target.Target{URL: "http://h/", Headers: []string{"Authorization: Bearer ${WC_SURELY_UNSET_VAR}"}},
			"--header Authorization: ${WC_SURELY_UNSET_VAR} is not set in the environment"),
		Entry("a launched server with no {port}", target.Target{Argv: []string{"srv", "--port", "8080"}, Transport: "http"},
			"--transport http: wirecheck picks the server's port; put {port} in the server's arguments, an --env value or --url"),
	)

	DescribeTable("is accepted",
		func(t target.Target) { Expect(t.Check()).To(Succeed()) },
		Entry("a URL alone", target.Target{URL: "https://h.example:8443/mcp?key=1", Headers: []string{"Authorization: Bearer x", "X-Empty:"}}),
		Entry("a launched server with {port} in an argument", target.Target{Argv: []string{"srv", "--listen=:{port}"}, Transport: "sse"}),
		Entry("a launched server with {port} in --env", target.Target{Argv: []string{"srv"}, Env: []string{"PORT={port}"}, Transport: "http"}),
		Entry("a launched server at a --url template", target.Target{Argv: []string{"srv"}, Transport: "http", URL: "http://127.0.0.1:{port}/x"}),
		Entry("a launched server at a fixed --url", target.Target{Argv: []string{"srv"}, Transport: "http", URL: "http://127.0.0.1:8080/mcp"}),
	)

	It("is reached over http when only a URL is given, and has a fixed port only when its --url names one", func() {
		Expect(target.Target{URL: "http://h/"}.Kind()).To(Equal("http"))
		Expect(target.Target{Argv: []string{"srv"}}.Kind()).To(Equal("stdio"))
		Expect(target.Target{Argv: []string{"srv"}, Transport: "http", URL: "http://127.0.0.1:8080/mcp"}.FixedPort()).To(BeTrue())
		Expect(target.Target{Argv: []string{"srv"}, Transport: "http", URL: "http://127.0.0.1:{port}/mcp"}.FixedPort()).To(BeFalse())
		Expect(target.Target{URL: "http://127.0.0.1:8080/mcp"}.FixedPort()).To(BeFalse())
	})
})

var _ = Describe("a target's transport when the user named none", func() {
	It("asks the server at a URL alone (headers expanded, the revision asked, none when the run names none), and names what it found", func() {
		GinkgoT().Setenv("WC_DETECT_TOKEN", "t0k")
		// The server is there: the connection opens.
		defer target.SetReachDial(func(context.Context, string, string) (net.Conn, error) {
			c, _ := net.Pipe()
			return c, nil
		})()
		var asked []string
		defer target.SetDetect(func(o target.DialOptions, rev string) (string, string) {
			asked = append(asked, o.URL+" "+o.Headers[0]+" "+rev)
			return "sse", "because"
		})()
		t := target.Target{URL: "http://h/sse", Headers: []string{"Authorization: Bearer ${WC_DETECT_TOKEN}"}}.Detect(0, "")
		Expect(t.Transport).To(Equal("sse"))
		Expect(t.Detected).To(Equal("because"))
		Expect(t.Line(target.Rerun{Command: "run"})).To(ContainSubstring("--transport sse --url http://h/sse"))
		Expect(asked).To(Equal([]string{"http://h/sse Authorization: Bearer t0k "}))
		target.Target{URL: "http://h/mcp", Headers: []string{"A: b"}}.Detect(0, "2025-06-18")
		Expect(asked[1]).To(HaveSuffix(" 2025-06-18"))
	})

	It("asks nothing of a server no connection reaches: the run says why it never began", func() {
		defer target.SetDetect(func(target.DialOptions, string) (string, string) { panic("detect called") })()
		defer target.SetReachDial(func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		})()
		t := target.Target{URL: "http://h/mcp"}.Detect(time.Second, "")
		Expect(t.Transport).To(Equal("http"))
		Expect(t.Detected).To(BeEmpty())
	})

	It("sends nothing for a transport given, or a launched server", func() {
		defer target.SetDetect(func(target.DialOptions, string) (string, string) { panic("detect called") })()
		Expect(target.Target{URL: "http://h/mcp", Transport: "sse"}.Detect(0, "").Transport).To(Equal("sse"))
		Expect(target.Target{Argv: []string{"srv"}}.Detect(0, "").Transport).To(Equal("stdio"))
		Expect(target.Target{Argv: []string{"srv", "{port}"}, Transport: "http"}.Detect(0, "").Detected).To(BeEmpty())
	})
})
