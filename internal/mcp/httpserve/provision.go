package httpserve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/wirecheck/wirecheck/internal/pkce"
)

// Provisions are what a client under test is given out of band, as its
// operator would give it: a pre-registered client's id and secret, which
// the authorization server of every protected scenario knows beforehand
// (MCP's pre-registration, client-auth-preregistered; the client-credentials
// extension, SEP-1046: "This flow requires pre-registered client
// credentials, which are typically established out-of-band"), with the
// issuer of that server and a signing key, and a workload's JWT issued for
// wirecheck's authorization server (workload identity federation,
// SEP-1933). Made afresh for each listener; the client's argv and --env
// values name them by the words of Words.
type Provisions struct {
	ClientID, ClientSecret string
	// Issuer is the issuer of the authorization server a protection
	// mounts first (ASPath on the listener): the one the pre-registered
	// client belongs to, for a client that binds its credentials to their
	// server (2026-07-28 client-registration).
	Issuer string
	// ClientKey signs the client's assertions (private_key_jwt, ES256).
	ClientKey *ecdsa.PrivateKey
	// WorkloadIssuer is the issuer of Assertion, whose key the
	// authorization server trusts (WorkloadKey's public half).
	WorkloadIssuer string
	WorkloadKey    *ecdsa.PrivateKey
	// Assertion is the workload's JWT: iss WorkloadIssuer, aud the
	// authorization server's issuer, valid for an hour.
	Assertion string
	// IdPIssuer is the enterprise identity provider's issuer (served on
	// the listener under IdPPath, enterprise-managed authorization,
	// SEP-990); IdPKey signs its ID tokens and ID-JAGs; IDToken is the
	// user's ID token the client got at single sign-on, aud IdPClientID
	// (the client's id at the IdP).
	IdPIssuer, IdPClientID, IDToken string
	IdPKey                          *ecdsa.PrivateKey
}

// The words a client's argv and --env values may name (transport
// Provisioner): replaced by the listener's Provisions at launch.
const (
	WordClientID     = "{client_id}"
	WordClientSecret = "{client_secret}"
	WordIssuer       = "{issuer}"
	// WordClientKey is the client's private key, PEM (PKCS #8, P-256).
	WordClientKey = "{client_key}"
	WordAssertion = "{assertion}"
	// The enterprise IdP's: the ID token, its token endpoint, the
	// client's id there.
	WordIDToken          = "{id_token}"
	WordIdPTokenEndpoint = "{idp_token_endpoint}"
	WordIdPClientID      = "{idp_client_id}"
)

// IdPPath is the enterprise identity provider's issuer path on the
// listener.
const IdPPath = "/idp"

// workloadIssuer is the workload identity issuer's identifier: a name the
// authorization server is configured to trust, never fetched.
const workloadIssuer = "https://workload.wirecheck.invalid"

// AssertionType is RFC 7523 §2.2's client_assertion_type.
const AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// GrantJWTBearer is RFC 7523 §2.1's grant_type.
const GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

func newProvisions(base string) (Provisions, error) {
	var keys [3]*ecdsa.PrivateKey
	for i := range keys {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return Provisions{}, err
		}
		keys[i] = k
	}
	p := Provisions{ClientID: "wirecheck-client-" + pkce.Random(6), ClientSecret: pkce.Random(24), Issuer: base + ASPath, ClientKey: keys[0], WorkloadIssuer: workloadIssuer, WorkloadKey: keys[1],
		IdPIssuer: base + IdPPath, IdPClientID: "wirecheck-sso-" + pkce.Random(6), IdPKey: keys[2]}
	now := time.Now()
	var err error
	p.Assertion, err = SignES256(p.WorkloadKey, map[string]any{"iss": workloadIssuer, "sub": "wirecheck-workload", "aud": p.Issuer,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": pkce.Random(12)}, "JWT")
	if err != nil {
		return p, err
	}
	p.IDToken, err = SignES256(p.IdPKey, map[string]any{"iss": p.IdPIssuer, "sub": "wirecheck-user", "aud": p.IdPClientID,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}, "JWT")
	return p, err
}

// Words are the provisions by the word that names each.
func (p Provisions) Words() map[string]string {
	der, _ := x509.MarshalPKCS8PrivateKey(p.ClientKey)
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	return map[string]string{WordClientID: p.ClientID, WordClientSecret: p.ClientSecret, WordIssuer: p.Issuer, WordClientKey: key, WordAssertion: p.Assertion,
		WordIDToken: p.IDToken, WordIdPTokenEndpoint: p.IdPIssuer + "/token", WordIdPClientID: p.IdPClientID}
}

// Provisions are the words the client's argv and --env values may name
// besides the endpoint (transport.Provisioner).
func (s *Server) Provisions() map[string]string { return s.prov.Words() }

// Provisioned is what the listener gave the client.
func (s *Server) Provisioned() Provisions { return s.prov }

// Provisioned is what the session's listener gave the client.
func (c *Session) Provisioned() Provisions { return c.srv.prov }

// SignES256 is a compact JWS of claims signed with k (alg ES256, the
// header's typ typ): what the client's assertions and the workload's JWT
// are.
func SignES256(k *ecdsa.PrivateKey, claims map[string]any, typ string) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// jwsAlgs are the algorithms a presented JWT is parsed under: any a JWS
// may name, so that one signed otherwise than ES256 is still read (its
// claims judged) and told apart by its alg.
var jwsAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.HS256, jose.HS384, jose.HS512, jose.EdDSA}

// jwtClaims are the claims of an ES256 JWS whose signature verifies with
// pub, and its header's typ ("" when it has none), from one parse; an
// error says why it is none (the claims and typ, where they could be
// read, come with it).
func jwtClaims(token string, pub *ecdsa.PublicKey) (claims map[string]any, typ string, err error) {
	tok, err := jwt.ParseSigned(token, jwsAlgs)
	if err != nil {
		return nil, "", errors.New("not a compact JWS: " + err.Error())
	}
	typ, _ = tok.Headers[0].ExtraHeaders[jose.HeaderType].(string)
	if tok.UnsafeClaimsWithoutVerification(&claims) != nil {
		return nil, typ, errors.New("the claims are not a JSON object")
	}
	if alg := tok.Headers[0].Algorithm; alg != string(jose.ES256) {
		return claims, typ, errors.New("alg is " + alg + ", not ES256 (the key provisioned is P-256)")
	}
	if tok.Claims(pub, &map[string]any{}) != nil {
		return claims, typ, errors.New("the signature does not verify with the key provisioned")
	}
	return claims, typ, nil
}

// audience is a JWT's aud, a string or an array of them.
func audience(claims map[string]any) []string {
	switch a := claims["aud"].(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, x := range a {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// judgeJWT is why a verified JWT's aud names none of want or it has
// expired at now, "" when neither.
func judgeJWT(claims map[string]any, want []string, now time.Time) string {
	if !slices.ContainsFunc(audience(claims), func(a string) bool { return slices.Contains(want, a) }) {
		return "its aud does not name the authorization server (its issuer " + want[0] + ", or its token endpoint)"
	}
	exp, ok := claims["exp"].(float64)
	switch {
	case !ok:
		return "it has no exp"
	case time.Unix(int64(exp), 0).Before(now):
		return "it expired at " + time.Unix(int64(exp), 0).UTC().Format(time.RFC3339)
	}
	return ""
}
