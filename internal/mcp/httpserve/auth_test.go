package httpserve_test

import (
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/suite/mcpclient"
	"github.com/wirecheck/wirecheck/internal/testhooks"
)

// protect puts a on s with the reference authorization server mounted.
func protect(s *httpserve.Server, a httpserve.Auth) {
	g, err := mcpclient.Guard(a)
	Expect(err).NotTo(HaveOccurred())
	s.Protect(g)
}

// refClientAgainst is what the reference client, with faults, was judged
// on a listener protected by a, read once the protection is lifted.
func refClientAgainst(a httpserve.Auth, faults ...string) *testhooks.Recorder {
	return refClientAgainstWith(a, refserver.Options{Faults: faults})
}

// refClientAgainstWith is refClientAgainst for the reference client run
// with o.
func refClientAgainstWith(a httpserve.Auth, o refserver.Options) *testhooks.Recorder {
	s, rec := listen(false, httpserve.Settings{})
	protect(s, a)
	refClientWith(s, o)
	s.Protect(nil)
	return rec
}

var _ = Describe("the server as a protected resource", func() {
	authChecks := []string{httpserve.CheckAuthPRM, httpserve.CheckAuthPKCE, httpserve.CheckAuthResource, httpserve.CheckAuthBearer,
		httpserve.CheckAuthPRMOrder, httpserve.CheckAuthASOrder, httpserve.CheckAuthScope}

	It("answers 401 naming its metadata, which names the authorization server it mounts", func() {
		s, _ := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp", ScopesSupported: []string{"mcp"}})
		resp, err := http.Post(s.Endpoint(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		base := strings.TrimSuffix(s.Endpoint(), "/mcp")
		Expect(resp.Header.Get("WWW-Authenticate")).To(Equal(`Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp", scope="mcp"`))
		resp, err = http.Get(base + "/.well-known/oauth-protected-resource/mcp")
		Expect(err).NotTo(HaveOccurred())
		var prm map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&prm)).To(Succeed())
		resp.Body.Close()
		Expect(prm).To(HaveKeyWithValue("resource", s.Endpoint()))
		Expect(prm).To(HaveKeyWithValue("authorization_servers", ConsistOf(base+httpserve.ASPath)))
		resp, err = http.Get(base + "/.well-known/oauth-authorization-server" + httpserve.ASPath)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	})

	It("lets a notification through until a token is issued, refusing the requests", func() {
		s, _ := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp"})
		// A client refused its notifications/initialized and reconnecting
		// after authorizing, rather than sending it again, would be judged
		// without it: the 401 is for a request.
		resp, err := http.Post(s.Endpoint(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).NotTo(Equal(http.StatusUnauthorized))
		resp, err = http.Post(s.Endpoint(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})

	It("remembers the ids of the requests it refused 401 or 404, which the client sent though the session never saw them", func() {
		s, _ := listen(false, httpserve.Settings{})
		cl := newClient(s.Endpoint())
		c, sid := initialize(cl, s)
		protect(s, httpserve.Auth{Scope: "mcp"})
		h := with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		Expect(cl.post(h, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`).StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(cl.post(h, `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`).StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(c.Sent("9")).To(BeTrue())
		Expect(c.Sent(`"a"`)).To(BeTrue())
		Expect(c.Sent("1")).To(BeTrue(), "initialize, which went through")
		Expect(c.Sent(`"9"`)).To(BeFalse(), "a string id is not the number")
		s.Protect(nil)
		Expect(cl.do(http.MethodDelete, s.Endpoint(), h, "").StatusCode).To(Equal(http.StatusOK))
		Expect(cl.post(h, `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`).StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.Sent("10")).To(BeTrue())
	})

	It("moves its metadata to the second authorization server once the first one's token passed", func() {
		s, rec := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp", Migrate: true})
		Expect(refClient(s)).To(Equal(0))
		base := strings.TrimSuffix(s.Endpoint(), "/mcp")
		resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
		Expect(err).NotTo(HaveOccurred())
		var prm map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&prm)).To(Succeed())
		resp.Body.Close()
		Expect(prm).To(HaveKeyWithValue("authorization_servers", ConsistOf(base+httpserve.AS2Path)))
		Expect(rec.PassedOnly(httpserve.CheckRegReregister)).To(BeTrue())
	})

	It("sees the reference client authorize with PKCE S256 and resource, then send its token on every request", func() {
		s, rec := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp"})
		Expect(refClient(s)).To(Equal(0))
		for _, c := range authChecks {
			Expect(rec.PassedOnly(c)).To(BeTrue(), c)
		}
	})

	DescribeTable("sees the reference client authenticate at the token endpoint as it registered",
		func(variant string) {
			s, rec := listen(false, httpserve.Settings{})
			protect(s, httpserve.Auth{Scope: "mcp"})
			Expect(refClientWith(s, refserver.Options{Variants: []string{variant}})).To(Equal(0))
			for _, c := range authChecks {
				Expect(rec.PassedOnly(c)).To(BeTrue(), c)
			}
		},
		Entry(nil, "secret-basic"),
		Entry(nil, "secret-post"),
	)

	DescribeTable("trips the check its fault breaks",
		func(fault, check string) {
			s, rec := listen(false, httpserve.Settings{})
			protect(s, httpserve.Auth{})
			refClient(s, fault)
			Expect(rec.Failed(check)).To(BeTrue(), check)
		},
		Entry(nil, "no-prm", httpserve.CheckAuthPRM),
		Entry(nil, "no-pkce", httpserve.CheckAuthPKCE),
		Entry(nil, "plain-pkce", httpserve.CheckAuthPKCE),
		Entry(nil, "no-resource", httpserve.CheckAuthResource),
		Entry(nil, "token-in-query", httpserve.CheckAuthBearer),
		Entry(nil, "prm-root-first", httpserve.CheckAuthPRMOrder),
		Entry(nil, "oidc-first", httpserve.CheckAuthASOrder),
		Entry(nil, "ignores-scope", httpserve.CheckAuthScope),
	)

	It("sees the reference client step up on 403 insufficient_scope, and stop when refused for good", func() {
		s, rec := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp:tools", StepUp: "mcp:write"})
		Expect(refClient(s)).To(Equal(0))
		Expect(rec.PassedOnly(httpserve.CheckAuthStepUp)).To(BeTrue())

		s, rec = listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{Scope: "mcp:tools", StepUp: "mcp:write", StepUpNever: true})
		Expect(refClient(s)).To(Equal(0))
		s.Protect(nil)
		Expect(rec.PassedOnly(httpserve.CheckAuthRetryLimit)).To(BeTrue())
	})

	DescribeTable("sees the reference client reject a tampered iss, and ignores-iss redeem it",
		func(iss string) {
			Expect(refClientAgainst(httpserve.Auth{Iss: iss}).PassedOnly(httpserve.CheckAuthIss)).To(BeTrue())
			Expect(refClientAgainst(httpserve.Auth{Iss: iss}, "ignores-iss").Failed(httpserve.CheckAuthIss)).To(BeTrue())
		},
		Entry(nil, httpserve.IssMissing),
		Entry(nil, httpserve.IssSlash),
	)

	It("sees the reference client refuse metadata of another issuer, and ignores-metadata-issuer use it", func() {
		Expect(refClientAgainst(httpserve.Auth{WrongIssuer: true}).PassedOnly(httpserve.CheckAuthIssuer)).To(BeTrue())
		Expect(refClientAgainst(httpserve.Auth{WrongIssuer: true}, "ignores-metadata-issuer").Failed(httpserve.CheckAuthIssuer)).To(BeTrue())
	})

	DescribeTable("trips the step-up checks with its faults",
		func(fault string, a httpserve.Auth, check string) {
			Expect(refClientAgainst(a, fault).Failed(check)).To(BeTrue(), check)
		},
		Entry(nil, "no-step-up", httpserve.Auth{StepUp: "mcp:write"}, httpserve.CheckAuthStepUp),
		Entry(nil, "retry-forever", httpserve.Auth{StepUp: "mcp:write", StepUpNever: true}, httpserve.CheckAuthRetryLimit),
	)

	DescribeTable("sees the reference client pick its scope as the revision orders",
		func(a httpserve.Auth) {
			s, rec := listen(false, httpserve.Settings{})
			protect(s, a)
			Expect(refClient(s)).To(Equal(0))
			Expect(rec.PassedOnly(httpserve.CheckAuthScope)).To(BeTrue())
		},
		Entry("the challenge's", httpserve.Auth{Scope: "a", ScopesSupported: []string{"a", "b"}}),
		Entry("scopes_supported's", httpserve.Auth{ScopesSupported: []string{"a", "b"}}),
		Entry("none", httpserve.Auth{}),
	)

	It("sees the reference client construct the path-based metadata URI first when the challenge names none", func() {
		s, rec := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{NoHint: true})
		Expect(refClient(s)).To(Equal(0))
		Expect(rec.PassedOnly(httpserve.CheckAuthPRMOrder)).To(BeTrue())
		Expect(rec.PassedOnly(httpserve.CheckAuthBearer)).To(BeTrue())
	})
})
