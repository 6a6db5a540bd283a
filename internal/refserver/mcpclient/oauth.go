package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/pkce"
)

// The reference client's authorization (MCP basic/authorization, 2025-06-18
// on): answered 401, it reads WWW-Authenticate, fetches the protected
// resource metadata (RFC 9728), then the authorization server's (RFC 8414
// with the issuer's path inserted, then OpenID Connect Discovery),
// registers itself (RFC 7591), and runs the authorization-code grant with
// PKCE S256 and the resource parameter (RFC 8707). No human approves: it
// follows the authorization endpoint's redirect itself and takes the code
// from its Location. Faults leave out what a rule asks.

// redirectURI is where the client asks the code to be sent: it never
// listens there, it reads the redirect.
const redirectURI = "http://127.0.0.1/callback"

var challengeParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// authorize gets an access token after a 401 whose challenge is www.
func (l *link) authorize(www string) error {
	params := map[string]string{}
	for _, m := range challengeParam.FindAllStringSubmatch(www, -1) {
		params[m[1]] = m[2]
	}
	origin := l.url.Scheme + "://" + l.url.Host
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if l.fault["no-prm"] {
		// As a 2025-03-26 client does: the MCP server's origin is the
		// authorization server.
		prm.AuthorizationServers = []string{origin}
	} else {
		tries := []string{params["resource_metadata"], origin + "/.well-known/oauth-protected-resource" + l.url.Path, origin + "/.well-known/oauth-protected-resource"}
		if l.fault["prm-root-first"] {
			tries = []string{origin + "/.well-known/oauth-protected-resource", params["resource_metadata"]}
		}
		var err error
		for _, u := range tries {
			if u == "" {
				continue
			}
			if err = l.getJSON(u, &prm); err == nil {
				break
			}
		}
		if err != nil || len(prm.AuthorizationServers) == 0 {
			return fmt.Errorf("no protected resource metadata naming an authorization server: %v", err)
		}
	}
	as, err := url.Parse(prm.AuthorizationServers[0])
	if err != nil {
		return err
	}
	var meta struct {
		Issuer                string   `json:"issuer"`
		IssSupported          bool     `json:"authorization_response_iss_parameter_supported"`
		AuthorizationEndpoint string   `json:"authorization_endpoint"`
		TokenEndpoint         string   `json:"token_endpoint"`
		RegistrationEndpoint  string   `json:"registration_endpoint"`
		ScopesSupported       []string `json:"scopes_supported"`
		GrantTypes            []string `json:"grant_types_supported"`
		AuthMethods           []string `json:"token_endpoint_auth_methods_supported"`
		CIMD                  bool     `json:"client_id_metadata_document_supported"`
	}
	p := strings.TrimSuffix(as.Path, "/")
	aso := as.Scheme + "://" + as.Host
	order := []string{aso + "/.well-known/oauth-authorization-server" + p, aso + "/.well-known/openid-configuration" + p, aso + p + "/.well-known/openid-configuration"}
	if p == "" {
		// Without a path the inserted and appended URIs are one.
		order = order[:2]
	}
	switch {
	case l.fault["oidc-first"]:
		order = append(order[1:], order[0])
	case l.fault["no-oidc"]:
		order = order[:1]
	case l.variant["oidc-root-first"] && p == "":
		order = []string{order[1], order[0]}
	}
	for _, u := range order {
		if err = l.getJSON(u, &meta); err == nil {
			break
		}
	}
	if err != nil || meta.TokenEndpoint == "" {
		return fmt.Errorf("no usable authorization server metadata at %s: %v", as, err)
	}
	// RFC 8414 §3.3: the issuer is the one the URL was built from, as is.
	if meta.Issuer != prm.AuthorizationServers[0] && !l.fault["ignores-metadata-issuer"] {
		return fmt.Errorf("authorization server metadata rejected: issuer %q, fetched for %q", meta.Issuer, prm.AuthorizationServers[0])
	}
	// The scope the challenge asks, else all the server supports, else none
	// (2025-11-25 basic/authorization, Scope Selection Strategy).
	scope := params["scope"]
	if scope == "" {
		scope = strings.Join(prm.ScopesSupported, " ")
	}
	if l.fault["ignores-scope"] {
		scope = "everything"
	}
	if done, err := l.extensionGrant(meta.GrantTypes, meta.AuthMethods, meta.TokenEndpoint, meta.Issuer, scope); done {
		return err
	}
	if meta.AuthorizationEndpoint == "" {
		return fmt.Errorf("no usable authorization server metadata at %s: no authorization endpoint", as)
	}
	// It wants refresh tokens (2026-07-28 Refresh Tokens): it registers
	// for them (register), and asks offline_access where the metadata
	// offers it (a MAY); the variant no-refresh wants none.
	wantsRefresh := l.wantsRefresh()
	client, err := l.clientFor(meta.Issuer, meta.CIMD, meta.RegistrationEndpoint)
	if err != nil {
		return err
	}
	verifier := pkce.Random(32)
	resource := l.url.String()
	q := url.Values{"response_type": {"code"}, "client_id": {client.ID}, "redirect_uri": {redirectURI}, "state": {pkce.Random(8)}}
	switch {
	case l.fault["no-pkce"]:
	case l.fault["plain-pkce"]:
		q.Set("code_challenge", verifier)
		q.Set("code_challenge_method", "plain")
	default:
		q.Set("code_challenge", pkce.S256(verifier))
		q.Set("code_challenge_method", "S256")
	}
	if !l.fault["no-resource"] {
		q.Set("resource", resource)
	}
	if (wantsRefresh && slices.Contains(meta.ScopesSupported, "offline_access")) || l.fault["offline-always"] {
		scope = strings.TrimSpace(scope + " offline_access")
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	code, err := l.authorizationCode(meta.AuthorizationEndpoint, q, meta.Issuer, meta.IssSupported)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "client_id": {client.ID}}
	var basic *[2]string
	switch client.Method {
	case "client_secret_post":
		form.Set("client_secret", client.Secret)
	case "client_secret_basic":
		// RFC 6749 §2.3.1: the form-encoded id and secret as Basic's.
		basic = &[2]string{url.QueryEscape(client.ID), url.QueryEscape(client.Secret)}
		form.Del("client_id")
	}
	if !l.fault["no-pkce"] {
		form.Set("code_verifier", verifier)
	}
	if !l.fault["no-resource"] {
		form.Set("resource", resource)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := l.postForm(meta.TokenEndpoint, form, basic, &tok); err != nil || tok.AccessToken == "" {
		return fmt.Errorf("token request: %v", err)
	}
	l.mu.Lock()
	l.token = tok.AccessToken
	l.mu.Unlock()
	return nil
}

// authorizationCode sends the authorization request and reads the code
// from the redirect, as the browser would deliver it.
func (l *link) authorizationCode(endpoint string, q url.Values, issuer string, issAdvertised bool) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode/100 != 3 {
		return "", fmt.Errorf("authorization: HTTP %d, no redirect", resp.StatusCode)
	}
	back := loc.Query()
	// RFC 9207 §2.4 as 2026-07-28 words it: a present iss is compared as
	// a plain string with the issuer of the metadata; an absent one is
	// refused when the metadata advertises it.
	if !l.fault["ignores-iss"] {
		iss, has := back["iss"]
		switch {
		case l.fault["iss-strict"] && (!has || !issAdvertised):
			return "", errors.New("authorization response rejected: iss absent or not advertised")
		case has && !issAdvertised && l.fault["iss-only-when-advertised"]:
		case has && (len(iss) != 1 || iss[0] != issuer):
			return "", fmt.Errorf("authorization response rejected: iss %q is not the issuer %q", iss, issuer)
		case !has && issAdvertised:
			return "", errors.New("authorization response rejected: no iss, though the metadata advertises it")
		}
	}
	if e := back.Get("error"); e != "" {
		return "", fmt.Errorf("authorization refused: %s %s", e, back.Get("error_description"))
	}
	if back.Get("state") != q.Get("state") || back.Get("code") == "" {
		return "", errors.New("authorization: the redirect has no code or another state")
	}
	return back.Get("code"), nil
}

func (l *link) getJSON(u string, v any) error {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	return l.doJSON(req, v)
}

func (l *link) postJSON(u, ct string, body []byte, v any) error {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ct)
	return l.doJSON(req, v)
}

func (l *link) postForm(u string, form url.Values, basic *[2]string, v any) error {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic != nil {
		req.SetBasicAuth(basic[0], basic[1])
	}
	return l.doJSON(req, v)
}

func (l *link) doJSON(req *http.Request, v any) error {
	req.Header.Set("Accept", "application/json")
	resp, err := l.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL, resp.StatusCode)
	}
	return json.Unmarshal(b, v)
}
