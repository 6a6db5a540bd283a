package mcp

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// What the HTTP fronts check before a message reaches a core: the Origin
// (DNS rebinding), and the bearer token when the server requires
// authorization (variant auth, and the faults that break it); and the
// documents an authorizing server publishes.

// Token is the bearer token the reference server accepts when it requires
// authorization.
const Token = "wirecheck-reference-token"

// originOK refuses a foreign Origin (403 text by default). No Origin is
// what clients other than browsers send: served.
func (f *Front) originOK(w http.ResponseWriter, r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || f.faults["origin-ignored"] {
		return true
	}
	if u, err := url.Parse(o); err == nil && u.Host != "" {
		h := u.Hostname()
		if h == "localhost" || h == "127.0.0.1" || h == "::1" || strings.EqualFold(u.Host, r.Host) {
			return true
		}
	}
	switch {
	case f.faults["origin-400"]:
		http.Error(w, "Bad Request: Origin not allowed", http.StatusBadRequest)
	case f.variants["origin-json-403"]:
		f.writeJSON(w, http.StatusForbidden, []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: Origin not allowed"}}`))
	default:
		http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
	}
	return false
}

// requiresAuth: the variants auth, auth-wellknown-only,
// auth-metadata-elsewhere and bearer-key, and every fault
// that breaks authorization, make the server require the token.
func (f *Front) requiresAuth() bool {
	if f.ext != nil && f.ext.Discovery {
		return true
	}
	return RequiresToken(slices.Collect(maps.Keys(f.faults)), slices.Collect(maps.Keys(f.variants)))
}

// RequiresToken reports whether the reference server with these faults
// and variants requires the bearer Token: a run against it carries the
// token then, as a user with credentials would, and not otherwise (a
// server that checks none and is handed some fails MCP-AUTH-1).
func RequiresToken(faults, variants []string) bool {
	for _, n := range variants {
		if n == "auth" || n == "auth-wellknown-only" || n == "auth-metadata-elsewhere" || n == "bearer-key" || n == "bearer-key-prm" {
			return true
		}
	}
	for _, n := range faults {
		switch n {
		case "auth-no-token-403", "auth-any-token", "auth-malformed-served", "auth-no-challenge", "auth-no-discovery", "prm-no-servers", "no-as-fallback", "auth-optional":
			return true
		}
	}
	return false
}

// authorized lets a request with the token through; otherwise it answers
// 401 with a challenge naming the protected resource metadata (400 for a
// malformed Authorization) and returns false.
func (f *Front) authorized(w http.ResponseWriter, r *http.Request) bool {
	// A profile's Handler has checked its own token (Extension.Auth).
	if !f.requiresAuth() || f.ext != nil {
		return true
	}
	h := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(h, " ")
	malformed := h != "" && (!strings.EqualFold(scheme, "Bearer") || tok == "" || strings.ContainsAny(tok, " \t"))
	switch {
	case h == "" && f.faults["auth-optional"]:
		return true
	case h == "" && f.faults["auth-no-token-403"]:
		http.Error(w, "Forbidden: no credentials", http.StatusForbidden)
	case h == "":
		f.challenge(w, r, http.StatusUnauthorized, "")
	case malformed && f.faults["auth-malformed-served"]:
		return true
	case malformed:
		f.challenge(w, r, http.StatusBadRequest, "invalid_request")
	case tok != Token && f.faults["auth-any-token"]:
		return true
	case tok != Token:
		f.challenge(w, r, http.StatusUnauthorized, "invalid_token")
	default:
		return true
	}
	return false
}

func (f *Front) challenge(w http.ResponseWriter, r *http.Request, status int, code string) {
	if !f.faults["auth-no-challenge"] && !f.faults["auth-no-discovery"] {
		w.Header().Set("WWW-Authenticate", f.challengeHeader(r, code))
	}
	http.Error(w, http.StatusText(status), status)
}

// challengeHeader is the WWW-Authenticate of a refusal: with bearer-key,
// an API key's bare "Bearer", which says nothing of OAuth.
func (f *Front) challengeHeader(r *http.Request, code string) string {
	if f.variants["bearer-key"] || f.variants["bearer-key-prm"] {
		return "Bearer"
	}
	params := []string{}
	switch {
	case f.variants["auth-metadata-elsewhere"]:
		params = append(params, `resource_metadata="`+ElsewhereMetadata+f.path()+`"`)
	case !f.variants["auth-wellknown-only"]:
		params = append(params, `resource_metadata="`+origin(r)+prmPath+f.path()+`"`)
	}
	params = append(params, `scope="mcp"`)
	if code != "" {
		params = append(params, `error="`+code+`"`)
	}
	return "Bearer " + strings.Join(params, ", ")
}

const prmPath = "/.well-known/oauth-protected-resource"

// ElsewhereMetadata is where the variant auth-metadata-elsewhere's
// challenge says its protected resource metadata is, the endpoint's path
// after it: a host beyond this machine (.invalid resolves nowhere), as a
// deployment that publishes the document beside its authorization server
// names it.
const ElsewhereMetadata = "https://auth.example.invalid" + prmPath

// token is the token the server accepts, as its fallback endpoints say.
func (f *Front) token() string {
	if f.ext != nil {
		return DemoToken()
	}
	return Token
}

// path is the path of the endpoint the metadata describes.
func (f *Front) path() string {
	if f.ext != nil {
		if f.legacy {
			return f.ext.Paths.SSE
		}
		return f.ext.Paths.HTTP
	}
	if f.legacy {
		return "/sse"
	}
	return endpoint
}

// origin is the scheme and authority the request reached.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// wellKnown serves the authorization documents of a server that requires
// authorization: the protected resource metadata at both well-known URIs
// (only the path-suffixed one with auth-wellknown-only), and 2025-03-26's authorization server metadata and
// its fallback endpoints (none with no-as-fallback). With
// auth-no-discovery neither the challenge nor the documents say where the
// metadata is (the authorization server metadata still says it is
// OAuth's). A server that checks an API key (bearer-key) publishes none.
func (f *Front) wellKnown(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if !f.requiresAuth() || f.variants["bearer-key"] || !(strings.HasPrefix(p, "/.well-known/") || p == "/authorize" || p == "/token" || p == "/register") {
		return false
	}
	o := origin(r)
	if f.variants["bearer-key-prm"] && p == "/.well-known/openid-configuration" {
		f.writeJSON(w, http.StatusOK, []byte(show(obj{"issuer": "https://auth.wirecheck.invalid", "authorization_endpoint": "https://auth.wirecheck.invalid/authorize",
			"token_endpoint": "https://auth.wirecheck.invalid/token", "response_types_supported": []any{"code"}})))
		return true
	}
	if f.variants["bearer-key-prm"] && !strings.HasPrefix(p, prmPath) {
		// Later revisions' documents only: no RFC 8414 authorization
		// server metadata, no fallback endpoints.
		http.NotFound(w, r)
		return true
	}
	switch {
	case f.faults["auth-no-discovery"] && strings.HasPrefix(p, prmPath):
	case p == prmPath+f.path() || (p == prmPath && !f.variants["auth-wellknown-only"]):
		doc := obj{"resource": o + f.path(), "authorization_servers": []any{"https://auth.wirecheck.invalid"},
			"scopes_supported": []any{"mcp"}, "bearer_methods_supported": []any{"header"}}
		if f.faults["prm-no-servers"] {
			delete(doc, "authorization_servers")
		}
		f.writeJSON(w, http.StatusOK, []byte(show(doc)))
		return true
	case f.faults["no-as-fallback"]:
	case p == "/.well-known/oauth-authorization-server":
		f.writeJSON(w, http.StatusOK, []byte(show(obj{"issuer": o, "authorization_endpoint": o + "/authorize", "token_endpoint": o + "/token",
			"registration_endpoint": o + "/register", "response_types_supported": []any{"code"}, "code_challenge_methods_supported": []any{"S256"}})))
		return true
	case p == "/authorize" || p == "/token" || p == "/register":
		f.writeJSON(w, http.StatusBadRequest, []byte(`{"error":"invalid_request","error_description":"the reference server issues no tokens; use `+f.token()+`"}`))
		return true
	}
	http.NotFound(w, r)
	return true
}
