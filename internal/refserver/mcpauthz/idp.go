package mcpauthz

import (
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/wirecheck/wirecheck/internal/pkce"
)

// IdP is a mock enterprise identity provider of the enterprise-managed
// authorization extension (SEP-990, ext-auth's
// enterprise-managed-authorization.mdx): its token endpoint takes an
// RFC 8693 token exchange of a user's ID token it issued for an
// Identity Assertion JWT Authorization Grant (ID-JAG), which the
// authorization server (Options.IDJAG) takes with the JWT bearer grant.
// Every request is approved that is well formed: no policy.
type IdP struct {
	o      IdPOptions
	signer jose.Signer
}

// IdPOptions configure an IdP.
type IdPOptions struct {
	// Path is the issuer's path ("/idp"); the issuer is http://HOST
	// followed by it, the token endpoint Path+"/token".
	Path string
	// Key signs the ID tokens (the client was given one) and the ID-JAGs.
	Key *ecdsa.PrivateKey
	// Audience is the ID tokens' aud: the client's id at the IdP.
	Audience string
	// ClientID is the client's id at the authorization server, which an
	// ID-JAG names (SEP-990 §6.1: the IdP knows it out of band).
	ClientID string
	// Observe, set, is shown every request, after it was answered.
	Observe func(Request)
}

// The token types and grant of RFC 8693 and SEP-990.
const (
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	// TypIDJAG is an ID-JAG's JWT typ.
	TypIDJAG = "oauth-id-jag+jwt"
)

// NewIdP makes an IdP.
func NewIdP(o IdPOptions) (*IdP, error) {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: o.Key}, (&jose.SignerOptions{}).WithType(TypIDJAG))
	if err != nil {
		return nil, err
	}
	return &IdP{o: o, signer: s}, nil
}

func (p *IdP) issuer(r *http.Request) string { return "http://" + r.Host + p.o.Path }

// ServeHTTP serves the token endpoint.
func (p *IdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	req := Request{Endpoint: "idp-token", Method: r.Method, URL: r.URL, Header: r.Header.Clone()}
	if p.o.Observe != nil {
		defer func() { req.Status = rec.status; p.o.Observe(req) }()
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if r.URL.Path != p.o.Path+"/token" {
		req.Endpoint = ""
		http.NotFound(rec, r)
		return
	}
	fail := func(status int, code, why string) {
		writeJSON(rec, status, map[string]string{"error": code, "error_description": why}, true)
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fail(http.StatusBadRequest, "invalid_request", "POST a form")
		return
	}
	f := r.PostForm
	req.Form = f
	switch {
	case f.Get("grant_type") != GrantTokenExchange:
		fail(http.StatusBadRequest, "unsupported_grant_type", "only "+GrantTokenExchange)
		return
	case f.Get("requested_token_type") != TokenTypeIDJAG, f.Get("subject_token_type") != TokenTypeIDToken,
		f.Get("audience") == "", f.Get("resource") == "", f.Get("subject_token") == "":
		fail(http.StatusBadRequest, "invalid_request", "requested_token_type "+TokenTypeIDJAG+", subject_token_type "+TokenTypeIDToken+", audience, resource and subject_token are required")
		return
	}
	tok, err := jwt.ParseSigned(f.Get("subject_token"), []jose.SignatureAlgorithm{jose.ES256})
	var c jwt.Claims
	if err == nil {
		err = tok.Claims(&p.o.Key.PublicKey, &c)
	}
	if err == nil {
		err = c.ValidateWithLeeway(jwt.Expected{Issuer: p.issuer(r), AnyAudience: jwt.Audience{p.o.Audience}, Time: time.Now()}, leeway)
	}
	if err != nil {
		fail(http.StatusBadRequest, "invalid_grant", fmt.Sprintf("subject_token: %v", err))
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.issuer(r), "sub": c.Subject, "aud": f.Get("audience"), "resource": f.Get("resource"),
		"client_id": p.o.ClientID, "jti": pkce.Random(12), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	if sc := strings.TrimSpace(f.Get("scope")); sc != "" {
		claims["scope"] = sc
	}
	jag, err := jwt.Signed(p.signer).Claims(claims).Serialize()
	if err != nil {
		fail(http.StatusInternalServerError, "server_error", "signing failed")
		return
	}
	writeJSON(rec, http.StatusOK, map[string]any{"issued_token_type": TokenTypeIDJAG, "access_token": jag, "token_type": "N_A", "expires_in": 300}, true)
}
