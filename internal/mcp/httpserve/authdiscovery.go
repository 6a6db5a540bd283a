package httpserve

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The client's discovery of the authorization server's metadata, and its
// refresh-token wishes (2026-07-28's Refresh Tokens): what the guard
// judges of them beyond the first requests auth.go judges.

// judgeASOrder judges a request of an authorization server metadata URI.
// An issuer with a path (MCP-CLIENT-AUTH-6): the URIs of the priority
// order are asked in that order, the first one first, none skipped
// before a later one is asked; a URI outside the list, once the first
// was asked, breaks no order the text gives. An issuer without a path
// (MCP-CLIENT-AUTH-12): the text lists two URIs without calling it an
// order, so either may come first; once one answers, the client tried
// enough.
func (s *Server) judgeASOrder(g *Guard, r ASRequest) {
	order := g.asMetadataOrder()
	g.mu.Lock()
	first := !g.asMeta
	g.asMeta = true
	found, failed := g.asFound, g.asFailed
	tried := slices.Clone(g.asTried)
	if !found && r.Status == http.StatusOK {
		g.asFound = true
	}
	at := slices.Index(order, r.Path)
	if !found && at >= 0 && !slices.Contains(g.asTried, r.Path) {
		g.asTried = append(g.asTried, r.Path)
	}
	g.mu.Unlock()
	if found || failed {
		return
	}
	if g.ASRoot {
		if r.Status == http.StatusOK && at >= 0 {
			s.check(CheckAuthASRoot, verdict.Pass, "", "", "")
		}
		return
	}
	fail := func(msg, expected string) {
		g.mu.Lock()
		g.asFailed = true
		g.mu.Unlock()
		s.check(CheckAuthASOrder, verdict.Fail, msg, expected, r.Method+" "+s.base()+r.Path)
	}
	switch {
	case first && at != 0:
		fail("the client's first request for the authorization server's metadata is not RFC 8414's URI with the issuer's path inserted", "GET "+s.base()+order[0]+" first (then OpenID Connect Discovery's, inserted, then appended)")
		return
	case at > len(tried):
		fail("the client asked a later URI of the priority order before "+s.base()+order[len(tried)]+", which it had not tried", "GET "+s.base()+order[len(tried)]+" before "+s.base()+r.Path)
		return
	}
	if r.Status == http.StatusOK && at >= 0 {
		s.check(CheckAuthASOrder, verdict.Pass, "", "", "")
	}
}

// judgeASGaveUp, once the protection ends: a client that asked for the
// metadata and found none tried every URI the text lists before it gave
// up.
func (s *Server) judgeASGaveUp(g *Guard) {
	order := g.asMetadataOrder()
	g.mu.Lock()
	asked, found, failed := g.asMeta, g.asFound, g.asFailed
	tried := slices.Clone(g.asTried)
	g.mu.Unlock()
	if !asked || found || failed || len(tried) == len(order) {
		return
	}
	var left []string
	for _, u := range order {
		if !slices.Contains(tried, u) {
			left = append(left, "GET "+s.base()+u)
		}
	}
	check, msg := CheckAuthASOrder, "the client gave up on the authorization server's metadata without trying every URI of the priority order"
	if g.ASRoot {
		check, msg = CheckAuthASRoot, "the client gave up on the authorization server's metadata (an issuer without a path) without trying both RFC 8414's and OpenID Connect Discovery's URIs"
	}
	s.check(check, verdict.Fail, msg, strings.Join(left, ", "), "asked "+strings.Join(tried, ", ")+"; none answered")
}

// judgeOffline judges an authorization request's offline_access: asked
// only when the authorization server's metadata offers it.
func (s *Server) judgeOffline(g *Guard, f url.Values) {
	asked := slices.Contains(strings.Fields(f.Get("scope")), "offline_access")
	offered := slices.Contains(g.ASScopes, "offline_access")
	g.mu.Lock()
	judged := g.offlineJudged
	g.offlineJudged = true
	if asked {
		g.wantsRefresh = true
	}
	g.mu.Unlock()
	switch {
	case asked && !offered:
		s.check(CheckAuthOffline, verdict.Fail, "the authorization request asks offline_access, which the authorization server's metadata does not list in scopes_supported", "scope without offline_access (scopes_supported: "+strings.Join(g.asScopes(), " ")+")", "scope="+f.Get("scope"))
	case !judged:
		s.check(CheckAuthOffline, verdict.Pass, "", "", "")
	}
}

// asScopes are the scopes_supported the authorization server's metadata
// lists.
func (g *Guard) asScopes() []string {
	if g.ASScopes == nil {
		return []string{"mcp"}
	}
	return g.ASScopes
}

// judgeGrantTypes, once the protection ends: a client that registered
// and wants refresh tokens (it asked offline_access or redeemed one)
// listed refresh_token among its grant_types. One that shows no such
// wish is not judged: the guidance is for "MCP Clients that desire
// refresh tokens".
func (s *Server) judgeGrantTypes(g *Guard) {
	g.mu.Lock()
	registered, wants, gt := g.registered, g.wantsRefresh, g.grantTypes
	g.mu.Unlock()
	switch {
	case !registered:
	case slices.Contains(gt, "refresh_token"):
		s.check(CheckAuthGrantTypes, verdict.Pass, "", "", "")
	case wants:
		actual := "grant_types " + strings.Join(gt, " ")
		if gt == nil {
			actual = "no grant_types (RFC 7591: authorization_code alone)"
		}
		s.check(CheckAuthGrantTypes, verdict.Fail, "the client wants refresh tokens (it asked offline_access or redeemed a refresh token) but did not register refresh_token among its grant_types", "grant_types including refresh_token", actual)
	}
}
