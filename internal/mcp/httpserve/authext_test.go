package httpserve_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/oauthtest"
	"github.com/wirecheck/wirecheck/internal/testhooks"
)

// The extensions' checks against token requests made by hand: each way an
// assertion can be wrong is told apart from the right one, including
// those the reference client has no fault for (an expired JWT, one for
// another audience), which a client presenting what it was given cannot
// show.
var _ = Describe("the server judging the authorization extensions' token requests", func() {
	token := func(s *httpserve.Server, form url.Values, basic ...string) int {
		GinkgoHelper()
		code, _ := oauthtest.Post(strings.TrimSuffix(s.Endpoint(), "/mcp")+httpserve.ASPath+"/token", form, basic...)
		return code
	}
	guarded := func(ext string) (*httpserve.Server, *testhooks.Recorder, httpserve.Provisions) {
		s, rec := listen(false, httpserve.Settings{})
		p := s.Provisioned()
		protect(s, httpserve.Auth{Extension: ext, Provisions: p})
		return s, rec, p
	}
	issuer := func(s *httpserve.Server) string { return strings.TrimSuffix(s.Endpoint(), "/mcp") + httpserve.ASPath }
	assertion := func(k *ecdsa.PrivateKey, iss, sub, aud string, exp time.Duration) string {
		a, err := httpserve.SignES256(k, map[string]any{"iss": iss, "sub": sub, "aud": aud, "exp": time.Now().Add(exp).Unix()}, "JWT")
		Expect(err).NotTo(HaveOccurred())
		return a
	}

	It("gives the client the words of its provisions, the key as PEM, the issuer its pre-registered client belongs to", func() {
		s, _ := listen(false, httpserve.Settings{})
		w := s.Provisions()
		Expect(w).To(HaveKeyWithValue(httpserve.WordClientID, s.Provisioned().ClientID))
		Expect(w).To(HaveKeyWithValue(httpserve.WordClientSecret, s.Provisioned().ClientSecret))
		Expect(w).To(HaveKeyWithValue(httpserve.WordIssuer, issuer(s)))
		Expect(w[httpserve.WordClientKey]).To(HavePrefix("-----BEGIN PRIVATE KEY-----"))
		Expect(w[httpserve.WordAssertion]).To(Equal(s.Provisioned().Assertion))
	})

	// {client_id} and {client_secret} are one client in every scenario:
	// outside the extensions a token request of that id is judged to carry
	// its secret (MCP-CLIENT-REG-5); under one, the extension's rules judge
	// how it authenticates, and a client assertion needs no secret.
	It("judges the pre-registered client's secret outside the extensions alone", func() {
		s, rec := listen(false, httpserve.Settings{})
		p := s.Provisioned()
		protect(s, httpserve.Auth{Provisions: p})
		code := url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "code_verifier": {"v"}}
		token(s, code, p.ClientID, p.ClientSecret)
		Expect(rec.PassedOnly(httpserve.CheckRegPreregistered)).To(BeTrue())
		code.Set("client_id", p.ClientID)
		token(s, code)
		Expect(rec.Failed(httpserve.CheckRegPreregistered)).To(BeTrue())

		s, rec, p = guarded(httpserve.ExtClientCredentials)
		Expect(token(s, url.Values{"grant_type": {"client_credentials"}, "client_id": {p.ClientID}, "client_assertion_type": {httpserve.AssertionType},
			"client_assertion": {assertion(p.ClientKey, p.ClientID, p.ClientID, issuer(s), time.Minute)}})).To(Equal(http.StatusOK))
		Expect(rec.PassedOnly(httpserve.CheckCCAuth)).To(BeTrue())
		Expect(rec.Verdicts(httpserve.CheckRegPreregistered)).To(BeEmpty())
	})

	DescribeTable("a client credentials request",
		func(make func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string), check string, pass bool, status int) {
			s, rec, p := guarded(httpserve.ExtClientCredentials)
			form, basic := make(s, p)
			Expect(token(s, form, basic...)).To(Equal(status))
			if pass {
				Expect(rec.PassedOnly(check)).To(BeTrue(), check)
			} else {
				Expect(rec.Failed(check)).To(BeTrue(), check)
			}
		},
		Entry("with a right client assertion", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {httpserve.AssertionType},
				"client_assertion": {assertion(p.ClientKey, p.ClientID, p.ClientID, issuer(s), time.Minute)}}, nil
		}, httpserve.CheckCCAssertion, true, http.StatusOK),
		Entry("with an expired client assertion", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {httpserve.AssertionType},
				"client_assertion": {assertion(p.ClientKey, p.ClientID, p.ClientID, issuer(s), -time.Hour)}}, nil
		}, httpserve.CheckCCAssertion, false, http.StatusUnauthorized),
		Entry("with a client assertion signed by another key", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {httpserve.AssertionType},
				"client_assertion": {assertion(k, p.ClientID, p.ClientID, issuer(s), time.Minute)}}, nil
		}, httpserve.CheckCCAssertion, false, http.StatusUnauthorized),
		Entry("with a client assertion whose iss is not the client", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {httpserve.AssertionType},
				"client_assertion": {assertion(p.ClientKey, "someone", p.ClientID, issuer(s), time.Minute)}}, nil
		}, httpserve.CheckCCClaims, false, http.StatusUnauthorized),
		Entry("with the secret in HTTP Basic", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"client_credentials"}}, []string{p.ClientID, p.ClientSecret}
		}, httpserve.CheckCCAuth, true, http.StatusOK),
		Entry("with another secret in the form", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"client_credentials"}, "client_id": {p.ClientID}, "client_secret": {"guess"}}, nil
		}, httpserve.CheckCCAuth, false, http.StatusUnauthorized),
		Entry("of the authorization code grant", func(s *httpserve.Server, p httpserve.Provisions) (url.Values, []string) {
			return url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, []string{p.ClientID, p.ClientSecret}
		}, httpserve.CheckCCGrant, false, http.StatusBadRequest),
	)

	DescribeTable("a JWT bearer request",
		func(make func(s *httpserve.Server, p httpserve.Provisions) string, pass bool, status int) {
			s, rec, p := guarded(httpserve.ExtWorkloadIdentity)
			Expect(token(s, url.Values{"grant_type": {httpserve.GrantJWTBearer}, "assertion": {make(s, p)}})).To(Equal(status))
			Expect(rec.PassedOnly(httpserve.CheckWIFGrant)).To(BeTrue())
			if pass {
				Expect(rec.PassedOnly(httpserve.CheckWIFAssertion)).To(BeTrue())
			} else {
				Expect(rec.Failed(httpserve.CheckWIFAssertion)).To(BeTrue())
			}
		},
		Entry("with the workload's JWT", func(s *httpserve.Server, p httpserve.Provisions) string { return p.Assertion }, true, http.StatusOK),
		Entry("with an expired one", func(s *httpserve.Server, p httpserve.Provisions) string {
			return assertion(p.WorkloadKey, p.WorkloadIssuer, "w", issuer(s), -time.Hour)
		}, false, http.StatusBadRequest),
		Entry("with one for another audience", func(s *httpserve.Server, p httpserve.Provisions) string {
			return assertion(p.WorkloadKey, p.WorkloadIssuer, "w", "https://elsewhere.example", time.Minute)
		}, false, http.StatusBadRequest),
		Entry("with none", func(s *httpserve.Server, p httpserve.Provisions) string { return "" }, false, http.StatusBadRequest),
	)

	It("judges enterprise-managed authorization's token exchange and ID-JAG grant", func() {
		s, rec, p := guarded(httpserve.ExtEnterpriseManaged)
		base := strings.TrimSuffix(s.Endpoint(), "/mcp")
		exchange := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
			"audience": {issuer(s)}, "resource": {s.Endpoint()}, "subject_token": {p.IDToken}, "subject_token_type": {"urn:ietf:params:oauth:token-type:id_token"}}
		post := oauthtest.PostJSON
		code, out := post(base+httpserve.IdPPath+"/token", exchange)
		Expect(code).To(Equal(http.StatusOK))
		jag, _ := out["access_token"].(string)
		Expect(rec.PassedOnly(httpserve.CheckEMAExchange)).To(BeTrue())
		code, _ = post(base+httpserve.ASPath+"/token", url.Values{"grant_type": {httpserve.GrantJWTBearer}, "assertion": {jag}, "resource": {s.Endpoint()}}, p.ClientID, p.ClientSecret)
		Expect(code).To(Equal(http.StatusOK))
		Expect(rec.PassedOnly(httpserve.CheckEMAGrant)).To(BeTrue())

		// The ID token itself is no ID-JAG; an exchange for another
		// audience misstates it.
		code, _ = post(base+httpserve.ASPath+"/token", url.Values{"grant_type": {httpserve.GrantJWTBearer}, "assertion": {p.IDToken}}, p.ClientID, p.ClientSecret)
		Expect(code).To(Equal(http.StatusBadRequest))
		Expect(rec.Failed(httpserve.CheckEMAGrant)).To(BeTrue())
		exchange.Set("audience", "https://elsewhere.example")
		post(base+httpserve.IdPPath+"/token", exchange)
		Expect(rec.Failed(httpserve.CheckEMAExchange)).To(BeTrue())
	})

	// A JWT the IdP signed for this server, unexpired, is still no ID-JAG
	// without its typ: only the typ tells it from the IdP's other tokens.
	It("judges a JWT bearer assertion the IdP signed for this server no ID-JAG by its typ alone", func() {
		s, rec, p := guarded(httpserve.ExtEnterpriseManaged)
		jwt := assertion(p.IdPKey, p.IdPIssuer, "wirecheck-user", issuer(s), time.Minute)
		Expect(token(s, url.Values{"grant_type": {httpserve.GrantJWTBearer}, "assertion": {jwt}, "resource": {s.Endpoint()}}, p.ClientID, p.ClientSecret)).To(Equal(http.StatusBadRequest))
		Expect(rec.Failed(httpserve.CheckEMAGrant)).To(BeTrue())
		Expect(rec.Failure(httpserve.CheckEMAGrant)).To(ContainSubstring(`its typ is "JWT", not oauth-id-jag+jwt`))
	})
})
