// Package mcpauthz is the reference MCP authorization server: an OAuth 2.1
// authorization server as MCP's authorization page asks it (RFC 8414
// metadata or OpenID Connect Discovery, dynamic client registration,
// Client ID Metadata Documents, the authorization-code grant with PKCE
// S256 and resource indicators, RFC 9207's iss, rotated refresh tokens),
// approving every authorization request at once, with no login. Its
// access tokens are JWTs signed by go-jose with aud the resource asked
// for.
//
// It is a package of its own, an http.Handler (New), so that what tests
// MCP clients can mount it as the authorization server a client under
// test authorizes against, watch what the client sent (Options.Observe)
// and check the tokens it issued (Server.Verify). `wirecheck serve
// mcp-authorization --http ADDR` serves it (Serve) with the spec's faults
// and variants (specs/mcp-authorization.yaml).
package mcpauthz

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/wirecheck/wirecheck/internal/pkce"
	"github.com/wirecheck/wirecheck/internal/refserver"
)

// Options configures a Server. The zero value is the reference server as
// `wirecheck serve` runs it without faults or variants.
type Options struct {
	// Issuer is the issuer identifier, an absolute URL without a trailing
	// slash; "" takes it from each request: http://HOST followed by Path.
	Issuer string
	// Path is the issuer's path ("/tenant1"), under which the endpoints
	// are served, when Issuer is "" (the variant issuer-path sets it).
	Path string
	// Faults and Variants are names of the spec's faults: and variants:.
	Faults, Variants []string
	// Clients are registered beforehand (the only clients of a server
	// without registration).
	Clients []Client
	// Key signs the access tokens (ES256); nil makes a fresh P-256 key.
	Key *ecdsa.PrivateKey
	// TokenTTL is an access token's lifetime (default an hour).
	TokenTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Observe, set, is shown every request the server handled, after it
	// answered: what a test of an MCP client judges the client by.
	Observe func(Request)
	// HTTPClientIDs lets a Client ID Metadata Document be fetched over
	// plain HTTP too (a test's loopback server); by default only an https
	// client_id is one (MCP 2025-11-25: "The `client_id` URL **MUST** use
	// the \"https\" scheme").
	HTTPClientIDs bool
	// Grants, set, are the only grant types the server takes and lists
	// (grants.go): client_credentials (the client-credentials extension)
	// or RFC 7523's jwt-bearer (workload identity federation); it then
	// offers no authorization endpoint and no registration.
	Grants []string
	// Trusted are the issuers whose JWTs the jwt-bearer grant takes, by
	// issuer, with the key each signs with.
	Trusted map[string]*ecdsa.PublicKey
	// IDJAG makes the jwt-bearer grant enterprise-managed authorization's
	// (SEP-990): its assertion an ID-JAG (typ oauth-id-jag+jwt) whose
	// client_id is the client, which authenticates with its secret.
	IDJAG bool
	// Fetch gets a Client ID Metadata Document (default: an HTTP GET,
	// bounded in time and size, redirects not followed).
	Fetch func(ctx context.Context, url string) ([]byte, error)
	// ScopesSupported are the metadata's scopes_supported (nil: mcp): a
	// test of a client offers offline_access there or not.
	ScopesSupported []string
}

// Client is a registered client.
type Client struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret,omitempty"`
	// RedirectURIs are matched exactly; a client given in Options.Clients
	// without any takes any absolute redirect URI.
	RedirectURIs []string `json:"redirect_uris"`
	// AuthMethod is how it authenticates at the token endpoint: none,
	// client_secret_basic or client_secret_post ("" is none), or
	// SecretEither for a client given its secret out of band.
	AuthMethod string `json:"token_endpoint_auth_method"`
	// Key, set, is the public key of a client that authenticates with
	// private_key_jwt (RFC 7523 §2.2); a client of the extension grants
	// may authenticate with it or its secret (grants.go).
	Key *ecdsa.PublicKey `json:"-"`
	// fetched: known from its Client ID Metadata Document, not issued
	// here (its id is portable across authorization servers).
	fetched bool
}

// SecretEither is the AuthMethod of a pre-registered client whose method
// was agreed on with no registration to name it: client_secret_basic or
// client_secret_post, either taken (RFC 6749 §2.3.1 lets a client use
// either where the server supports both).
const SecretEither = "client_secret"

// Request is one request the server handled, as Observe sees it.
type Request struct {
	// Endpoint is metadata, authorize, token, register or jwks.
	Endpoint string
	Method   string
	URL      *url.URL
	Header   http.Header
	// Form is the query (authorize) or the form body (token); Body the
	// JSON body of a registration.
	Form url.Values
	Body []byte
	// Status is the status the server answered.
	Status int
}

// Claims are what Verify reads from an access token.
type Claims struct {
	jwt.Claims
	ClientID string `json:"client_id,omitempty"`
	Scope    string `json:"scope,omitempty"`
}

// Server is the authorization server.
type Server struct {
	o        Options
	faults   map[string]bool
	variants map[string]bool
	key      *ecdsa.PrivateKey
	kid      string
	signer   jose.Signer

	mu      sync.Mutex
	clients map[string]Client
	codes   map[string]grant
	refresh map[string]grant
	opaque  map[string]Claims
}

// grant is an authorization code's request, kept until it is redeemed.
type grant struct {
	client, redirect, challenge, resource, scope string
	expires                                      time.Time
	// noRefresh issues no refresh token (the client credentials grant:
	// "A refresh token SHOULD NOT be included", RFC 6749 §4.4.3).
	noRefresh bool
}

// maxKept bounds the clients, codes and opaque tokens kept: a hostile
// client registering without end costs a bounded amount.
const maxKept = 10000

// New makes a Server.
func New(o Options) (*Server, error) {
	if o.TokenTTL <= 0 {
		o.TokenTTL = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Issuer = strings.TrimSuffix(o.Issuer, "/")
	o.Path = "/" + strings.Trim(o.Path, "/")
	if o.Path == "/" {
		o.Path = ""
	}
	s := &Server{o: o, faults: refserver.Set(o.Faults), variants: refserver.Set(o.Variants),
		clients: map[string]Client{}, codes: map[string]grant{}, refresh: map[string]grant{}, opaque: map[string]Claims{}}
	if s.variants["issuer-path"] && o.Path == "" {
		s.o.Path = IssuerPath
	}
	s.key = o.Key
	if s.key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		s.key = k
	}
	jwk := jose.JSONWebKey{Key: s.key.Public(), Algorithm: string(jose.ES256), Use: "sig"}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, err
	}
	s.kid = base64.RawURLEncoding.EncodeToString(tp)
	s.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: s.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", s.kid))
	if err != nil {
		return nil, err
	}
	for _, c := range o.Clients {
		s.clients[c.ID] = c
	}
	return s, nil
}

// IssuerPath is the issuer's path under the variant issuer-path.
const IssuerPath = "/tenant1"

// PathOf is the path of the issuer a server with these variants has ("" at
// the root): what a run against it names in --url.
func PathOf(variants []string) string {
	if slices.Contains(variants, "issuer-path") {
		return IssuerPath
	}
	return ""
}

// Issuer is the issuer identifier as a request to the server sees it.
func (s *Server) Issuer(r *http.Request) string {
	if s.o.Issuer != "" {
		return s.o.Issuer
	}
	return "http://" + r.Host + s.o.Path
}

// JWKS is the key set the access tokens verify with, as jwks_uri serves it.
func (s *Server) JWKS() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: s.key.Public(), KeyID: s.kid, Algorithm: string(jose.ES256), Use: "sig"}}}
}

// Register adds a client, as registration would.
func (s *Server) Register(c Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= maxKept {
		clear(s.clients)
	}
	s.clients[c.ID] = c
}

// Issued is a client this server registered or was given beforehand, not
// one it knows from a Client ID Metadata Document: credentials bound to
// this server.
func (s *Server) Issued(id string) (Client, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	return c, ok && !c.fetched
}

// IssuedRefresh reports whether rt is a refresh token this server issued
// and has not seen redeemed.
func (s *Server) IssuedRefresh(rt string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.refresh[rt]
	return ok
}

// Verify checks an access token this server issued (signature, expiry,
// issuer) and that resource is among its audiences ("" skips that); it
// returns its claims.
func (s *Server) Verify(token, issuer, resource string) (*Claims, error) {
	now := s.o.Now()
	var c Claims
	s.mu.Lock()
	oc, isOpaque := s.opaque[token]
	s.mu.Unlock()
	if isOpaque {
		c = oc
	} else {
		tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			return nil, err
		}
		if err := tok.Claims(s.key.Public(), &c); err != nil {
			return nil, err
		}
	}
	exp := jwt.Expected{Issuer: issuer, Time: now}
	if resource != "" {
		exp.AnyAudience = jwt.Audience{resource}
	}
	if err := c.Validate(exp); err != nil {
		return nil, err
	}
	return &c, nil
}

// ServeHTTP routes the well-known documents and the endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	req := Request{Method: r.Method, URL: r.URL, Header: r.Header.Clone()}
	if s.o.Observe != nil {
		defer func() { req.Status = rec.status; s.o.Observe(req) }()
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	p, path := s.o.Path, r.URL.Path
	switch {
	case s.isMetadata(path):
		req.Endpoint = "metadata"
		if r.Method != http.MethodGet {
			http.Error(rec, "GET only", http.StatusMethodNotAllowed)
			return
		}
		s.metadata(rec, r)
	case path == p+"/jwks":
		req.Endpoint = "jwks"
		writeJSON(rec, http.StatusOK, s.JWKS(), false)
	case path == p+"/authorize":
		req.Endpoint = "authorize"
		req.Form = r.URL.Query()
		s.authorize(rec, r, req.Form)
	case path == p+"/token":
		req.Endpoint = "token"
		if r.Method != http.MethodPost {
			s.tokenError(rec, http.StatusMethodNotAllowed, "invalid_request", "POST only", false)
			return
		}
		if err := r.ParseForm(); err != nil {
			s.tokenError(rec, http.StatusBadRequest, "invalid_request", "the body is not a form", false)
			return
		}
		req.Form = r.PostForm
		s.token(rec, r)
	case path == p+"/register" && !s.variants["no-registration"]:
		req.Endpoint = "register"
		body, err := readAll(r)
		req.Body = body
		if err != nil || r.Method != http.MethodPost {
			writeJSON(rec, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "POST a JSON object"}, true)
			return
		}
		s.register(rec, r, body)
	default:
		http.NotFound(rec, r)
	}
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// isMetadata reports whether path is where this server publishes its
// metadata: RFC 8414's well-known URI with the issuer's path after it, or
// OpenID Connect Discovery's (openid-only), inserted or appended.
func (s *Server) isMetadata(path string) bool {
	if s.faults["no-metadata"] {
		return false
	}
	p := s.o.Path
	if s.variants["openid-only"] || s.faults["no-rfc8414"] {
		return path == "/.well-known/openid-configuration"+p || (p != "" && path == p+"/.well-known/openid-configuration")
	}
	return path == "/.well-known/oauth-authorization-server"+p
}

// methods are the token endpoint authentication methods the server takes.
func (s *Server) methods() []string {
	switch {
	case s.variants["auth-basic"]:
		return []string{"client_secret_basic"}
	case s.variants["auth-post"]:
		return []string{"client_secret_post"}
	}
	return []string{"none", "client_secret_basic", "client_secret_post"}
}

func (s *Server) issParam() bool { return !s.variants["no-iss"] }

func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	m := map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                iss + "/authorize",
		"token_endpoint":                        iss + "/token",
		"jwks_uri":                              iss + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": s.methods(),
		"scopes_supported":                      []string{"mcp"},
	}
	if s.o.ScopesSupported != nil {
		m["scopes_supported"] = s.o.ScopesSupported
	}
	if !s.variants["no-registration"] {
		m["registration_endpoint"] = iss + "/register"
	}
	if len(s.o.Grants) > 0 {
		s.extensionMetadata(m)
	}
	if !s.faults["no-cimd"] {
		m["client_id_metadata_document_supported"] = true
	}
	if s.faults["insecure-endpoint"] {
		m["revocation_endpoint"] = "http://as.example/revoke"
	}
	if s.issParam() && !s.faults["iss-unadvertised"] {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if s.variants["openid-only"] || s.faults["no-rfc8414"] {
		m["subject_types_supported"] = []string{"public"}
		m["id_token_signing_alg_values_supported"] = []string{string(jose.ES256)}
	}
	if s.faults["issuer-mismatch"] {
		m["issuer"] = "https://issuer.invalid"
	}
	if s.faults["no-response-types"] {
		delete(m, "response_types_supported")
	}
	if s.faults["no-s256"] {
		m["code_challenge_methods_supported"] = []string{"plain"}
	}
	if s.faults["no-pkce-methods"] {
		delete(m, "code_challenge_methods_supported")
	}
	b, _ := json.Marshal(m)
	ct := "application/json"
	if s.faults["metadata-as-text"] {
		ct = "text/plain"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request, body []byte) {
	var m struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "the body is not a JSON object"}, true)
		return
	}
	if len(m.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri", "error_description": "redirect_uris is required"}, true)
		return
	}
	for _, u := range m.RedirectURIs {
		if p, err := url.Parse(u); err != nil || !p.IsAbs() || p.Fragment != "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri", "error_description": "not an absolute URI: " + u}, true)
			return
		}
	}
	methods := s.methods()
	method := m.AuthMethod
	if !slices.Contains(methods, method) {
		// RFC 7591 §3.2.1: the server may replace what was asked with
		// what it supports, and says so in its answer.
		method = methods[0]
	}
	c := Client{ID: "client-" + pkce.Random(12), RedirectURIs: m.RedirectURIs, AuthMethod: method}
	if method != "none" {
		c.Secret = pkce.Random(24)
	}
	s.Register(c)
	out := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        s.o.Now().Unix(),
		"redirect_uris":              c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	}
	if m.ClientName != "" {
		out["client_name"] = m.ClientName
	}
	if c.Secret != "" {
		out["client_secret"] = c.Secret
		out["client_secret_expires_at"] = 0
	}
	if s.faults["registration-shape"] {
		delete(out, "client_id")
	}
	if s.faults["registration-200"] {
		writeJSON(w, http.StatusOK, out, true)
		return
	}
	writeJSON(w, http.StatusCreated, out, true)
}

func (s *Server) client(id string) (Client, bool) {
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	if ok || s.faults["no-cimd"] {
		return c, ok
	}
	c, err := s.metadataDocument(id)
	if err != nil {
		return Client{}, false
	}
	s.Register(c)
	return c, true
}

// metadataDocument reads the client a URL client_id names (a Client ID
// Metadata Document, draft-ietf-oauth-client-id-metadata-document): the
// document's client_id must be the URL exactly, and it must name
// redirect_uris. Such a client is public: it authenticates with none.
func (s *Server) metadataDocument(id string) (Client, error) {
	u, err := url.Parse(id)
	if err != nil || (u.Scheme != "https" && !(s.o.HTTPClientIDs && u.Scheme == "http")) || u.Host == "" || u.Path == "" || u.Path == "/" {
		return Client{}, errors.New("not a client_id URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fetch := s.o.Fetch
	if fetch == nil {
		fetch = fetchDocument
	}
	b, err := fetch(ctx, id)
	if err != nil {
		return Client{}, err
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return Client{}, err
	}
	if doc.ClientID != id || len(doc.RedirectURIs) == 0 {
		return Client{}, errors.New("the document's client_id is not its URL, or it names no redirect_uris")
	}
	return Client{ID: id, RedirectURIs: doc.RedirectURIs, AuthMethod: "none", fetched: true}, nil
}

// maxDocument bounds a fetched Client ID Metadata Document.
const maxDocument = 64 << 10

func fetchDocument(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxDocument))
}

// authorize approves every well-formed request at once (no login): a
// redirect with a code. A request whose client or redirect_uri it cannot
// trust is answered here, never redirected (OAuth 2.1 §4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, q url.Values) {
	c, ok := s.client(q.Get("client_id"))
	if !ok {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	// A client given beforehand with no redirect URIs agreed its own out
	// of band (a pre-registered client of a test run): any absolute one.
	if len(c.RedirectURIs) > 0 && !slices.Contains(c.RedirectURIs, redirect) && !s.faults["open-redirect"] {
		http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
		return
	}
	to, err := url.Parse(redirect)
	if err != nil || !to.IsAbs() {
		http.Error(w, "redirect_uri is not an absolute URI", http.StatusBadRequest)
		return
	}
	iss := s.Issuer(r)
	back := to.Query()
	if st := q.Get("state"); st != "" && !s.faults["no-state"] {
		back.Set("state", st)
	}
	if s.issParam() && !s.faults["iss-missing"] {
		back.Set("iss", iss)
	}
	fail := func(code, why string) {
		back.Set("error", code)
		back.Set("error_description", why)
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "":
		fail("invalid_request", "PKCE is required: code_challenge is missing")
		return
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256")
		return
	}
	resource := q.Get("resource")
	if resource != "" {
		if u, err := url.Parse(resource); err != nil || !u.IsAbs() || u.Fragment != "" {
			fail("invalid_target", "resource must be an absolute URI without a fragment")
			return
		}
	}
	code := pkce.Random(24)
	s.mu.Lock()
	if len(s.codes) >= maxKept {
		clear(s.codes)
	}
	s.codes[code] = grant{client: c.ID, redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: resource, scope: q.Get("scope"), expires: s.o.Now().Add(time.Minute)}
	s.mu.Unlock()
	back.Set("code", code)
	to.RawQuery = back.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

// authenticate finds the client of a token request by the method it was
// registered with; basic reports whether it came with HTTP Basic (its
// failure is then answered 401 with a challenge).
func (s *Server) authenticate(r *http.Request) (c Client, basic bool, err error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, ok := s.client(id)
	switch {
	case id == "" || !ok:
		return c, basic, errors.New("unknown client")
	case c.AuthMethod == "client_secret_basic" && !basic, c.AuthMethod == "client_secret_post" && (basic || secret == ""),
		c.AuthMethod == SecretEither && secret == "":
		return c, basic, errors.New("the client authenticates with " + c.AuthMethod)
	case c.AuthMethod != "" && c.AuthMethod != "none" && secret != c.Secret:
		return c, basic, errors.New("wrong client secret")
	}
	return c, basic, nil
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	gt := f.Get("grant_type")
	if len(s.o.Grants) > 0 {
		s.extensionGrant(w, r, gt)
		return
	}
	if gt != "authorization_code" && gt != "refresh_token" {
		s.tokenError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported", gt), false)
		return
	}
	c, basic, err := s.authenticate(r)
	if err != nil {
		s.tokenError(w, http.StatusUnauthorized, "invalid_client", err.Error(), basic)
		return
	}
	if gt == "refresh_token" {
		rt := f.Get("refresh_token")
		s.mu.Lock()
		g, ok := s.refresh[rt]
		if !s.faults["refresh-not-rotated"] {
			delete(s.refresh, rt) // rotated: a refresh token is redeemed once
		}
		s.mu.Unlock()
		if !ok || g.client != c.ID || s.o.Now().After(g.expires) {
			s.tokenError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired refresh token", false)
			return
		}
		if rs := f.Get("resource"); rs != "" && g.resource != "" && rs != g.resource {
			s.tokenError(w, http.StatusBadRequest, "invalid_target", "resource differs from the grant's", false)
			return
		}
		s.issue(w, r, c, g)
		return
	}
	code := f.Get("code")
	s.mu.Lock()
	g, ok := s.codes[code]
	delete(s.codes, code) // a code is redeemed once, right or wrong
	s.mu.Unlock()
	switch {
	case !ok || g.client != c.ID || s.o.Now().After(g.expires):
		s.tokenError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code", false)
		return
	case g.redirect != f.Get("redirect_uri"):
		s.tokenError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's", false)
		return
	case !s.faults["pkce-not-enforced"] && pkce.S256(f.Get("code_verifier")) != g.challenge:
		s.tokenError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge", false)
		return
	}
	if rs := f.Get("resource"); rs != "" {
		if g.resource != "" && rs != g.resource {
			s.tokenError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's", false)
			return
		}
		g.resource = rs
	}
	s.issue(w, r, c, g)
}

// issue answers a token request with an access token for g's resource and
// a fresh refresh token.
func (s *Server) issue(w http.ResponseWriter, r *http.Request, c Client, g grant) {
	resource := g.resource
	iss := s.Issuer(r)
	now := s.o.Now()
	claims := Claims{Claims: jwt.Claims{Issuer: iss, Subject: "wirecheck-user", IssuedAt: jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(s.o.TokenTTL)), ID: pkce.Random(12)},
		ClientID: c.ID, Scope: g.scope}
	if resource != "" {
		claims.Audience = jwt.Audience{resource}
	}
	if s.faults["ignores-resource"] {
		claims.Audience = jwt.Audience{iss}
	}
	var (
		at  string
		err error
	)
	if s.variants["opaque-tokens"] {
		at = pkce.Random(32)
		s.mu.Lock()
		if len(s.opaque) >= maxKept {
			clear(s.opaque)
		}
		s.opaque[at] = claims
		s.mu.Unlock()
	} else if at, err = jwt.Signed(s.signer).Claims(claims).Serialize(); err != nil {
		s.tokenError(w, http.StatusInternalServerError, "server_error", "signing failed", false)
		return
	}
	out := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(s.o.TokenTTL.Seconds())}
	if !g.noRefresh {
		rt := pkce.Random(32)
		g.expires = now.Add(30 * 24 * time.Hour)
		s.mu.Lock()
		if len(s.refresh) >= maxKept {
			clear(s.refresh)
		}
		s.refresh[rt] = g
		s.mu.Unlock()
		out["refresh_token"] = rt
	}
	if g.scope != "" {
		out["scope"] = g.scope
	}
	if s.faults["token-shape"] {
		delete(out, "token_type")
	}
	status := http.StatusOK
	if s.faults["token-201"] {
		status = http.StatusCreated
	}
	writeJSON(w, status, out, !s.faults["token-cacheable"])
}

// tokenError answers as RFC 6749 §5.2 shapes it (or as a fault misshapes
// it); a failed HTTP Basic authentication carries its challenge (§5.2:
// "MUST respond with an HTTP 401 (Unauthorized) status code and include
// the WWW-Authenticate response header field").
func (s *Server) tokenError(w http.ResponseWriter, status int, code, why string, basic bool) {
	if s.faults["token-error-shape"] {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = fmt.Fprintln(w, "token request refused: "+why)
		return
	}
	if s.faults["token-error-500"] {
		status = http.StatusInternalServerError
	}
	if s.faults["error-codes"] {
		code = "invalid_request"
	}
	if status == http.StatusUnauthorized && basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
	}
	writeJSON(w, status, map[string]string{"error": code, "error_description": why}, true)
}

func writeJSON(w http.ResponseWriter, status int, v any, noStore bool) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	if noStore {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func readAll(r *http.Request) ([]byte, error) { return io.ReadAll(r.Body) }

// Serve runs the reference authorization server on o.HTTP until o.Stop is
// closed (or the process ends).
func Serve(o refserver.Options) int {
	if o.HTTP == "" {
		// Nothing is spoken on stdio: like the stdio servers, it ends when
		// its input does.
		fmt.Fprintln(o.Log, "wirecheck reference authorization server: serves HTTP only (--http ADDR); nothing on stdio")
		if o.In != nil {
			_, _ = io.Copy(io.Discard, o.In)
		}
		return 0
	}
	s, err := New(Options{Faults: o.Faults, Variants: o.Variants})
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference authorization server: %v\n", err)
		return 1
	}
	host, port, err := net.SplitHostPort(o.HTTP)
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference authorization server: address %q: %v (want host:port)\n", o.HTTP, err)
		return 2
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintf(o.Log, "wirecheck reference authorization server: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(o.Log, "listening on http://%s%s\n", ln.Addr(), s.o.Path)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-o.Stop:
		_ = srv.Close()
		return 0
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(o.Log, "wirecheck reference authorization server: %v\n", err)
			return 1
		}
		return 0
	}
}
