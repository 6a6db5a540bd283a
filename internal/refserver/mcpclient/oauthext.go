package mcpclient

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/wirecheck/wirecheck/internal/pkce"
)

// RFC 7523's grant type and client assertion type.
const (
	grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	assertionType  = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// The reference client under MCP's authorization extensions: given
// credentials out of band (the environment below, which a run fills from
// its {client_id}, {client_secret}, {client_key} and {assertion}), it
// takes the grant the authorization server's metadata offers for them
// instead of a user's authorization: the client credentials grant
// (SEP-1046; a client assertion signed with its key by default, its
// secret under the variants cc-secret-basic and cc-secret-post) or the
// JWT bearer grant with its workload's JWT (SEP-1933).

// The environment the reference client reads its credentials from (a
// run fills them from the words its listener provisions).
const (
	// The pre-registered client's: under the variants preregistered*
	// (registration.go) and the client-credentials and enterprise-managed
	// extensions.
	EnvClientID     = "MCP_CLIENT_ID"
	EnvClientSecret = "MCP_CLIENT_SECRET"
	// EnvClientIssuer, set, is the issuer of the authorization server the
	// pre-registered credentials belong to; unset, the first the client
	// meets.
	EnvClientIssuer = "MCP_CLIENT_ISSUER"
	EnvClientKey    = "MCP_CLIENT_KEY"
	EnvAssertion    = "MCP_WORKLOAD_JWT"
	// Enterprise-managed authorization's: the user's ID token from single
	// sign-on, the IdP's token endpoint, the client's id there.
	EnvIDToken          = "MCP_ID_TOKEN"
	EnvIdPTokenEndpoint = "MCP_IDP_TOKEN_ENDPOINT"
	EnvIdPClientID      = "MCP_IDP_CLIENT_ID"
)

// creds are the credentials the client was given.
type creds struct {
	id, secret, issuer         string
	assertion                  string
	idToken, idpToken, idpUser string
	key                        *ecdsa.PrivateKey
}

func credsFromEnv() creds {
	c := creds{id: os.Getenv(EnvClientID), secret: os.Getenv(EnvClientSecret), issuer: os.Getenv(EnvClientIssuer), assertion: os.Getenv(EnvAssertion),
		idToken: os.Getenv(EnvIDToken), idpToken: os.Getenv(EnvIdPTokenEndpoint), idpUser: os.Getenv(EnvIdPClientID)}
	if b, _ := pem.Decode([]byte(os.Getenv(EnvClientKey))); b != nil {
		if k, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
			c.key, _ = k.(*ecdsa.PrivateKey)
		}
	}
	return c
}

// extensionGrant gets a token by an extension's grant when the metadata
// offers one the client has credentials for; false when none applies.
func (l *link) extensionGrant(grants, methods []string, tokenEndpoint, issuer, scope string) (bool, error) {
	has := func(g string) bool { return slices.Contains(grants, g) }
	// An authorization server that takes the JWT bearer grant from
	// clients that authenticate takes an ID-JAG (enterprise-managed
	// authorization); one that takes it from none, a workload's JWT.
	authenticated := slices.Contains(methods, "client_secret_basic") || slices.Contains(methods, "client_secret_post")
	c := l.creds
	form := url.Values{}
	var basic *[2]string
	switch {
	case has("client_credentials") && c.id != "":
		form.Set("grant_type", "client_credentials")
		if l.fault["cc-wrong-grant"] {
			form.Set("grant_type", "authorization_code")
		}
		switch {
		case l.fault["cc-no-auth"]:
			form.Set("client_id", c.id)
		case l.variant["cc-secret-basic"]:
			basic = &[2]string{url.QueryEscape(c.id), url.QueryEscape(c.secret)}
		case l.variant["cc-secret-post"]:
			form.Set("client_id", c.id)
			form.Set("client_secret", c.secret)
		default:
			a, err := l.clientAssertion(issuer, tokenEndpoint)
			if err != nil {
				return true, err
			}
			form.Set("client_assertion_type", assertionType)
			if l.fault["cc-assertion-type"] {
				form.Set("client_assertion_type", "jwt")
			}
			form.Set("client_assertion", a)
		}
	case has(grantJWTBearer) && authenticated && c.idToken != "" && c.idpToken != "" && c.id != "":
		jag, err := l.exchange(issuer, scope)
		if err != nil {
			return true, err
		}
		if l.fault["ema-id-token-as-grant"] {
			jag = c.idToken
		}
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", jag)
		switch {
		case l.fault["ema-no-client-auth"]:
		case l.variant["ema-secret-post"]:
			form.Set("client_id", c.id)
			form.Set("client_secret", c.secret)
		default:
			basic = &[2]string{url.QueryEscape(c.id), url.QueryEscape(c.secret)}
		}
	case has(grantJWTBearer) && !authenticated && c.assertion != "":
		form.Set("grant_type", grantJWTBearer)
		if l.fault["wif-wrong-grant"] {
			form.Set("grant_type", "client_credentials")
		}
		a := c.assertion
		if l.fault["wif-assertion-altered"] {
			// Its own copy, re-encoded: the signature no longer matches.
			a = a[:len(a)-4] + "AAAA"
		}
		if !l.fault["wif-no-assertion"] {
			form.Set("assertion", a)
		}
	default:
		return false, nil
	}
	if !l.fault["no-resource"] {
		form.Set("resource", l.url.String())
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := l.postForm(tokenEndpoint, form, basic, &tok); err != nil || tok.AccessToken == "" {
		return true, fmt.Errorf("token request (%s): %v", form.Get("grant_type"), err)
	}
	l.mu.Lock()
	l.token = tok.AccessToken
	l.mu.Unlock()
	return true, nil
}

// exchange trades the user's ID token at the IdP for an ID-JAG for the
// authorization server and this MCP server (RFC 8693, SEP-990 §4).
func (l *link) exchange(issuer, scope string) (string, error) {
	c := l.creds
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"}, "audience": {issuer},
		"resource": {l.url.String()}, "subject_token": {c.idToken}, "subject_token_type": {"urn:ietf:params:oauth:token-type:id_token"}}
	if c.idpUser != "" {
		form.Set("client_id", c.idpUser)
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	if l.fault["ema-exchange-no-resource"] {
		form.Del("resource")
	}
	var out struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := l.postForm(c.idpToken, form, nil, &out); err != nil || out.AccessToken == "" {
		return "", fmt.Errorf("token exchange at the IdP: %v", err)
	}
	return out.AccessToken, nil
}

// clientAssertion is RFC 7523 §2.2's client assertion: iss and sub the
// client's id, aud the authorization server's issuer, five minutes' life.
func (l *link) clientAssertion(issuer, tokenEndpoint string) (string, error) {
	c := l.creds
	if c.key == nil {
		return "", errors.New("no client key (" + EnvClientKey + ") to sign a client assertion with")
	}
	now := time.Now()
	claims := map[string]any{"iss": c.id, "sub": c.id, "aud": issuer, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": pkce.Random(12)}
	if l.variant["cc-aud-token-endpoint"] {
		claims["aud"] = tokenEndpoint
	}
	if l.fault["cc-jwt-sub"] {
		claims["sub"] = "wirecheck-someone-else"
	}
	if l.fault["cc-jwt-aud"] {
		claims["aud"] = l.url.String()
	}
	return signES256(c.key, claims)
}

// signES256 is a compact JWS of claims, ES256, typ JWT.
func signES256(k *ecdsa.PrivateKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}
