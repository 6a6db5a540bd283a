package httpserve

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Client registration as the protected resource's authorization servers
// see it (MCP basic/authorization, client registration): what the client
// registered, the Client ID Metadata Document its URL client_id names,
// the pre-registered credentials the run handed it, and what it shows a
// second authorization server once the metadata names that one.

// regState is what registration has shown so far (Guard.reg, under its mu).
type regState struct {
	// switched: the protected resource metadata names Auth.AS2.
	switched bool
	// cimdJudged: the first authorization under Auth.CIMD was judged.
	cimdJudged bool
	// second* are the client's dealings with Auth.AS2: registered there,
	// its first authorization judged, a credential of the first server
	// shown to it, any request of its endpoints at all.
	secondRegistered, secondJudged, reused, secondSeen bool
}

// issuer is the path of the authorization server the metadata names.
func (g *Guard) issuer() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reg.switched {
		return AS2Path
	}
	return g.asPath()
}

// verify takes a token of the authorization server the metadata names.
// With a second one set, the first request the first server's token
// passes moves the metadata to the second: from then on the client must
// authorize there.
func (g *Guard) verify(token, base, resource string) (string, error) {
	g.mu.Lock()
	switched := g.reg.switched
	g.mu.Unlock()
	if switched {
		return g.Verify2(token, base+AS2Path, resource)
	}
	scope, err := g.Verify(token, base+g.asPath(), resource)
	if err == nil && g.AS2 != nil {
		g.mu.Lock()
		g.reg.switched = true
		g.mu.Unlock()
	}
	return scope, err
}

// isURLClientID: a client_id in the form of a URL, as a Client ID Metadata
// Document's is (an issued one is an opaque string).
func isURLClientID(id string) bool { return strings.Contains(id, "://") }

// observeReg judges the registration side of what the client asked of an
// authorization server.
func (s *Server) observeReg(g *Guard, r ASRequest) {
	switch r.Endpoint {
	case "register":
		s.judgeApplicationType(r.Body)
		if r.Second && r.Status/100 == 2 {
			g.mu.Lock()
			g.reg.secondRegistered = true
			g.mu.Unlock()
		}
	case "authorize":
		id := r.Form.Get("client_id")
		if isURLClientID(id) {
			s.judgeCIMDURL(id)
		}
		if !r.Second && g.CIMD {
			g.mu.Lock()
			first := !g.reg.cimdJudged
			g.reg.cimdJudged = true
			g.mu.Unlock()
			switch {
			case !first:
			case isURLClientID(id) || g.preregistered(id):
				// A pre-registered client comes first in the priority order.
				s.check(CheckRegCIMDUsed, verdict.Pass, "", "", "")
			default:
				s.check(CheckRegCIMDUsed, verdict.Fail, "the authorization server's metadata advertises client_id_metadata_document_supported, and the client identified itself by a client_id it registered rather than a metadata document's URL", "client_id=https://… (the URL of the client's metadata document)", "client_id="+id)
			}
		}
		if r.Second {
			s.judgeSecond(g, id, "", r.Form.Get("refresh_token"), "authorization request")
		}
	case "token":
		id, secret := tokenClient(r)
		// Under an extension its own rules judge how the client
		// authenticates (a client assertion needs no secret).
		if !r.Second && g.Extension == "" && g.preregistered(id) {
			if secret == g.Provisions.ClientSecret {
				s.check(CheckRegPreregistered, verdict.Pass, "", "", "")
			} else {
				got := "no client secret"
				if secret != "" {
					got = "another client secret"
				}
				s.check(CheckRegPreregistered, verdict.Fail, "the token request of the pre-registered client_id does not authenticate with the client secret handed to the client with it ({client_secret})", "client_secret_basic or client_secret_post with the pre-registered secret", got)
			}
		}
		if r.Second {
			s.judgeSecond(g, id, secret, r.Form.Get("refresh_token"), "token request")
		}
	}
}

// preregistered: id is the client the run provisioned, which the first
// authorization server knows beforehand.
func (g *Guard) preregistered(id string) bool {
	return g.Provisions.ClientID != "" && id == g.Provisions.ClientID
}

// tokenClient is the client_id and secret a token request authenticates
// with: HTTP Basic's (form-encoded, RFC 6749 §2.3.1), else the form's.
func tokenClient(r ASRequest) (id, secret string) {
	if h := r.Header.Get("Authorization"); len(h) > 6 && strings.EqualFold(h[:6], "Basic ") {
		if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:])); err == nil {
			i, sec, _ := strings.Cut(string(b), ":")
			if u, err := url.QueryUnescape(i); err == nil {
				i = u
			}
			if u, err := url.QueryUnescape(sec); err == nil {
				sec = u
			}
			return i, sec
		}
	}
	return r.Form.Get("client_id"), r.Form.Get("client_secret")
}

// judgeApplicationType: a registration request names application_type,
// one of the two OpenID Connect Dynamic Client Registration defines.
func (s *Server) judgeApplicationType(body []byte) {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		// Not a registration request: the authorization server refuses it.
		return
	}
	v, has := m["application_type"]
	switch t, _ := v.(string); {
	case !has:
		s.check(CheckRegApplicationType, verdict.Fail, "the registration request has no application_type (OIDC servers take it for \"web\")", `application_type "native" (a local client) or "web"`, "none")
	case t != "native" && t != "web":
		s.check(CheckRegApplicationType, verdict.Fail, "the registration request's application_type is not one OpenID Connect Dynamic Client Registration defines", `application_type "native" or "web"`, fmt.Sprintf("application_type %v", jsonText(v)))
	default:
		s.check(CheckRegApplicationType, verdict.Pass, "", "", "")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// judgeCIMDURL: a URL client_id uses https and has a path.
func (s *Server) judgeCIMDURL(id string) {
	u, err := url.Parse(id)
	switch {
	case err != nil || u.Host == "":
		s.check(CheckRegCIMDURL, verdict.Fail, "the client_id has the form of a URL but is not an absolute one", "client_id=https://HOST/PATH", "client_id="+id)
	case u.Scheme != "https":
		s.check(CheckRegCIMDURL, verdict.Fail, "the client_id URL does not use the https scheme", "client_id=https://…", "client_id="+id)
	case u.Path == "" || u.Path == "/":
		s.check(CheckRegCIMDURL, verdict.Fail, "the client_id URL has no path component", "client_id=https://HOST/PATH (e.g. /client.json)", "client_id="+id)
	default:
		s.check(CheckRegCIMDURL, verdict.Pass, "", "", "")
	}
}

// judgeDocument: the document a URL client_id names is a JSON object with
// client_id equal to its URL exactly, client_name and redirect_uris.
func (s *Server) judgeDocument(d Document) {
	if d.Err != "" {
		s.check(CheckRegCIMDDocument, verdict.Fail, "the client's metadata document could not be fetched from its client_id URL: "+d.Err, "200 with the document at "+d.URL, d.Err)
		return
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(d.Body, &doc); err != nil {
		s.check(CheckRegCIMDDocument, verdict.Fail, "the client's metadata document is not a JSON object", "a JSON object with client_id, client_name, redirect_uris", truncate(string(d.Body), 200))
		return
	}
	var problems []string
	var id, name string
	var redirects []string
	if json.Unmarshal(doc["client_id"], &id) != nil || id != d.URL {
		problems = append(problems, fmt.Sprintf("client_id %s is not the document's URL %q exactly", cmpText(doc["client_id"]), d.URL))
	}
	if json.Unmarshal(doc["client_name"], &name) != nil || name == "" {
		problems = append(problems, "no client_name")
	}
	if json.Unmarshal(doc["redirect_uris"], &redirects) != nil || len(redirects) == 0 {
		problems = append(problems, "no redirect_uris")
	}
	if len(problems) == 0 {
		s.check(CheckRegCIMDDocument, verdict.Pass, "", "", "")
		return
	}
	s.check(CheckRegCIMDDocument, verdict.Fail, "the client's metadata document at "+d.URL+": "+strings.Join(problems, "; "), `client_id equal to the URL, client_name and redirect_uris`, truncate(string(d.Body), 200))
}

func cmpText(raw json.RawMessage) string {
	if raw == nil {
		return "(none)"
	}
	return string(raw)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// judgeSecond: what the client shows the second authorization server is
// its own: a client_id registered there (or a portable metadata
// document's URL), no client id, secret or refresh token of the first.
func (s *Server) judgeSecond(g *Guard, id, secret, refresh, what string) {
	g.mu.Lock()
	g.reg.secondSeen = true
	first := !g.reg.secondJudged && what == "authorization request"
	if first {
		g.reg.secondJudged = true
	}
	registered := g.reg.secondRegistered
	g.mu.Unlock()
	if first {
		if registered || isURLClientID(id) {
			s.check(CheckRegReregister, verdict.Pass, "", "", "")
		} else {
			s.check(CheckRegReregister, verdict.Fail, "the protected resource metadata moved to another authorization server and the client authorized there without registering with it", "a registration with "+AS2Path+"/register (or a metadata document's URL as client_id) before the authorization request", "client_id="+id+" with no registration")
		}
	}
	var reuse string
	if old, ok := g.Issued1(id); ok && id != "" {
		reuse = "the client_id " + id + " of the first authorization server"
		if secret != "" && secret == old {
			reuse += ", with its secret"
		}
	}
	if refresh != "" && g.Refresh1(refresh) {
		reuse = "a refresh token of the first authorization server"
	}
	if reuse == "" {
		return
	}
	g.mu.Lock()
	already := g.reg.reused
	g.reg.reused = true
	g.mu.Unlock()
	if !already {
		s.check(CheckRegNoReuse, verdict.Fail, "the client's "+what+" to the authorization server the metadata moved to carries "+reuse, "only credentials the new authorization server issued", reuse)
	}
}

// judgeRegEnd, once a protection ends: a client that dealt with the second
// authorization server never showed it the first one's credentials.
func (s *Server) judgeRegEnd(g *Guard) {
	g.mu.Lock()
	ok := g.AS2 != nil && g.reg.secondSeen && !g.reg.reused
	g.mu.Unlock()
	if ok {
		s.check(CheckRegNoReuse, verdict.Pass, "", "", "")
	}
}
