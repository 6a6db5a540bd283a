package mcpauthz

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The grants of MCP's authorization extensions (modelcontextprotocol/
// ext-auth): the client credentials grant of the client-credentials
// extension (SEP-1046), its client authenticating with a client
// assertion (RFC 7523 §2.2, private_key_jwt) or its secret (HTTP Basic or
// the form), and RFC 7523 §2.1's JWT bearer grant of workload identity
// federation (SEP-1933), whose assertion is a JWT of an issuer the server
// trusts. Options.Grants switches them on, and the authorization-code
// grant off.

// The grant types and client assertion type of RFC 6749 §4.4 and RFC 7523.
const (
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	ClientAssertionType    = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// leeway is the clock skew an assertion's exp and nbf are given.
const leeway = 30 * time.Second

// extensionMetadata makes the metadata of a server of the extension
// grants: those grants alone, no registration (SEP-1046: "Dynamic Client
// Registration is not used in this flow"). The authorization endpoint
// stays listed, though no grant listed uses it (RFC 8414 lets it go
// then): clients read metadata without it as broken (the TypeScript
// SDK's schema requires it), and the server a client meets is to be
// the one every client can use.
func (s *Server) extensionMetadata(m map[string]any) {
	for _, k := range []string{"registration_endpoint", "client_id_metadata_document_supported"} {
		delete(m, k)
	}
	m["grant_types_supported"] = s.o.Grants
	m["token_endpoint_auth_methods_supported"] = []string{"none"}
	if s.o.IDJAG {
		m["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic", "client_secret_post"}
	}
	if slices.Contains(s.o.Grants, GrantClientCredentials) {
		m["token_endpoint_auth_methods_supported"] = []string{"private_key_jwt", "client_secret_basic", "client_secret_post"}
		m["token_endpoint_auth_signing_alg_values_supported"] = []string{string(jose.ES256)}
	}
}

// extensionGrant answers a token request of a server of the extension
// grants.
func (s *Server) extensionGrant(w http.ResponseWriter, r *http.Request, gt string) {
	f := r.PostForm
	if !slices.Contains(s.o.Grants, gt) {
		s.tokenError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported (only %v)", gt, s.o.Grants), false)
		return
	}
	g := grant{resource: f.Get("resource"), scope: f.Get("scope"), noRefresh: true}
	if rs := g.resource; rs != "" {
		if u, err := url.Parse(rs); err != nil || !u.IsAbs() || u.Fragment != "" {
			s.tokenError(w, http.StatusBadRequest, "invalid_target", "resource must be an absolute URI without a fragment", false)
			return
		}
	}
	switch gt {
	case GrantClientCredentials:
		c, basic, err := s.clientAuth(r)
		if err != nil {
			s.tokenError(w, http.StatusUnauthorized, "invalid_client", err.Error(), basic)
			return
		}
		g.client = c.ID
		s.issue(w, r, c, g)
	case GrantJWTBearer:
		var c Client
		if s.o.IDJAG {
			var basic bool
			var err error
			if c, basic, err = s.clientAuth(r); err != nil {
				s.tokenError(w, http.StatusUnauthorized, "invalid_client", err.Error(), basic)
				return
			}
		}
		sub, err := s.bearerAssertion(r, f.Get("assertion"), c.ID)
		if err != nil {
			s.tokenError(w, http.StatusBadRequest, "invalid_grant", err.Error(), false)
			return
		}
		if c.ID == "" {
			c.ID = sub
		}
		g.client = c.ID
		s.issue(w, r, c, g)
	}
}

// audiences are what an assertion's aud may name: the issuer (with or
// without a trailing slash) or the token endpoint (RFC 7523 §3: "The
// token endpoint URL of the authorization server MAY be used").
func (s *Server) audiences(r *http.Request) jwt.Audience {
	iss := s.Issuer(r)
	return jwt.Audience{iss, iss + "/", iss + "/token"}
}

// clientAuth authenticates the client of a client credentials request:
// by its assertion when it sends one, else by its secret (HTTP Basic,
// RFC 6749 §2.3.1's form-encoding undone, or the form).
func (s *Server) clientAuth(r *http.Request) (Client, bool, error) {
	f := r.PostForm
	if at, has := f["client_assertion_type"]; has {
		if len(at) != 1 || at[0] != ClientAssertionType {
			return Client{}, false, fmt.Errorf("client_assertion_type %q is not %s", at, ClientAssertionType)
		}
		tok, err := jwt.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			return Client{}, false, fmt.Errorf("client_assertion: %v", err)
		}
		var unverified jwt.Claims
		if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
			return Client{}, false, fmt.Errorf("client_assertion: %v", err)
		}
		s.mu.Lock()
		c, ok := s.clients[unverified.Subject]
		s.mu.Unlock()
		if !ok || c.Key == nil {
			return Client{}, false, fmt.Errorf("client_assertion: sub %q is no client registered with a key", unverified.Subject)
		}
		var claims jwt.Claims
		if err := tok.Claims(c.Key, &claims); err != nil {
			return Client{}, false, fmt.Errorf("client_assertion: %v", err)
		}
		if err := claims.ValidateWithLeeway(jwt.Expected{Issuer: c.ID, Subject: c.ID, AnyAudience: s.audiences(r), Time: s.o.Now()}, leeway); err != nil {
			return Client{}, false, fmt.Errorf("client_assertion: %v", err)
		}
		if claims.Expiry == nil {
			return Client{}, false, errors.New("client_assertion: no exp")
		}
		return c, false, nil
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	switch {
	case !ok:
		return Client{}, basic, fmt.Errorf("unknown client %q", id)
	case c.Secret == "" || secret != c.Secret:
		return Client{}, basic, errors.New("no client assertion, and no or the wrong client secret")
	}
	return c, basic, nil
}

// bearerAssertion verifies a JWT bearer grant's assertion: signed by an
// issuer the server trusts, for this server, not expired. It returns the
// subject the token is issued to.
// Under IDJAG the assertion is an ID-JAG for client (SEP-990 §5.1).
func (s *Server) bearerAssertion(r *http.Request, assertion, client string) (string, error) {
	if assertion == "" {
		return "", errors.New("no assertion")
	}
	tok, err := jwt.ParseSigned(assertion, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", fmt.Errorf("assertion: %v", err)
	}
	if s.o.IDJAG {
		if typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string); typ != TypIDJAG {
			return "", fmt.Errorf("assertion: typ %q is not %s", typ, TypIDJAG)
		}
		var jag struct {
			ClientID string `json:"client_id"`
		}
		if err := tok.UnsafeClaimsWithoutVerification(&jag); err != nil || jag.ClientID != client {
			return "", fmt.Errorf("assertion: client_id %q is not the client authenticated (%q)", jag.ClientID, client)
		}
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return "", fmt.Errorf("assertion: %v", err)
	}
	key := s.o.Trusted[unverified.Issuer]
	if key == nil {
		return "", fmt.Errorf("assertion: issuer %q is not trusted", unverified.Issuer)
	}
	var claims jwt.Claims
	if err := tok.Claims(key, &claims); err != nil {
		return "", fmt.Errorf("assertion: %v", err)
	}
	if err := claims.ValidateWithLeeway(jwt.Expected{Issuer: unverified.Issuer, AnyAudience: s.audiences(r), Time: s.o.Now()}, leeway); err != nil {
		return "", fmt.Errorf("assertion: %v", err)
	}
	if claims.Expiry == nil || claims.Subject == "" {
		return "", errors.New("assertion: no exp or no sub")
	}
	return claims.Subject, nil
}
