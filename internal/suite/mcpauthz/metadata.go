package mcpauthz

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

// wellKnown are the URLs an MCP client tries for the metadata of issuer,
// in MCP 2025-11-25's order (basic/authorization, Authorization Server
// Metadata Discovery): RFC 8414's and OpenID Connect Discovery's
// well-known strings inserted between host and path, then OpenID
// Connect's appended to the path; for an issuer without a path the two
// at the root.
func wellKnown(issuer *url.URL) []string {
	at := func(path string) string {
		u := *issuer
		u.Path, u.RawPath = path, ""
		return u.String()
	}
	p := issuer.Path
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{at("/.well-known/oauth-authorization-server" + p), at("/.well-known/openid-configuration" + p), at(p + "/.well-known/openid-configuration")}
}

// meta is the metadata as found: where, its answer, its object.
type meta struct {
	url string
	doc map[string]any
	seq int
}

// discover fetches the metadata, judging (when judge) where and how it is
// served; nil when no well-known URI served it.
func discover(e *scenario.Env, w *web, judge bool) *meta {
	iss := w.issuer()
	var tried []string
	for _, u := range wellKnown(iss) {
		res, seq := w.get("metadata at "+u, u)
		if res == nil || res.Status != http.StatusOK {
			tried = append(tried, u+" → "+answered(res))
			continue
		}
		m := &meta{url: u, doc: object(res), seq: seq}
		if judge {
			pass(e, "MCP-AUTHZ-META-1", seq)
			if u == wellKnown(iss)[0] {
				pass(e, "MCP-AUTHZ-META-5", seq)
				pass(e, "MCP-AUTHZ-META-6", seq)
			} else {
				why := "no metadata at RFC 8414's well-known URI (" + strings.Join(tried, "; ") + "); only OpenID Connect Discovery's, at " + u
				fail(e, "MCP-AUTHZ-META-5", seq, why, "200 at "+wellKnown(iss)[0], "served at "+u)
				fail(e, "MCP-AUTHZ-META-6", seq, why, "200 at "+wellKnown(iss)[0], "served at "+u)
			}
			switch {
			case m.doc == nil:
				fail(e, "MCP-AUTHZ-META-2", seq, "the metadata at "+u+" is not a JSON object", "a JSON object", answered(res))
			case !isJSON(res.Header):
				fail(e, "MCP-AUTHZ-META-2", seq, "the metadata at "+u+" is not labelled application/json", "Content-Type: application/json", "Content-Type: "+res.Header.Get("Content-Type"))
			default:
				pass(e, "MCP-AUTHZ-META-2", seq)
			}
		}
		if m.doc == nil {
			return nil
		}
		return m
	}
	if judge {
		e.Skip("MCP-AUTHZ-META-2", "no well-known URI served metadata (MCP-AUTHZ-META-1)")
		fail(e, "MCP-AUTHZ-META-1", 0, "no well-known URI of issuer "+iss.String()+" served metadata",
			"200 at one of "+strings.Join(wellKnown(iss), ", "), strings.Join(tried, "; "))
		for _, r := range []string{"MCP-AUTHZ-META-5", "MCP-AUTHZ-META-6"} {
			fail(e, r, 0, "RFC 8414's well-known URI of issuer "+iss.String()+" served no metadata", "200 at "+wellKnown(iss)[0], tried[0])
		}
	}
	return nil
}

func metadata(e *scenario.Env) error {
	w := client(e, metadataRules)
	if w == nil {
		return nil
	}
	m := discover(e, w, true)
	if m == nil {
		skipAll(e, "no metadata to read (MCP-AUTHZ-META-1, -2)", "MCP-AUTHZ-META-3", "MCP-AUTHZ-META-4", "MCP-AUTHZ-PKCE-1", "MCP-AUTHZ-PKCE-3", "MCP-AUTHZ-CIMD-1", "MCP-AUTHZ-HTTPS-1")
		return nil
	}
	iss := w.issuer().String()
	switch got := m.doc["issuer"]; {
	case got == iss, got == iss+"/":
		pass(e, "MCP-AUTHZ-META-3", m.seq)
	default:
		fail(e, "MCP-AUTHZ-META-3", m.seq, "the metadata at "+m.url+" names another issuer", fmt.Sprintf("issuer %q", iss), fmt.Sprintf("issuer %v", show(got)))
	}
	var missing []string
	for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint"} {
		if str(m.doc, k) == "" {
			missing = append(missing, k)
		}
	}
	if !slices.Contains(strs(m.doc, "response_types_supported"), "code") {
		missing = append(missing, "response_types_supported (with code)")
	}
	if len(missing) == 0 {
		pass(e, "MCP-AUTHZ-META-4", m.seq)
	} else {
		fail(e, "MCP-AUTHZ-META-4", m.seq, "the metadata lacks "+strings.Join(missing, ", "), "issuer, authorization_endpoint, token_endpoint, response_types_supported", keys(m.doc))
	}
	methods := m.doc["code_challenge_methods_supported"]
	if methods != nil {
		pass(e, "MCP-AUTHZ-PKCE-1", m.seq)
	} else {
		fail(e, "MCP-AUTHZ-PKCE-1", m.seq, "the metadata has no code_challenge_methods_supported: MCP reads that as no PKCE, and an MCP client refuses to proceed",
			"code_challenge_methods_supported", keys(m.doc))
	}
	if slices.Contains(strs(m.doc, "code_challenge_methods_supported"), "S256") {
		pass(e, "MCP-AUTHZ-PKCE-3", m.seq)
	} else {
		fail(e, "MCP-AUTHZ-PKCE-3", m.seq, "the metadata does not list S256 in code_challenge_methods_supported, the method an MCP client must use",
			`code_challenge_methods_supported with "S256"`, fmt.Sprintf("code_challenge_methods_supported %v", show(methods)))
	}
	judgeHTTPS(e, m)
	if m.doc["client_id_metadata_document_supported"] == true {
		pass(e, "MCP-AUTHZ-CIMD-1", m.seq)
	} else {
		fail(e, "MCP-AUTHZ-CIMD-1", m.seq, "the metadata does not say the server takes Client ID Metadata Documents: a client it has never met must register or be registered beforehand",
			"client_id_metadata_document_supported: true", fmt.Sprintf("client_id_metadata_document_supported %v", show(m.doc["client_id_metadata_document_supported"])))
	}
	return nil
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprintf("%v", v)
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return "fields " + strings.Join(ks, ", ")
}

// judgeHTTPS judges the scheme of the issuer and of every endpoint the
// metadata names (MCP-AUTHZ-HTTPS-1). A loopback host passes with http:
// a server on the tester's own machine cannot hold a public certificate,
// and the sentence is about where clients meet the server.
func judgeHTTPS(e *scenario.Env, m *meta) {
	var bad, local []string
	for _, k := range slices.Sorted(maps.Keys(m.doc)) {
		if k != "issuer" && !strings.HasSuffix(k, "_endpoint") && k != "jwks_uri" {
			continue
		}
		v, _ := m.doc[k].(string)
		u, err := url.Parse(v)
		switch {
		case err != nil || v == "":
			continue // META-4 judges what is missing
		case u.Scheme == "https":
		case u.Scheme == "http" && loopback(u.Hostname()):
			local = append(local, k)
		default:
			bad = append(bad, k+" "+v)
		}
	}
	switch {
	case len(bad) > 0:
		fail(e, "MCP-AUTHZ-HTTPS-1", m.seq, "the metadata names endpoints not served over HTTPS", "https URLs", strings.Join(bad, ", "))
	case len(local) > 0:
		if applies(e, "MCP-AUTHZ-HTTPS-1") {
			e.PassNote("MCP-AUTHZ-HTTPS-1", m.seq, "http on a loopback host, let through: "+strings.Join(local, ", "))
		}
	default:
		pass(e, "MCP-AUTHZ-HTTPS-1", m.seq)
	}
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
