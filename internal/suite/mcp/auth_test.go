package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("a server that requires a token, run without one", func() {
	DescribeTable("fails none of its rules (401 is what the authorization pages ask), and every error says to pass a token",
		func(variant, revision, authRule string) {
			// The reference server with the variant auth (or bearer-key): correct, and it
			// answers every request without credentials 401 (basic/
			// authorization), so a run without --header learns nothing but
			// its authorization rules. Found by internal/bench/alonecheck:
			// each such 401 failed MCP-JSONRPC-5, and over the legacy
			// transport MCP-SSE-1.
			t, stop := testrun.Front(refserver.Options{Variants: []string{variant}}, nil)
			DeferCleanup(stop)
			b, err := protocols.Load("mcp")
			Expect(err).NotTo(HaveOccurred())
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: revision, Command: t},
				runner.Config{Scenarios: b.Scenarios, Timeout: 5 * time.Second})
			Expect(err).NotTo(HaveOccurred())
			var errs []string
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(Equal(verdict.Fail), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
				if f.Verdict == verdict.Error {
					errs = append(errs, f.Message)
				}
			}
			Expect(errs).NotTo(BeEmpty())
			Expect(strings.Join(errs, "\n")).To(ContainSubstring("the server requires a token and this run sent none: pass one with --header"))
			v, msg := finding(rep, authRule)
			Expect(v).To(Equal(verdict.Pass), "the authorization rules are judged without a token: %s", msg)
		},
		Entry("2025-06-18", "auth", "2025-06-18", "MCP-AUTH-5"),
		// server/discover refused 401 says nothing of the revision the
		// server speaks: MCP-DISCOVER-1 is skipped (it failed, found by
		// alonecheck in session 11).
		Entry("2026-07-28", "auth", "2026-07-28", "MCP-AUTH-2"),
		// An API key as a Bearer token, no OAuth published: MCP-AUTH-5
		// failed it.
		Entry("bearer-key 2025-06-18", "bearer-key", "2025-06-18", "MCP-AUTH-2"),
	)
})

var _ = Describe("a server that checks an API key as a Bearer token and publishes nothing of OAuth", func() {
	// Authorization is OPTIONAL, and MCP's is OAuth: the variant
	// bearer-key answers 401 with a bare "WWW-Authenticate: Bearer" and
	// serves no metadata. It failed MCP-AUTH-5 and -14 (MUST) and -13
	// (SHOULD), as every API-key server did.
	oauthRules := []string{"MCP-AUTH-5", "MCP-AUTH-6", "MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10", "MCP-AUTH-11", "MCP-AUTH-12", "MCP-AUTH-13", "MCP-AUTH-14"}
	DescribeTable("is judged by the 401 rules alone, the OAuth discovery rules skipped saying why",
		func(revision string, headers []string) {
			t, stop := testrun.Front(refserver.Options{Variants: []string{"bearer-key"}}, nil)
			DeferCleanup(stop)
			t.Headers = headers
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: revision, Command: t},
				runner.Config{Scenarios: named("http-auth"), Partial: true, Timeout: 5 * time.Second})
			Expect(err).NotTo(HaveOccurred())
			v := testrun.Verdicts(rep)
			for _, r := range []string{"MCP-AUTH-1", "MCP-AUTH-2", "MCP-AUTH-3", "MCP-AUTH-4"} {
				_, msg := finding(rep, r)
				Expect(v[r]).To(Equal(verdict.Pass), "%s: %s", r, msg)
			}
			if revision == "2025-03-26" {
				Expect(v["MCP-AUTH-7"]).To(Equal(verdict.Pass), "the 401 carries a challenge")
			}
			b, err := protocols.Load("mcp")
			Expect(err).NotTo(HaveOccurred())
			judged := 0
			for _, r := range oauthRules {
				rule := b.Protocol.Rule(r)
				Expect(rule).NotTo(BeNil())
				if !rule.AppliesTo(revision) {
					continue
				}
				judged++
				got, msg := finding(rep, r)
				Expect(got).To(Equal(verdict.Skip), "%s: %s", r, msg)
				Expect(msg).To(ContainSubstring("no sign of OAuth"), r)
			}
			Expect(judged).To(BeNumerically(">", 0), "the revision has OAuth rules to skip")
		},
		Entry("2025-03-26 with the key", "2025-03-26", []string{"Authorization: Bearer " + refmcp.Token}),
		Entry("2025-03-26 without", "2025-03-26", nil),
		Entry("2025-06-18 with the key", "2025-06-18", []string{"Authorization: Bearer " + refmcp.Token}),
		Entry("2025-06-18 without", "2025-06-18", nil),
		Entry("2025-11-25 with the key", "2025-11-25", []string{"Authorization: Bearer " + refmcp.Token}),
		Entry("2026-07-28 without", "2026-07-28", nil),
	)

	It("is judged by OAuth's rules once it serves authorization server metadata (here OpenID Connect's)", func() {
		// The same server with an OpenID Connect discovery document at its
		// origin advertises OAuth: its bare challenge then breaks MCP-AUTH-5.
		t, stop := testrun.Front(refserver.Options{Variants: []string{"bearer-key"}}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.URL.Path != "/.well-known/openid-configuration" {
				return w
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"issuer":"https://auth.wirecheck.invalid","authorization_endpoint":"https://auth.wirecheck.invalid/authorize","token_endpoint":"https://auth.wirecheck.invalid/token","response_types_supported":["code"]}`))
			return nil
		})
		DeferCleanup(stop)
		t.Headers = []string{"Authorization: Bearer " + refmcp.Token}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Command: t},
			runner.Config{Scenarios: named("http-auth"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-AUTH-5")
		Expect(v).To(Equal(verdict.Fail), msg)
		Expect(msg).To(ContainSubstring("advertises OAuth (authorization server metadata at "))
		Expect(msg).To(ContainSubstring("/.well-known/openid-configuration"))
	})
})

var _ = Describe("a launched server whose challenge names its metadata on another host (variant auth-metadata-elsewhere)", func() {
	// docs/design.md, "What done means" 8: wirecheck sends nothing beyond
	// loopback unless the user named the address. Until issue 25 the
	// http-auth scenario fetched the challenge's resource_metadata
	// wherever it pointed, and a host that did not answer failed
	// MCP-AUTH-8 ("no answer"): the server blamed for where it publishes.
	DescribeTable("is not followed off the machine: the document's rules skip naming the address, nothing fails or errs",
		func(revision, discovery string) {
			if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
				Skip("the reference server is launched through a POSIX shell's PATH")
			}
			bin, err := testbin.Wirecheck()
			Expect(err).NotTo(HaveOccurred())
			t := target.Target{Argv: []string{bin, "serve", "mcp", "--http", "127.0.0.1:{port}", "--variant", "auth-metadata-elsewhere"},
				Transport: "http", Headers: []string{"Authorization: Bearer " + refmcp.Token}}
			rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: revision, Command: t},
				runner.Config{Scenarios: named("http-auth"), Partial: true, Timeout: 5 * time.Second, StartupTimeout: time.Minute})
			Expect(err).NotTo(HaveOccurred())
			for _, f := range rep.Findings {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s: %s", f.Rule, f.Message)
			}
			v := testrun.Verdicts(rep)
			at := refmcp.ElsewhereMetadata + "/mcp"
			_, msg := finding(rep, discovery)
			Expect(v[discovery]).To(Equal(verdict.Pass), "the challenge names the metadata: %s", msg)
			for _, r := range []string{"MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10"} {
				got, msg := finding(rep, r)
				Expect(got).To(Equal(verdict.Skip), "%s: %s", r, msg)
				Expect(msg).To(Equal("the server names " + at + ", off this machine: wirecheck sends nothing beyond loopback to a server it launched; run the server yourself and name it with --url to follow it"))
			}
		},
		Entry("2025-06-18", "2025-06-18", "MCP-AUTH-5"),
		Entry("2025-11-25", "2025-11-25", "MCP-AUTH-6"),
	)
})

var _ = Describe("a server reached by --url whose challenge names its metadata on a host that does not answer", func() {
	It("follows the link, and with no answer from there skips the document's rules saying so: silence elsewhere is no evidence against the server", func() {
		// A host this machine cannot reach may serve the server's
		// clients. Until issue 25 the silence failed MCP-AUTH-8.
		gone := httptest.NewServer(http.NotFoundHandler())
		at := gone.URL + "/.well-known/oauth-protected-resource/mcp"
		gone.Close()
		t, stop := testrun.Front(refserver.Options{Variants: []string{"auth"}}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Header.Get("Authorization") != "" || strings.HasPrefix(r.URL.Path, "/.well-known/") {
				return w
			}
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+at+`", scope="mcp"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return nil
		})
		DeferCleanup(stop)
		t.Headers = []string{"Authorization: Bearer " + refmcp.Token}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Command: t},
			runner.Config{Scenarios: named("http-auth"), Partial: true, Timeout: 5 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		for _, f := range rep.Findings {
			Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "%s: %s", f.Rule, f.Message)
		}
		Expect(testrun.Verdicts(rep)["MCP-AUTH-5"]).To(Equal(verdict.Pass))
		for _, r := range []string{"MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10"} {
			got, msg := finding(rep, r)
			Expect(got).To(Equal(verdict.Skip), "%s: %s", r, msg)
			Expect(msg).To(HavePrefix("the server names " + at + ", on another host than its endpoint, and it gave no answer from this machine ("))
			Expect(msg).To(HaveSuffix("): its document is not judged"))
		}
	})
})
