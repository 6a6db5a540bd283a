package mcpauthz_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/oauthtest"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
)

// The extension grants: what the server takes and what it refuses, each
// refusal for the reason a client under test would be refused.
var _ = Describe("the reference authorization server's extension grants", func() {
	const resource = "https://mcp.example/mcp"
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		Expect(err).NotTo(HaveOccurred())
		return k
	}
	sign := func(k *ecdsa.PrivateKey, c jwt.Claims) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType("JWT"))
		Expect(err).NotTo(HaveOccurred())
		t, err := jwt.Signed(s).Claims(c).Serialize()
		Expect(err).NotTo(HaveOccurred())
		return t
	}
	post := oauthtest.PostJSON

	Describe("client credentials", func() {
		var (
			srv *httptest.Server
			as  *mcpauthz.Server
			ck  *ecdsa.PrivateKey
		)
		BeforeEach(func() {
			ck = key()
			var err error
			as, err = mcpauthz.New(mcpauthz.Options{Grants: []string{mcpauthz.GrantClientCredentials},
				Clients: []mcpauthz.Client{{ID: "cc", Secret: "s3cret", Key: &ck.PublicKey}}})
			Expect(err).NotTo(HaveOccurred())
			srv = httptest.NewServer(as)
			DeferCleanup(srv.Close)
		})
		claims := func(aud string, exp time.Duration) jwt.Claims {
			now := time.Now()
			return jwt.Claims{Issuer: "cc", Subject: "cc", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(now.Add(exp)), IssuedAt: jwt.NewNumericDate(now)}
		}
		form := func(assertion string) url.Values {
			return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {mcpauthz.ClientAssertionType},
				"client_assertion": {assertion}, "resource": {resource}}
		}

		It("lists the grant and the methods, and no registration", func() {
			resp, err := http.Get(srv.URL + "/.well-known/oauth-authorization-server")
			Expect(err).NotTo(HaveOccurred())
			var m map[string]any
			Expect(json.NewDecoder(resp.Body).Decode(&m)).To(Succeed())
			resp.Body.Close()
			Expect(m["grant_types_supported"]).To(ConsistOf("client_credentials"))
			Expect(m["token_endpoint_auth_methods_supported"]).To(ContainElements("private_key_jwt", "client_secret_basic"))
			Expect(m).NotTo(HaveKey("registration_endpoint"))
		})

		It("issues a token for the resource to a client assertion signed with the client's key, and none to a refresh", func() {
			code, out := post(srv.URL+"/token", form(sign(ck, claims(srv.URL, time.Minute))))
			Expect(code).To(Equal(http.StatusOK), "%v", out)
			Expect(out).NotTo(HaveKey("refresh_token"))
			c, err := as.Verify(out["access_token"].(string), srv.URL, resource)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.ClientID).To(Equal("cc"))
		})

		It("takes the secret in HTTP Basic and in the form", func() {
			f := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}}
			code, out := post(srv.URL+"/token", f, "cc", "s3cret")
			Expect(code).To(Equal(http.StatusOK), "%v", out)
			f.Set("client_id", "cc")
			f.Set("client_secret", "s3cret")
			code, out = post(srv.URL+"/token", f)
			Expect(code).To(Equal(http.StatusOK), "%v", out)
		})

		DescribeTable("refuses invalid_client",
			func(f func() url.Values) {
				code, out := post(srv.URL+"/token", f())
				Expect(code).To(Equal(http.StatusUnauthorized))
				Expect(out["error"]).To(Equal("invalid_client"))
			},
			Entry("an assertion for another audience", func() url.Values { return form(sign(ck, claims("https://elsewhere.example", time.Minute))) }),
			Entry("an expired assertion", func() url.Values { return form(sign(ck, claims(srv.URL, -time.Hour))) }),
			Entry("an assertion signed with another key", func() url.Values { return form(sign(key(), claims(srv.URL, time.Minute))) }),
			Entry("a wrong assertion type", func() url.Values {
				f := form(sign(ck, claims(srv.URL, time.Minute)))
				f.Set("client_assertion_type", "jwt")
				return f
			}),
			Entry("no authentication", func() url.Values {
				return url.Values{"grant_type": {"client_credentials"}, "client_id": {"cc"}}
			}),
		)

		It("refuses another grant", func() {
			code, out := post(srv.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, "cc", "s3cret")
			Expect(code).To(Equal(http.StatusBadRequest))
			Expect(out["error"]).To(Equal("unsupported_grant_type"))
		})
	})

	Describe("the JWT bearer grant", func() {
		const issuer = "https://workload.example"
		It("issues a token for a trusted issuer's JWT for this server, and refuses one expired, untrusted or for another audience", func() {
			wk := key()
			as, err := mcpauthz.New(mcpauthz.Options{Grants: []string{mcpauthz.GrantJWTBearer}, Trusted: map[string]*ecdsa.PublicKey{issuer: &wk.PublicKey}})
			Expect(err).NotTo(HaveOccurred())
			srv := httptest.NewServer(as)
			defer srv.Close()
			jwtFor := func(k *ecdsa.PrivateKey, aud string, exp time.Duration) url.Values {
				c := jwt.Claims{Issuer: issuer, Subject: "workload", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(time.Now().Add(exp))}
				return url.Values{"grant_type": {mcpauthz.GrantJWTBearer}, "assertion": {sign(k, c)}, "resource": {resource}}
			}
			code, out := post(srv.URL+"/token", jwtFor(wk, srv.URL, time.Minute))
			Expect(code).To(Equal(http.StatusOK), "%v", out)
			_, err = as.Verify(out["access_token"].(string), srv.URL, resource)
			Expect(err).NotTo(HaveOccurred())
			for _, f := range []url.Values{jwtFor(wk, srv.URL, -time.Hour), jwtFor(key(), srv.URL, time.Minute), jwtFor(wk, "https://elsewhere.example", time.Minute),
				{"grant_type": {mcpauthz.GrantJWTBearer}}} {
				code, out = post(srv.URL+"/token", f)
				Expect(code).To(Equal(http.StatusBadRequest))
				Expect(out["error"]).To(Equal("invalid_grant"))
			}
		})
	})

	Describe("enterprise-managed authorization", func() {
		It("exchanges an ID token it issued for an ID-JAG, which the authorization server takes from the authenticated client it names", func() {
			ik := key()
			// The issuers are the test server's URL: known once it listens.
			mux := http.NewServeMux()
			srv := httptest.NewServer(mux)
			defer srv.Close()
			as, err := mcpauthz.New(mcpauthz.Options{Grants: []string{mcpauthz.GrantJWTBearer}, IDJAG: true,
				Clients: []mcpauthz.Client{{ID: "app", Secret: "s3cret"}}, Trusted: map[string]*ecdsa.PublicKey{srv.URL + "/idp": &ik.PublicKey}})
			Expect(err).NotTo(HaveOccurred())
			idp, err := mcpauthz.NewIdP(mcpauthz.IdPOptions{Path: "/idp", Key: ik, Audience: "sso-app", ClientID: "app"})
			Expect(err).NotTo(HaveOccurred())
			mux.Handle("/idp/", idp)
			mux.Handle("/", as)

			idToken := sign(ik, jwt.Claims{Issuer: srv.URL + "/idp", Subject: "alice", Audience: jwt.Audience{"sso-app"}, Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))})
			exchange := url.Values{"grant_type": {mcpauthz.GrantTokenExchange}, "requested_token_type": {mcpauthz.TokenTypeIDJAG},
				"audience": {srv.URL}, "resource": {resource}, "subject_token": {idToken}, "subject_token_type": {mcpauthz.TokenTypeIDToken}}
			code, out := post(srv.URL+"/idp/token", exchange)
			Expect(code).To(Equal(http.StatusOK), "%v", out)
			Expect(out["issued_token_type"]).To(Equal(mcpauthz.TokenTypeIDJAG))
			jag := out["access_token"].(string)

			grant := url.Values{"grant_type": {mcpauthz.GrantJWTBearer}, "assertion": {jag}, "resource": {resource}}
			code, out = post(srv.URL+"/token", grant)
			Expect(code).To(Equal(http.StatusUnauthorized), "no client authentication: %v", out)
			code, out = post(srv.URL+"/token", url.Values{"grant_type": {mcpauthz.GrantJWTBearer}, "assertion": {idToken}}, "app", "s3cret")
			Expect(code).To(Equal(http.StatusBadRequest), "an ID token is no ID-JAG: %v", out)
			code, out = post(srv.URL+"/token", grant, "app", "s3cret")
			Expect(code).To(Equal(http.StatusOK), "%v", out)
			_, err = as.Verify(out["access_token"].(string), srv.URL, resource)
			Expect(err).NotTo(HaveOccurred())

			exchange.Del("resource")
			code, _ = post(srv.URL+"/idp/token", exchange)
			Expect(code).To(Equal(http.StatusBadRequest))
		})
	})
})
