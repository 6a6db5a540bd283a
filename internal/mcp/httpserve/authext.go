package httpserve

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The authorization extensions (modelcontextprotocol/ext-auth, SEP-1933):
// a client given credentials out of band (Provisions) gets its token
// without a user. Auth.Extension names the one a scenario puts in force;
// the authorization server the scenario mounts then takes only its grant.
const (
	// ExtClientCredentials is the client-credentials extension (SEP-1046).
	ExtClientCredentials = "client-credentials"
	// ExtWorkloadIdentity is workload identity federation (SEP-1933).
	ExtWorkloadIdentity = "workload-identity"
	// ExtEnterpriseManaged is enterprise-managed authorization (SEP-990).
	ExtEnterpriseManaged = "enterprise-managed"
)

// The token exchange of SEP-990 (RFC 8693).
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
)

// judgeExtension judges a request of the client to the authorization
// server under the extension g puts in force.
func (s *Server) judgeExtension(g *Guard, r ASRequest) {
	grant, check, want := "client_credentials", CheckCCGrant, "the client credentials grant"
	switch g.Extension {
	case ExtWorkloadIdentity:
		grant, check, want = GrantJWTBearer, CheckWIFGrant, "the JWT bearer grant with its workload's JWT"
	case ExtEnterpriseManaged:
		if r.Endpoint == "idp-token" {
			s.judgeExchange(r)
			return
		}
		grant, check, want = GrantJWTBearer, CheckEMAGrant, "the JWT bearer grant with the ID-JAG its IdP issued"
	}
	switch r.Endpoint {
	case "authorize", "register":
		s.check(check, verdict.Fail, "the client began a flow of its own ("+r.Endpoint+" request) though it was given its credentials out of band for "+want, "a token request with grant_type="+grant, r.Method+" "+r.Path)
		return
	case "token":
	default:
		return
	}
	if gt := r.Form.Get("grant_type"); gt != grant {
		s.check(check, verdict.Fail, "the client's token request is not of "+want, "grant_type="+grant, "grant_type="+gt)
		return
	}
	switch g.Extension {
	case ExtWorkloadIdentity:
		s.check(check, verdict.Pass, "", "", "")
		s.judgeWorkload(r)
	case ExtEnterpriseManaged:
		s.judgeIDJAG(r)
	default:
		s.check(check, verdict.Pass, "", "", "")
		s.judgeClientAuth(r)
	}
}

// judgeExchange: the token exchange at the IdP carries every parameter
// SEP-990 §4 requires, with the values the client was given or found:
// the ID token, the authorization server's issuer, the MCP server's URL.
func (s *Server) judgeExchange(r ASRequest) {
	f := r.Form
	iss := s.base() + ASPath
	var wrong []string
	for _, w := range []struct{ name, want string }{
		{"grant_type", grantTokenExchange}, {"requested_token_type", tokenTypeIDJAG},
		{"subject_token_type", tokenTypeIDToken}, {"subject_token", s.prov.IDToken},
	} {
		if f.Get(w.name) != w.want {
			wrong = append(wrong, w.name)
		}
	}
	if a := strings.TrimSuffix(f.Get("audience"), "/"); a != iss {
		wrong = append(wrong, "audience")
	}
	if rs := strings.TrimSuffix(f.Get("resource"), "/"); rs != s.url {
		wrong = append(wrong, "resource")
	}
	if len(wrong) > 0 {
		s.check(CheckEMAExchange, verdict.Fail, "the client's token exchange at the IdP lacks or misstates "+strings.Join(wrong, ", "),
			"grant_type="+grantTokenExchange+", requested_token_type="+tokenTypeIDJAG+", audience="+iss+", resource="+s.url+", subject_token=<the ID token given ({id_token})>, subject_token_type="+tokenTypeIDToken,
			clipForm(f))
		return
	}
	s.check(CheckEMAExchange, verdict.Pass, "", "", "")
}

// clipForm is a form for evidence, its tokens shortened.
func clipForm(f url.Values) string {
	var parts []string
	for _, k := range []string{"grant_type", "requested_token_type", "audience", "resource", "subject_token_type", "subject_token"} {
		if v, ok := f[k]; ok {
			parts = append(parts, k+"="+clip(strings.Join(v, ",")))
		} else {
			parts = append(parts, k+" missing")
		}
	}
	return strings.Join(parts, ", ")
}

// judgeIDJAG: the JWT bearer request presents an ID-JAG the IdP signed
// (typ oauth-id-jag+jwt), for this authorization server, unexpired, and
// authenticates the client with the credentials it was given.
func (s *Server) judgeIDJAG(r ASRequest) {
	a := r.Form.Get("assertion")
	claims, typ, err := jwtClaims(a, &s.prov.IdPKey.PublicKey)
	if err == nil {
		if why := judgeJWT(claims, s.asAudiences(), time.Now()); why != "" {
			err = fmt.Errorf("%s", why)
		} else if typ != "oauth-id-jag+jwt" {
			err = fmt.Errorf("its typ is %q, not oauth-id-jag+jwt: not the ID-JAG the token exchange issued", typ)
		}
	}
	if a == "" {
		err = fmt.Errorf("there is none")
	}
	if err != nil {
		s.check(CheckEMAGrant, verdict.Fail, "the assertion of the client's JWT bearer request is no ID-JAG of its IdP for this authorization server: "+err.Error(), "assertion=<the ID-JAG the token exchange returned>", clip(a))
		return
	}
	id, secret, how := basicAuth(r.Header.Get("Authorization"))
	if how == "" {
		id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
	}
	if id != s.prov.ClientID || secret != s.prov.ClientSecret {
		s.check(CheckEMAGrant, verdict.Fail, "the client's JWT bearer request does not authenticate it with the credentials it was given", "client_id "+s.prov.ClientID+" and its secret ({client_secret}), in HTTP Basic or the form", "client_id "+id+redactedSecret(secret, s.prov.ClientSecret))
		return
	}
	s.check(CheckEMAGrant, verdict.Pass, "", "", "")
}

// asAudiences are what an assertion's aud may name: the authorization
// server's issuer, with or without a trailing slash, or its token
// endpoint (RFC 7523 §3).
func (s *Server) asAudiences() []string {
	iss := s.base() + ASPath
	return []string{iss, iss + "/", iss + "/token"}
}

// judgeClientAuth: a client credentials request authenticates the client
// with an assertion (RFC 7523 §2.2) or with the secret it was given.
func (s *Server) judgeClientAuth(r ASRequest) {
	p := s.prov
	f := r.Form
	if at, has := f["client_assertion_type"]; has {
		if len(at) != 1 || at[0] != AssertionType {
			s.check(CheckCCAuth, verdict.Fail, "the client's client_assertion_type is not RFC 7523's", "client_assertion_type="+AssertionType, fmt.Sprintf("client_assertion_type=%s", strings.Join(at, ",")))
			return
		}
		if f.Get("client_assertion") == "" {
			s.check(CheckCCAuth, verdict.Fail, "the client's token request names the assertion type but carries no client_assertion", "client_assertion=<a JWT signed with the key provisioned>", "none")
			return
		}
		s.check(CheckCCAuth, verdict.Pass, "", "", "")
		s.judgeClientAssertion(f.Get("client_assertion"), p)
		return
	}
	id, secret, how := basicAuth(r.Header.Get("Authorization"))
	if how == "" && (f.Has("client_secret") || f.Has("client_id")) {
		id, secret, how = f.Get("client_id"), f.Get("client_secret"), "the form's client_id and client_secret"
	}
	switch {
	case how == "":
		s.check(CheckCCAuth, verdict.Fail, "the client's token request authenticates it neither with a client assertion nor with its secret", "client_assertion (private_key_jwt) or client_id and client_secret (HTTP Basic or the form)", "no client authentication")
	case id != p.ClientID || secret != p.ClientSecret:
		s.check(CheckCCAuth, verdict.Fail, "the client's credentials in "+how+" are not those it was given", "client_id "+p.ClientID+" with the secret given ({client_secret})", "client_id "+id+redactedSecret(secret, p.ClientSecret))
	default:
		s.check(CheckCCAuth, verdict.Pass, "", "", "")
	}
}

// redactedSecret says whether a secret was the one given, never what it is.
func redactedSecret(got, want string) string {
	switch got {
	case "":
		return ", no secret"
	case want:
		return ", the secret given"
	}
	return ", another secret"
}

// basicAuth reads HTTP Basic credentials, undoing RFC 6749 §2.3.1's
// form-encoding; how is "" when there are none.
func basicAuth(h string) (id, secret, how string) {
	scheme, b, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", "", ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b))
	if err != nil {
		return "", "", ""
	}
	id, secret, _ = strings.Cut(string(raw), ":")
	if u, err := url.QueryUnescape(id); err == nil {
		id = u
	}
	if u, err := url.QueryUnescape(secret); err == nil {
		secret = u
	}
	return id, secret, "HTTP Basic"
}

// judgeClientAssertion: the assertion's iss and sub are the client's id;
// it verifies with the key provisioned, names the authorization server in
// aud, and has not expired.
func (s *Server) judgeClientAssertion(token string, p Provisions) {
	claims, _, err := jwtClaims(token, &p.ClientKey.PublicKey)
	if claims != nil {
		iss, _ := claims["iss"].(string)
		sub, _ := claims["sub"].(string)
		if iss != p.ClientID || sub != p.ClientID {
			s.check(CheckCCClaims, verdict.Fail, "the client assertion's iss and sub are not both the client's id", "iss and sub "+p.ClientID, fmt.Sprintf("iss %q, sub %q", iss, sub))
		} else {
			s.check(CheckCCClaims, verdict.Pass, "", "", "")
		}
	}
	if err == nil {
		if why := judgeJWT(claims, s.asAudiences(), time.Now()); why != "" {
			err = fmt.Errorf("%s", why)
		}
	}
	if err != nil {
		s.check(CheckCCAssertion, verdict.Fail, "the client assertion does not verify: "+err.Error(), "a JWT signed ES256 with the key provisioned ({client_key}), aud "+s.asAudiences()[0]+", not expired", clip(token))
		return
	}
	s.check(CheckCCAssertion, verdict.Pass, "", "", "")
}

// judgeWorkload: a JWT bearer request's assertion is the workload's JWT
// the client was given, which verifies (signature, aud, exp).
func (s *Server) judgeWorkload(r ASRequest) {
	a := r.Form.Get("assertion")
	if a == "" {
		s.check(CheckWIFAssertion, verdict.Fail, "the client's JWT bearer request carries no assertion", "assertion=<the workload's JWT ({assertion})>", "none")
		return
	}
	claims, _, err := jwtClaims(a, &s.prov.WorkloadKey.PublicKey)
	if err == nil {
		if why := judgeJWT(claims, s.asAudiences(), time.Now()); why != "" {
			err = fmt.Errorf("%s", why)
		}
	}
	if err != nil {
		s.check(CheckWIFAssertion, verdict.Fail, "the client's assertion does not verify: "+err.Error(), "the workload's JWT it was given ({assertion}), unaltered", clip(a))
		return
	}
	s.check(CheckWIFAssertion, verdict.Pass, "", "", "")
}

// clip shortens a JWT for evidence: its header and the start of its claims.
func clip(t string) string {
	if len(t) > 60 {
		return t[:60] + "…"
	}
	return t
}
