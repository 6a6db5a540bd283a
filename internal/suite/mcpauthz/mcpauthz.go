// Package mcpauthz holds the scenarios of mcp-authorization: an OAuth
// authorization server judged as MCP's authorization page asks it
// (specs/mcp-authorization.yaml).
//
// There is no JSON-RPC here. The run's transport is the HTTP one, and the
// scenarios ask it only for its probe ability (httpmcp.Exchanger, through
// Env.Ability): one plain HTTP request at a time to an absolute URL, the
// run's --header sent to the issuer's origin only, redirects not followed
// (the authorize redirect is the evidence), every request and answer in
// the transcript.
package mcpauthz

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/redact"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

const file = "internal/suite/mcpauthz"

// The settings a run may pass with --param.
const (
	// ParamClientID and ParamClientSecret name a client registered
	// beforehand (used instead of dynamic registration).
	ParamClientID     = "client-id"
	ParamClientSecret = "client-secret"
	// ParamCallbackPort is the port of the redirect URI
	// http://127.0.0.1:PORT/callback (default: any free port; a client
	// registered beforehand needs the one it was registered with).
	ParamCallbackPort = "callback-port"
	// ParamResource is the resource the token is asked for (RFC 8707).
	ParamResource = "resource"
	// ParamCode and ParamCodeVerifier hand wirecheck a code obtained by
	// hand (an authorization server that asks a human to log in), with
	// the verifier its challenge was made from.
	ParamCode         = "code"
	ParamCodeVerifier = "code-verifier"
)

// DefaultResource is the resource asked for when the run names none.
const DefaultResource = "https://mcp.example/mcp"

var (
	metadataRules = []string{"MCP-AUTHZ-META-1", "MCP-AUTHZ-META-5", "MCP-AUTHZ-META-6", "MCP-AUTHZ-META-2", "MCP-AUTHZ-META-3", "MCP-AUTHZ-META-4", "MCP-AUTHZ-PKCE-1", "MCP-AUTHZ-PKCE-3", "MCP-AUTHZ-CIMD-1", "MCP-AUTHZ-HTTPS-1"}
	grantRules    = []string{"MCP-AUTHZ-DCR-1", "MCP-AUTHZ-DCR-2", "MCP-AUTHZ-CODE-1", "MCP-AUTHZ-REDIR-1", "MCP-AUTHZ-ISS-1", "MCP-AUTHZ-ISS-2", "MCP-AUTHZ-ISS-3",
		"MCP-AUTHZ-TOKEN-1", "MCP-AUTHZ-TOKEN-3", "MCP-AUTHZ-TOKEN-2", "MCP-AUTHZ-RES-1", "MCP-AUTHZ-REFRESH-1", "MCP-AUTHZ-PKCE-2", "MCP-AUTHZ-ERR-1", "MCP-AUTHZ-ERR-3", "MCP-AUTHZ-ERR-2"}
)

// Scenarios returns the Go scenarios of mcp-authorization.
func Scenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "mcp-authorization-metadata",
		Title: "the authorization server metadata: where it is served, its issuer, its required fields, PKCE S256",
		Rules: metadataRules,
		Run:   metadata,
		File:  file + "/metadata.go",
	}, {
		Name:  "mcp-authorization-grant",
		Title: "registration, the authorization-code grant with PKCE and a resource, end to end, and the token endpoint's errors",
		Rules: grantRules,
		Run:   grant,
		File:  file + "/grant.go",
	}}
}

// pass and fail judge a rule of the run's revision only: the spec says
// which revisions a rule belongs to (versions:), and under another the
// engine reports it skipped with the spec's reason.
func pass(e *scenario.Env, rule string, seq int) {
	if applies(e, rule) {
		e.Pass(rule, seq)
	}
}

func fail(e *scenario.Env, rule string, seq int, msg, expected, actual string) {
	if applies(e, rule) {
		e.Fail(rule, seq, msg, expected, actual)
	}
}

func applies(e *scenario.Env, rule string) bool {
	r := e.Protocol.Rule(rule)
	return r == nil || e.Protocol.Applies(r)
}

func skipAll(e *scenario.Env, why string, rules ...string) {
	for _, r := range rules {
		e.Skip(r, why)
	}
}

// client is the run's HTTP transport as a plain HTTP client; nil (every
// rule skipped) when the run has none.
func client(e *scenario.Env, rules []string) *web {
	var x httpmcp.Exchanger
	if !e.Ability(&x) {
		skipAll(e, "an authorization server is reached over HTTP; this run is not", rules...)
		return nil
	}
	return &web{e: e, x: x}
}

type web struct {
	e *scenario.Env
	x httpmcp.Exchanger
}

// issuer is the issuer identifier the run was given: its URL without a
// trailing slash, query or fragment.
func (w *web) issuer() *url.URL {
	u := *w.x.Endpoint()
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return &u
}

func (w *web) get(what, u string) (*httpmcp.Result, int) {
	return w.do(what, httpmcp.Exchange{Method: http.MethodGet, URL: u, Set: map[string]string{"Accept": "application/json"}})
}

func (w *web) getHTML(what, u string) (*httpmcp.Result, int) {
	return w.do(what, httpmcp.Exchange{Method: http.MethodGet, URL: u,
		Set: map[string]string{"Accept": "text/html, application/json;q=0.9, */*;q=0.8"}})
}

// do sends one request, bounded by --timeout, and notes it in the
// transcript with what came back, its tokens and secrets masked: a report
// of a real authorization server must not carry a working token.
func (w *web) do(what string, ex httpmcp.Exchange) (*httpmcp.Result, int) {
	ctx, cancel := context.WithTimeout(context.Background(), w.e.Timeout)
	defer cancel()
	res, err := w.x.Exchange(ctx, ex)
	text := "probe: " + what + " → " + answered(res)
	if err != nil {
		text += " (" + err.Error() + ")"
	}
	seq := w.e.Annotate(text)
	if res != nil && res.Status == 0 {
		return nil, seq
	}
	return res, seq
}

// post sends a body; set adds headers (Authorization: Basic).
func (w *web) post(what, u, contentType string, body []byte, set map[string]string) (*httpmcp.Result, int) {
	h := map[string]string{"Content-Type": contentType, "Accept": "application/json"}
	for k, v := range set {
		h[k] = v
	}
	return w.do(what, httpmcp.Exchange{Method: http.MethodPost, URL: u, Body: body, Set: h})
}

// object is a JSON object body, nil when the body is not one.
func object(res *httpmcp.Result) map[string]any {
	if res == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(res.Body, &m) != nil {
		return nil
	}
	return m
}

// isJSON reports whether a Content-Type is application/json (or +json).
func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func strs(m map[string]any, k string) []string {
	a, _ := m[k].([]any)
	var out []string
	for _, v := range a {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// secretField is a JSON member whose value is a credential.
var secretField = regexp.MustCompile(`("(?:access_token|refresh_token|id_token|client_secret|registration_access_token)"\s*:\s*")[^"]*`)

// answered says what a request got: status, Content-Type and the start
// of the body, credentials masked.
func answered(res *httpmcp.Result) string {
	return res.Describe(func(body []byte) string {
		b := secretField.ReplaceAllString(string(body), "${1}"+redact.Mask)
		if len(b) > 200 {
			b = b[:200] + "…"
		}
		return b
	})
}
