package httpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wirecheck/wirecheck/internal/pkce"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Auth makes the server a protected resource (MCP's authorization, 2025-06-18
// on): a request to the MCP endpoint without a token the mock
// authorization server issued for this endpoint is answered 401 with
// WWW-Authenticate naming the protected resource metadata (RFC 9728),
// served at the well-known URIs of the endpoint; the authorization
// server (a scenario mounts internal/refserver/mcpauthz, which approves
// without a human) is served on the same listener under ASPath.
type Auth struct {
	// Scope, when set, is the scope parameter of the challenge.
	Scope string
	// ScopesSupported are the metadata's scopes_supported (none: left out).
	ScopesSupported []string
	// NoHint leaves resource_metadata out of the challenge: the client
	// must construct the well-known URIs, path-based first.
	NoHint bool
	// AS is the authorization server, served for every path but the MCP
	// endpoint's and the metadata's; its issuer is the listener's origin
	// followed by ASPath.
	AS http.Handler
	// Verify checks that token was issued by issuer for resource and
	// returns the scope it grants.
	Verify func(token, issuer, resource string) (scope string, err error)
	// StepUp, when set, is a scope a tools/call needs: a token without
	// it is answered 403 insufficient_scope naming the token's scopes and
	// this one.
	StepUp string
	// StepUpNever answers every tools/call 403 insufficient_scope, the
	// scope granted or not: a client must give up after a few tries.
	StepUpNever bool
	// Iss tampers with the iss of every authorization response (the
	// metadata advertises it): IssMissing leaves it out, IssSlash adds a
	// trailing slash to it (a client comparing without normalization
	// rejects both and never redeems the code).
	Iss string
	// WrongIssuer: the authorization server's metadata names an issuer
	// other than the one its URL was built from (the scenario mounts one
	// so); a client must not use it: no request of its endpoints.
	WrongIssuer bool

	// CIMD: the authorization server's metadata advertises
	// client_id_metadata_document_supported (the scenario mounts one so):
	// a client should identify itself by the URL of its Client ID
	// Metadata Document rather than register.
	CIMD bool
	// NoRegistration: the authorization server offers no registration
	// endpoint (the scenario mounts one so).
	NoRegistration bool
	// Migrate: the scenario mounts a second authorization server as AS2.
	Migrate bool
	// Provisions are what the client was given (Session.Provisioned):
	// the authorization server knows the pre-registered client
	// (ClientID, ClientSecret: a token request of that id is judged to
	// authenticate with that secret) and, under an extension, trusts the
	// workload's issuer by them.
	Provisions Provisions
	// Extension, set, is the authorization extension in force
	// (authext.go): the client, given its credentials (Provisions), gets
	// its token with the extension's grant, judged as it asks.
	Extension string
	// AS2, set, is a second authorization server, its issuer the
	// listener's origin followed by AS2Path: once the client made a
	// request with a token of the first, the protected resource metadata
	// names AS2 alone and only tokens Verify2 takes pass.
	AS2     http.Handler
	Verify2 func(token, issuer, resource string) (scope string, err error)
	// Issued1 says whether a client id is one the first authorization
	// server issued or was given (its secret beside it), Refresh1 whether
	// a refresh token is one it issued: credentials the second must never
	// be shown.
	Issued1  func(id string) (secret string, ok bool)
	Refresh1 func(rt string) bool
	// IssUnadvertised: the metadata does not advertise
	// authorization_response_iss_parameter_supported, though the
	// responses carry iss (as Iss tampers with it): a client compares a
	// present iss all the same (2026-07-28's table, third row).
	IssUnadvertised bool
	// IssAbsent: the metadata does not advertise iss and the responses
	// carry none.
	IssAbsent bool
	// IssProceed judges that the client redeems a code whose response is
	// valid as the revision's table has it though the metadata does not
	// advertise iss (the issuer's iss, or none): its rows say compare and
	// proceed.
	IssProceed bool
	// ASRoot serves the authorization server at the listener's root: an
	// issuer without a path, whose metadata URIs have none either.
	ASRoot bool
	// ASMetadata is where the authorization server publishes its
	// metadata: "" RFC 8414's URI alone, MetadataOpenID OpenID Connect
	// Discovery's alone (inserted and appended), MetadataAppended the
	// appended one alone: a client reaches it only by trying every URI
	// of the priority order.
	ASMetadata string
	// ASScopes are the authorization server metadata's scopes_supported
	// (nil: mcp alone), where offline_access is offered or not.
	ASScopes []string
}

// The places of Auth.ASMetadata.
const (
	MetadataOpenID   = "openid"
	MetadataAppended = "openid-appended"
)

// ASRequest is one request the authorization server handled, as
// Guard.Observe is told it.
type ASRequest struct {
	// Endpoint is metadata, authorize, token, register, jwks or "".
	Endpoint string
	Method   string
	Path     string
	// Form is the query (authorize) or the form body (token).
	Form url.Values
	// Header are the request's headers (a token request's HTTP Basic).
	Header http.Header
	// Body is a registration's JSON body.
	Body []byte
	// Status is the status the server answered.
	Status int
	// Second: the request was of Auth.AS2.
	Second bool
}

// Document is a Client ID Metadata Document the authorization server
// fetched (or failed to fetch) for a URL client_id.
type Document struct {
	URL  string
	Body []byte
	// Err is why it could not be fetched ("" when it was).
	Err string
}

// NewGuard makes the protection a; the authorization server tells its
// Observe what it handled, and Server.Protect puts it in force.
func NewGuard(a Auth) *Guard {
	return &Guard{Auth: a, challenges: map[string]string{}, tampered: map[string]bool{}, proceed: map[string]bool{}}
}

// The tamperings of Auth.Iss.
const (
	IssMissing = "missing"
	IssSlash   = "slash"
	// IssOther puts another server's issuer in iss.
	IssOther = "other"
)

// otherIssuer is the iss IssOther puts in an authorization response.
const otherIssuer = "https://as.invalid"

// ASPath is the authorization server's issuer path on the listener.
const ASPath = "/as"

// AS2Path is the second authorization server's (Auth.AS2): a path no
// endpoint or well-known URI of the first contains.
const AS2Path = "/as2"

// prmPrefix is RFC 9728's well-known URI prefix.
const prmPrefix = "/.well-known/oauth-protected-resource"

// Guard is a protection: the authorization server and what the client
// has done against it so far.
type Guard struct {
	Auth
	srv atomic.Pointer[Server]

	mu sync.Mutex
	// prm: the client fetched the protected resource metadata; prmFirst
	// is the path of its first request of a metadata URI.
	prm      bool
	prmFirst string
	// asMeta: the client asked for the authorization server's metadata.
	asMeta bool
	// asSeen: the client has made a request of the authorization server.
	asSeen bool
	// challenges are the code challenges of the client's authorization
	// requests (the method beside each), by challenge.
	challenges map[string]string
	// issued: a token was issued; from then on every request carries it.
	issued bool
	// authorizations counts the client's authorization requests.
	authorizations int
	// stepUp is the scope the last 403 asked, stepUps how many 403s went
	// out, afterStepUp the authorization requests since the first one.
	stepUp       string
	stepUps      int
	afterStepUp  int
	stepUpJudged bool
	// tampered are the codes of authorization responses whose iss was
	// tampered with; redeemed says one was sent to the token endpoint.
	tampered map[string]bool
	redeemed bool
	// proceed are the codes of valid responses IssProceed judges;
	// proceeded says one was redeemed.
	proceed   map[string]bool
	proceeded bool
	// usedWrong: the client used metadata whose issuer was wrong.
	usedWrong bool
	// reg is what client registration showed (registration.go).
	reg regState
	// asTried are the metadata URIs of the priority order the client
	// asked, in order, before one answered; asFound: one answered;
	// asFailed: the order was judged broken.
	asTried  []string
	asFound  bool
	asFailed bool
	// grantTypes are the grant_types of the client's registration
	// (registered: it registered); wantsRefresh: it asked offline_access
	// or redeemed a refresh token, the wish the refresh-token guidance
	// is for.
	grantTypes   []string
	registered   bool
	wantsRefresh bool
	// offlineJudged: an authorization request's offline_access was judged.
	offlineJudged bool
}

// asPath is the issuer's path on the listener ("" at the root).
func (g *Guard) asPath() string {
	if g.ASRoot {
		return ""
	}
	return ASPath
}

// asMetadataOrder are the metadata URIs (paths) of the issuer, in the
// order 2025-11-25's Authorization Server Metadata Discovery lists them.
func (g *Guard) asMetadataOrder() []string {
	p := g.asPath()
	if p == "" {
		return []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}
	}
	return []string{"/.well-known/oauth-authorization-server" + p, "/.well-known/openid-configuration" + p, p + "/.well-known/openid-configuration"}
}

// Protect makes the server a protected resource from its next request on
// (nil: open again). A client already connected meets the 401 on its
// next request, as a server may ask for authorization at any request.
func (s *Server) Protect(g *Guard) {
	if g != nil {
		g.srv.Store(s)
	}
	if old := s.guard.Swap(g); old != nil && old != g {
		s.judgeRetries(old)
	}
}

// retryLimit is how many authorizations after a first 403 a client may
// make before it is judged to loop: "no more than a few times".
const retryLimit = 3

// judgeRetries, once a protection ends: a client answered 403 for good
// gave up within retryLimit authorizations.
func (s *Server) judgeRetries(g *Guard) {
	g.mu.Lock()
	n, asked := g.afterStepUp, g.stepUps > 0
	tampered, redeemed := len(g.tampered) > 0, g.redeemed
	g.mu.Unlock()
	if tampered && !redeemed {
		s.check(CheckAuthIss, verdict.Pass, "", "", "")
	}
	g.mu.Lock()
	wrongOK := g.WrongIssuer && g.asMeta && !g.usedWrong
	g.mu.Unlock()
	if wrongOK {
		s.check(CheckAuthIssuer, verdict.Pass, "", "", "")
	}
	if g.StepUpNever && asked && n <= retryLimit {
		s.check(CheckAuthRetryLimit, verdict.Pass, "", "", "")
	}
	s.judgeRegEnd(g)
	s.judgeASGaveUp(g)
	s.judgeGrantTypes(g)
	g.mu.Lock()
	stuck := len(g.proceed) > 0 && !g.proceeded
	g.mu.Unlock()
	if stuck {
		why := "without iss, from an authorization server whose metadata does not advertise it (the table's fourth row: proceed)"
		if !g.IssAbsent {
			why = "whose iss is the issuer, from an authorization server whose metadata does not advertise iss (the table's third row: compare, and the two are equal)"
		}
		s.check(CheckAuthIss, verdict.Fail, "the client never redeemed the code of an authorization response "+why, "the code sent to the token endpoint", "no token request with it")
	}
}

// Protect protects the session's server (Server.Protect).
func (c *Session) Protect(g *Guard) { c.srv.Protect(g) }

// Observe is told each request the authorization server handled.
func (g *Guard) Observe(r ASRequest) {
	if s := g.srv.Load(); s != nil {
		s.observeAS(g, r)
		s.observeReg(g, r)
	}
}

// ObserveDocument is told each Client ID Metadata Document the
// authorization server fetched.
func (g *Guard) ObserveDocument(d Document) {
	if s := g.srv.Load(); s != nil {
		s.judgeDocument(d)
	}
}

// base is the listener's origin, http://127.0.0.1:PORT.
func (s *Server) base() string { return strings.TrimSuffix(s.url, s.path) }

// prmURL is the metadata's path-based well-known URI (RFC 9728 §3.1).
func (s *Server) prmURL() string { return s.base() + prmPrefix + s.path }

// guarded serves what a protected resource adds (its metadata, the
// authorization server) and refuses a request of the MCP endpoint
// without a valid token; false when the request is the endpoint's to
// handle.
func (s *Server) guarded(w http.ResponseWriter, r *http.Request) bool {
	g := s.guard.Load()
	if g == nil {
		return false
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, prmPrefix):
		g.mu.Lock()
		first := g.prmFirst == ""
		if first {
			g.prmFirst = p
		}
		g.mu.Unlock()
		if first {
			s.judgePRMOrder(g, p)
		}
		if p != prmPrefix+s.path && p != prmPrefix {
			http.NotFound(w, r)
			return true
		}
		g.mu.Lock()
		g.prm = true
		g.mu.Unlock()
		m := map[string]any{"resource": s.url, "authorization_servers": []string{s.base() + g.issuer()}, "bearer_methods_supported": []string{"header"}}
		if len(g.ScopesSupported) > 0 {
			m["scopes_supported"] = g.ScopesSupported
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
		return true
	case p != s.path && g.AS2 != nil && strings.Contains(p, AS2Path):
		g.AS2.ServeHTTP(w, r)
		return true
	case p != s.path:
		if g.ASMetadata == MetadataAppended && p == "/.well-known/openid-configuration"+g.asPath() {
			// Only the appended URI serves the metadata: the inserted one
			// is missing as on a server that does not publish it there.
			s.observeAS(g, ASRequest{Method: r.Method, Path: p, Status: http.StatusNotFound})
			http.NotFound(w, r)
			return true
		}
		if (g.Iss != "" || g.IssProceed) && p == g.asPath()+"/authorize" {
			w = &tamper{ResponseWriter: w, g: g}
		}
		g.AS.ServeHTTP(w, r)
		return true
	}
	if q := r.URL.Query(); q.Has("access_token") {
		s.check(CheckAuthBearer, verdict.Fail, "the access token is in the URI query string", "Authorization: Bearer <token>, never the query string", "?access_token=…")
	}
	token, ok := bearer(r.Header.Get("Authorization"))
	g.mu.Lock()
	issued := g.issued
	g.mu.Unlock()
	// The rule is the header's: a token sent there passes it, valid or
	// not (one the server refuses is answered 401 all the same); none sent
	// once one was issued fails it.
	switch {
	case ok:
		s.check(CheckAuthBearer, verdict.Pass, "", "", "")
	case issued:
		s.check(CheckAuthBearer, verdict.Fail, r.Method+" to the MCP endpoint after the client was issued a token, without it in the Authorization header", "Authorization: Bearer <the token issued for "+s.url+">", "no Authorization header")
	}
	if r.Method == http.MethodDelete {
		// The session's end is let through whatever the token: a client
		// refused authorization still owes it.
		return false
	}
	if ok {
		if scope, err := g.verify(token, s.base(), s.url); err == nil {
			return s.stepUp(g, w, r, scope)
		}
	}
	if !ok && !issued && s.notification(w, r) {
		// Until a token is issued a notification goes through, as the
		// official suite's protected server lets it: the 401 lands on a
		// request, which a client sends again once authorized. A
		// notifications/initialized refused would be lost to a client
		// that reconnects instead, and the session judged without it.
		return false
	}
	var params []string
	if !g.NoHint {
		params = append(params, fmt.Sprintf(`resource_metadata=%q`, s.prmURL()))
	}
	if g.Scope != "" {
		params = append(params, fmt.Sprintf(`scope=%q`, g.Scope))
	}
	ch := "Bearer"
	if len(params) > 0 {
		ch += " " + strings.Join(params, ", ")
	}
	if method, id, ok := s.peek(w, r); ok && method != "" && id != nil {
		s.sent(transport.IDKey(id))
	}
	w.Header().Set("WWW-Authenticate", ch)
	http.Error(w, "authorization required", http.StatusUnauthorized)
	return true
}

// notification reports whether r is a POST of one JSON-RPC notification;
// its body is left for the endpoint to read.
func (s *Server) notification(w http.ResponseWriter, r *http.Request) bool {
	method, id, ok := s.peek(w, r)
	return ok && method != "" && id == nil
}

// peek is the method and id of r when it is a POST of one JSON-RPC
// message; its body is left for the endpoint to read.
func (s *Server) peek(w http.ResponseWriter, r *http.Request) (method string, id any, ok bool) {
	if r.Method != http.MethodPost {
		return "", nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.maxFrame)))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", nil, false
	}
	var m struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return "", nil, false
	}
	return m.Method, m.ID, true
}

// judgePRMOrder: the first metadata URI the client asked is the one the
// challenge named or, with none named, the path-based well-known URI.
func (s *Server) judgePRMOrder(g *Guard, p string) {
	want, why := prmPrefix+s.path, "the resource_metadata URL the WWW-Authenticate challenge named"
	if g.NoHint {
		why = "the path-based well-known URI, as the challenge named no resource_metadata"
	}
	if p == want {
		s.check(CheckAuthPRMOrder, verdict.Pass, "", "", "")
		return
	}
	s.check(CheckAuthPRMOrder, verdict.Fail, "the client's first request for protected resource metadata is not "+why, "GET "+s.base()+want+" first", "GET "+s.base()+p)
}

// isASMetadata: a request of one of the well-known URIs an authorization
// server's metadata may be at (RFC 8414, OpenID Connect Discovery,
// inserted or appended).
func isASMetadata(p string) bool {
	return strings.HasPrefix(p, "/.well-known/oauth-authorization-server") || strings.HasPrefix(p, "/.well-known/openid-configuration") ||
		strings.HasSuffix(p, "/.well-known/openid-configuration")
}

// bearer is the token of an Authorization: Bearer header.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// observeAS judges what the client asked of the authorization server.
func (s *Server) observeAS(g *Guard, r ASRequest) {
	g.mu.Lock()
	first := !g.asSeen
	g.asSeen = true
	prm := g.prm
	g.mu.Unlock()
	if first {
		if prm {
			s.check(CheckAuthPRM, verdict.Pass, "", "", "")
		} else {
			s.check(CheckAuthPRM, verdict.Fail, "the client asked the authorization server ("+r.Path+") without fetching the protected resource metadata first", "a GET of "+s.prmURL()+" (named by WWW-Authenticate) before any request of the authorization server", r.Method+" "+r.Path)
		}
	}
	if isASMetadata(r.Path) {
		s.judgeASOrder(g, r)
	}
	if g.WrongIssuer && (r.Endpoint == "authorize" || r.Endpoint == "token" || r.Endpoint == "register") {
		g.mu.Lock()
		first := !g.usedWrong
		g.usedWrong = true
		g.mu.Unlock()
		if first {
			s.check(CheckAuthIssuer, verdict.Fail, "the client used the authorization server's metadata though its issuer is not the one the metadata URL was built from", "the metadata rejected: no request of its endpoints", r.Method+" "+r.Path)
		}
	}
	if g.Extension != "" {
		s.judgeExtension(g, r)
	}
	switch r.Endpoint {
	case "register":
		var reg struct {
			GrantTypes []string `json:"grant_types"`
		}
		if json.Unmarshal(r.Body, &reg) == nil {
			g.mu.Lock()
			g.registered, g.grantTypes = true, reg.GrantTypes
			g.mu.Unlock()
		}
	case "authorize":
		s.judgeOffline(g, r.Form)
		ch, m := r.Form.Get("code_challenge"), r.Form.Get("code_challenge_method")
		switch {
		case ch == "":
			s.check(CheckAuthPKCE, verdict.Fail, "the authorization request has no code_challenge", "code_challenge and code_challenge_method=S256", "none")
		case m != "S256":
			s.check(CheckAuthPKCE, verdict.Fail, "the authorization request's code_challenge_method is not S256 (the authorization server's metadata lists S256 alone)", "code_challenge_method=S256", fmt.Sprintf("code_challenge_method=%q", m))
		default:
			s.check(CheckAuthPKCE, verdict.Pass, "", "", "")
		}
		g.mu.Lock()
		g.challenges[ch] = m
		g.authorizations++
		first := g.authorizations == 1
		need, judged := g.stepUp, g.stepUpJudged
		if need != "" {
			g.afterStepUp++
			g.stepUpJudged = true
		}
		loops := g.StepUpNever && g.afterStepUp == retryLimit+1
		g.mu.Unlock()
		if first {
			s.judgeScope(g, r.Form)
		}
		if need != "" && !judged {
			s.judgeStepUpScope(need, r.Form.Get("scope"))
		}
		if loops {
			s.check(CheckAuthRetryLimit, verdict.Fail, fmt.Sprintf("the client authorized again more than %d times for a request the server keeps refusing 403 insufficient_scope", retryLimit), fmt.Sprintf("at most %d new authorizations, then the request treated as failed", retryLimit), fmt.Sprintf("%d authorizations", retryLimit+1))
		}
		s.judgeResource("authorization", r.Form)
	case "token":
		g.mu.Lock()
		valid := g.proceed[r.Form.Get("code")]
		first := valid && !g.proceeded
		g.proceeded = g.proceeded || valid
		g.mu.Unlock()
		if first {
			s.check(CheckAuthIss, verdict.Pass, "", "", "")
		}
		g.mu.Lock()
		bad := g.tampered[r.Form.Get("code")] && !g.redeemed
		if bad {
			g.redeemed = true
		}
		g.mu.Unlock()
		if bad {
			why := "an authorization response without iss, from an authorization server whose metadata advertises it"
			switch g.Iss {
			case IssSlash:
				why = "an authorization response whose iss is not the issuer (a trailing slash added: no normalization before the comparison)"
			case IssOther:
				why = "an authorization response whose iss is another server's (" + otherIssuer + "), though the metadata does not advertise iss: a present iss is compared all the same"
			}
			s.check(CheckAuthIss, verdict.Fail, "the client sent the token endpoint the code of "+why, "the response rejected: no token request with its code", "grant_type=authorization_code with that code")
		}
		if r.Form.Get("grant_type") == "refresh_token" {
			g.mu.Lock()
			g.wantsRefresh = true
			g.mu.Unlock()
		}
		if r.Form.Get("grant_type") == "authorization_code" {
			v := r.Form.Get("code_verifier")
			g.mu.Lock()
			_, known := g.challenges[pkce.S256(v)]
			g.mu.Unlock()
			if v == "" {
				s.check(CheckAuthPKCE, verdict.Fail, "the token request has no code_verifier", "the code_verifier of the authorization request's challenge", "none")
			} else if !known {
				s.check(CheckAuthPKCE, verdict.Fail, "the token request's code_verifier is not the one of any code_challenge the client sent (S256)", "BASE64URL(SHA256(code_verifier)) equal to the code_challenge", v)
			} else {
				s.check(CheckAuthPKCE, verdict.Pass, "", "", "")
			}
		}
		s.judgeResource("token", r.Form)
		if r.Status == http.StatusOK {
			g.mu.Lock()
			g.issued = true
			g.mu.Unlock()
		}
	}
}

// stepUp answers 403 insufficient_scope to a tools/call whose token lacks
// the scope the guard asks for it (every tools/call with StepUpNever), and
// judges a client that goes on with the token a 403 found short; true
// when it answered.
func (s *Server) stepUp(g *Guard, w http.ResponseWriter, r *http.Request, granted string) bool {
	if g.StepUp == "" || r.Method != http.MethodPost {
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.maxFrame)))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return false
	}
	have := strings.Fields(granted)
	// A tools/call again with the token a 403 found short: no step-up.
	g.mu.Lock()
	short := g.stepUp != "" && !slices.Contains(have, g.StepUp)
	judged := g.stepUpJudged
	if short && !judged {
		g.stepUpJudged = true
	}
	g.mu.Unlock()
	if short && !judged {
		s.check(CheckAuthStepUp, verdict.Fail, "after a 403 insufficient_scope the client sent tools/call again with a token still without the scope the challenge named (the one refused, or one refreshed with the same scopes), without authorizing anew", "a new authorization asking "+g.StepUp+", then the request with the new token", "a token of scope "+granted)
	}
	if !g.StepUpNever && slices.Contains(have, g.StepUp) {
		return false
	}
	need := strings.Join(append(slices.DeleteFunc(have, func(x string) bool { return x == g.StepUp }), g.StepUp), " ")
	g.mu.Lock()
	g.stepUp = need
	g.stepUps++
	g.mu.Unlock()
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, s.prmURL()))
	http.Error(w, "insufficient scope", http.StatusForbidden)
	return true
}

// judgeScope: the first authorization request's scope is the challenge's,
// else every one of scopes_supported, else none (offline_access aside,
// which 2026-07-28 lets a client add when the authorization server
// offers it); compared as sets.
func (s *Server) judgeScope(g *Guard, f url.Values) {
	want, from := g.Scope, "the WWW-Authenticate challenge's scope"
	if want == "" {
		want, from = strings.Join(g.ScopesSupported, " "), "every scope of the protected resource metadata's scopes_supported (the challenge named none)"
	}
	if want == "" {
		from = "no scope parameter (neither the challenge nor the metadata names one)"
	}
	set := func(sc string) map[string]bool {
		m := map[string]bool{}
		for _, x := range strings.Fields(sc) {
			if x != "offline_access" {
				m[x] = true
			}
		}
		return m
	}
	got, has := f["scope"]
	gotSet := map[string]bool{}
	if has && len(got) > 0 {
		gotSet = set(got[0])
	}
	if len(gotSet) == len(set(want)) && func() bool {
		for k := range set(want) {
			if !gotSet[k] {
				return false
			}
		}
		return true
	}() {
		s.check(CheckAuthScope, verdict.Pass, "", "", "")
		return
	}
	actual := "no scope parameter"
	if has && len(got) > 0 {
		actual = "scope=" + got[0]
	}
	expected := "scope=" + want
	if want == "" {
		expected = "no scope parameter"
	}
	s.check(CheckAuthScope, verdict.Fail, "the first authorization request's scope is not "+from, expected, actual)
}

// judgeStepUpScope: the authorization after a 403 asks every scope the
// challenge named.
func (s *Server) judgeStepUpScope(need, got string) {
	have := strings.Fields(got)
	for _, x := range strings.Fields(need) {
		if !slices.Contains(have, x) {
			s.check(CheckAuthStepUp, verdict.Fail, "the authorization after a 403 insufficient_scope does not ask every scope the challenge named", "scope including "+need, "scope="+got)
			return
		}
	}
	s.check(CheckAuthStepUp, verdict.Pass, "", "", "")
}

// judgeResource: RFC 8707's resource in an authorization or token request,
// the MCP server's canonical URI (with or without a trailing slash: RFC
// 8707 leaves both, MCP recommends without).
func (s *Server) judgeResource(what string, f url.Values) {
	got, ok := f["resource"]
	switch {
	case !ok || len(got) == 0:
		s.check(CheckAuthResource, verdict.Fail, "the "+what+" request has no resource parameter", "resource="+s.url, "none")
	case strings.TrimSuffix(got[0], "/") != s.url:
		s.check(CheckAuthResource, verdict.Fail, "the "+what+" request's resource is not the MCP server's canonical URI", "resource="+s.url, "resource="+got[0])
	default:
		s.check(CheckAuthResource, verdict.Pass, "", "", "")
	}
}

// tamper rewrites the iss of the authorization response's redirect as
// Auth.Iss says, and keeps its code.
type tamper struct {
	http.ResponseWriter
	g *Guard
}

func (t *tamper) WriteHeader(code int) {
	h := t.ResponseWriter.Header()
	if loc, err := url.Parse(h.Get("Location")); err == nil && loc.Query().Get("code") != "" {
		q := loc.Query()
		if t.g.Iss == "" {
			// IssProceed: the response as the server sent it.
			t.g.mu.Lock()
			t.g.proceed[q.Get("code")] = true
			t.g.mu.Unlock()
			t.ResponseWriter.WriteHeader(code)
			return
		}
		switch t.g.Iss {
		case IssMissing:
			q.Del("iss")
		case IssSlash:
			q.Set("iss", q.Get("iss")+"/")
		case IssOther:
			q.Set("iss", otherIssuer)
		}
		loc.RawQuery = q.Encode()
		h.Set("Location", loc.String())
		t.g.mu.Lock()
		t.g.tampered[q.Get("code")] = true
		t.g.mu.Unlock()
	}
	t.ResponseWriter.WriteHeader(code)
}
