package mcpclient

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The HTTP transports' own scenarios: the conversation of client-session,
// with the server breaking a stream or ending the session on the way, as
// the revisions let a server do. Over stdio they skip.

// resumeRetry is the retry field the resumption scenario sends: long enough
// that a client ignoring it is seen, short enough for a suite.
const resumeRetry = 200 * time.Millisecond

func httpScenarios() []*scenario.Scenario {
	return []*scenario.Scenario{{
		Name:  "client-http-resume",
		Title: "over HTTP, break the SSE stream of the client's first tools/call after its priming event (retry 200 ms), before the response: the client resumes it with GET and Last-Event-ID, no sooner than retry asks",
		Rules: []string{"MCP-CLIENT-HTTP-7", "MCP-CLIENT-HTTP-8"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{Retry: resumeRetry, DropCall: "tools/call"}, []judged{
				{"MCP-CLIENT-HTTP-7", httpserve.CheckResumes, "the client made no tools/call: wirecheck broke no stream"},
				{"MCP-CLIENT-HTTP-8", httpserve.CheckRetry, "the client did not reconnect to the stream wirecheck broke (MCP-CLIENT-HTTP-7 judges that)"},
			})
		},
	}, {
		Name:  "client-http-session-ends",
		Title: "over HTTP, end the client's session once tools/list is answered: its next request gets 404, and it begins a new session with an initialize without the old id",
		Rules: []string{"MCP-CLIENT-HTTP-9"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTP(env, httpserve.Settings{EndAfter: "tools/list"}, []judged{
				{"MCP-CLIENT-HTTP-9", httpserve.CheckReinitialize, "the client sent nothing after wirecheck ended its session (or made no tools/list, after which it ends)"},
			})
		},
	}, {
		Name:  "client-auth",
		Title: "over HTTP, make the server a protected resource once the client has connected: its next request is answered 401 with WWW-Authenticate naming the protected resource metadata and the scope mcp:tools (the metadata lists mcp:tools and mcp:resources), whose authorization server (wirecheck's, approving at once) the client authorizes with, then every request carries the token",
		Rules: []string{"MCP-CLIENT-AUTH-1", "MCP-CLIENT-AUTH-2", "MCP-CLIENT-AUTH-3", "MCP-CLIENT-AUTH-4", "MCP-CLIENT-AUTH-5", "MCP-CLIENT-AUTH-6", "MCP-CLIENT-AUTH-7", "MCP-CLIENT-REG-1"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", ScopesSupported: []string{"mcp:tools", "mcp:resources"}}, []judged{
				{"MCP-CLIENT-AUTH-1", httpserve.CheckAuthPRM, "the client asked nothing of the authorization server after its 401 (it does not authorize)"},
				{"MCP-CLIENT-AUTH-2", httpserve.CheckAuthPKCE, "the client made no authorization request"},
				{"MCP-CLIENT-AUTH-3", httpserve.CheckAuthResource, "the client made no authorization or token request"},
				{"MCP-CLIENT-AUTH-4", httpserve.CheckAuthBearer, "the client was never issued a token"},
				{"MCP-CLIENT-AUTH-5", httpserve.CheckAuthPRMOrder, "the client asked for no protected resource metadata"},
				{"MCP-CLIENT-AUTH-6", httpserve.CheckAuthASOrder, "the client asked for no authorization server metadata"},
				{"MCP-CLIENT-AUTH-7", httpserve.CheckAuthScope, "the client made no authorization request"},
				{"MCP-CLIENT-AUTH-13", httpserve.CheckAuthGrantTypes, noRefreshWish},
				{"MCP-CLIENT-AUTH-14", httpserve.CheckAuthOffline, "the client made no authorization request"},
				{"MCP-CLIENT-REG-1", httpserve.CheckRegApplicationType, "the client did not register dynamically (it was pre-registered, or used a metadata document, or did not authorize)"},
			})
		},
	}, {
		Name:  "client-auth-cimd",
		Title: "over HTTP, as client-auth, the authorization server's metadata advertising client_id_metadata_document_supported: the client identifies itself by the https URL of its Client ID Metadata Document (with a path), which the authorization server fetches (from a loopback host only) and finds naming that URL as client_id, with client_name and redirect_uris",
		Rules: []string{"MCP-CLIENT-REG-2", "MCP-CLIENT-REG-3", "MCP-CLIENT-REG-4"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", CIMD: true}, []judged{
				{"MCP-CLIENT-REG-2", httpserve.CheckRegCIMDURL, "the client used no URL as its client_id"},
				{"MCP-CLIENT-REG-3", httpserve.CheckRegCIMDDocument, "the authorization server fetched no metadata document: the client used no URL as its client_id, or one whose host is not a loopback address (wirecheck fetches nothing beyond loopback)"},
				{"MCP-CLIENT-REG-4", httpserve.CheckRegCIMDUsed, "the client made no authorization request"},
			})
		},
	}, {
		Name:  "client-auth-preregistered",
		Title: "over HTTP, as client-auth, an authorization server with neither a registration endpoint nor metadata documents, which knows the client {client_id} and {client_secret} name: the client authenticates at its token endpoint with that secret (HTTP Basic or the form)",
		Rules: []string{"MCP-CLIENT-REG-5"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", NoRegistration: true}, []judged{
				{"MCP-CLIENT-REG-5", httpserve.CheckRegPreregistered, "the client made no token request as the pre-registered client: give it " + httpserve.WordClientID + " and " + httpserve.WordClientSecret + " (arguments or --env) where it takes static client credentials"},
			})
		},
	}, {
		Name:  "client-auth-migration",
		Title: "over HTTP, as client-auth, once the client's first request with a token passes, the protected resource metadata names another authorization server (" + httpserve.AS2Path + ") and the first one's tokens are refused 401: the client registers with the new server and shows it no client id, secret or refresh token of the old",
		Rules: []string{"MCP-CLIENT-REG-6", "MCP-CLIENT-REG-7"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", Migrate: true}, []judged{
				{"MCP-CLIENT-REG-6", httpserve.CheckRegReregister, "the client made no authorization request of the new authorization server"},
				{"MCP-CLIENT-REG-7", httpserve.CheckRegNoReuse, "the client made no request of the new authorization server"},
			})
		},
	}, {
		Name:  "client-auth-step-up",
		Title: "over HTTP, as client-auth, a tools/call whose token lacks the scope mcp:write answered 403 insufficient_scope naming it: the client authorizes anew asking it, then calls again",
		Rules: []string{"MCP-CLIENT-AUTH-8"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", StepUp: "mcp:write"}, []judged{
				{"MCP-CLIENT-AUTH-8", httpserve.CheckAuthStepUp, "the client made no tools/call wirecheck refused 403, or did nothing after it"},
			})
		},
	}, {
		Name:  "client-auth-retry-limit",
		Title: "over HTTP, as client-auth, every tools/call answered 403 insufficient_scope whatever the token's scope: the client gives up after a few authorizations",
		Rules: []string{"MCP-CLIENT-AUTH-9"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Scope: "mcp:tools", StepUp: "mcp:write", StepUpNever: true}, []judged{
				{"MCP-CLIENT-AUTH-9", httpserve.CheckAuthRetryLimit, "the client made no tools/call wirecheck refused 403"},
			})
		},
	}, {
		Name:  "client-auth-iss-missing",
		Title: "over HTTP, as client-auth, every authorization response without iss though the authorization server's metadata advertises it: the client rejects it and never redeems its code",
		Rules: []string{"MCP-CLIENT-AUTH-10"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Iss: httpserve.IssMissing}, []judged{
				{"MCP-CLIENT-AUTH-10", httpserve.CheckAuthIss, "the client made no authorization request"},
			})
		},
	}, {
		Name:  "client-auth-iss-slash",
		Title: "over HTTP, as client-auth, every authorization response's iss the issuer with a trailing slash added: the client, comparing without normalization, rejects it and never redeems its code",
		Rules: []string{"MCP-CLIENT-AUTH-10"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{Iss: httpserve.IssSlash}, []judged{
				{"MCP-CLIENT-AUTH-10", httpserve.CheckAuthIss, "the client made no authorization request"},
			})
		},
	}, {
		Name:  "client-auth-issuer-mismatch",
		Title: "over HTTP, as client-auth, the authorization server's metadata naming an issuer other than the URL it was fetched for: the client does not use it",
		Rules: []string{"MCP-CLIENT-AUTH-11"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return overHTTPAuth(env, &httpserve.Auth{WrongIssuer: true}, []judged{
				{"MCP-CLIENT-AUTH-11", httpserve.CheckAuthIssuer, "the client asked for no authorization server metadata"},
			})
		},
	}, {
		Name:  "client-auth-no-hint",
		Title: "over HTTP, as client-auth, the 401's challenge naming neither resource_metadata nor scope: the client asks the path-based well-known URI for the protected resource metadata before the root one, and every scope of its scopes_supported; the authorization server's metadata offers offline_access, which a client may ask (offline_access aside from the scopes judged), and one that asks it registered refresh_token among its grant_types; at 2026-07-28 the metadata does not advertise iss and the responses carry none: the client proceeds and redeems the code",
		Rules: []string{"MCP-CLIENT-AUTH-5", "MCP-CLIENT-AUTH-7", "MCP-CLIENT-AUTH-13", "MCP-CLIENT-AUTH-14", "MCP-CLIENT-AUTH-10"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			a := &httpserve.Auth{NoHint: true, ScopesSupported: []string{"mcp:tools", "mcp:resources"}, ASScopes: []string{"mcp:tools", "mcp:resources", "offline_access"}}
			if applies(env, "MCP-CLIENT-AUTH-10") {
				a.IssAbsent, a.IssProceed = true, true
			}
			return overHTTPAuth(env, a, []judged{
				{"MCP-CLIENT-AUTH-10", httpserve.CheckAuthIss, "the client made no authorization request"},
				{"MCP-CLIENT-AUTH-5", httpserve.CheckAuthPRMOrder, "the client asked for no protected resource metadata"},
				{"MCP-CLIENT-AUTH-7", httpserve.CheckAuthScope, "the client made no authorization request"},
				{"MCP-CLIENT-AUTH-13", httpserve.CheckAuthGrantTypes, noRefreshWish},
				{"MCP-CLIENT-AUTH-14", httpserve.CheckAuthOffline, "the client made no authorization request"},
			})
		},
	}, {
		Name:  "client-auth-openid-appended",
		Title: "over HTTP, as client-auth, the authorization server (issuer " + httpserve.ASPath + ") publishing its metadata at OpenID Connect Discovery's appended URI alone: the client asks RFC 8414's URI with the path inserted, then OpenID Connect Discovery's inserted, then appended, and authorizes; at 2026-07-28 the metadata does not advertise authorization_response_iss_parameter_supported though every response carries the issuer's iss: the client compares it, finds it equal and redeems the code",
		Rules: []string{"MCP-CLIENT-AUTH-6", "MCP-CLIENT-AUTH-10"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			a := &httpserve.Auth{Scope: "mcp:tools", ASMetadata: httpserve.MetadataAppended}
			if applies(env, "MCP-CLIENT-AUTH-10") {
				a.IssUnadvertised, a.IssProceed = true, true
			}
			return overHTTPAuth(env, a, []judged{
				{"MCP-CLIENT-AUTH-6", httpserve.CheckAuthASOrder, "the client asked for no authorization server metadata"},
				{"MCP-CLIENT-AUTH-10", httpserve.CheckAuthIss, "the client made no authorization request"},
			})
		},
	}, {
		// One scenario, not two: each costs a client process in every
		// run of the tables.
		Name:  "client-auth-root-openid",
		Title: "over HTTP, as client-auth but with no scope in the challenge and no scopes_supported in the protected resource metadata (the client asks no scope), the authorization server's issuer the listener's origin (no path), its metadata published by OpenID Connect Discovery alone: the client tries both RFC 8414's and OpenID Connect Discovery's URIs, in either order; at 2026-07-28 the metadata does not advertise authorization_response_iss_parameter_supported and every authorization response's iss is another server's: the client compares a present iss all the same, rejects it and never redeems its code",
		Rules: []string{"MCP-CLIENT-AUTH-12", "MCP-CLIENT-AUTH-10", "MCP-CLIENT-AUTH-7"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			a := &httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID}
			if applies(env, "MCP-CLIENT-AUTH-10") {
				a.Iss, a.IssUnadvertised = httpserve.IssOther, true
			}
			return overHTTPAuth(env, a, []judged{
				{"MCP-CLIENT-AUTH-12", httpserve.CheckAuthASRoot, "the client asked for no authorization server metadata"},
				{"MCP-CLIENT-AUTH-10", httpserve.CheckAuthIss, "the client made no authorization request"},
				{"MCP-CLIENT-AUTH-7", httpserve.CheckAuthScope, "the client made no authorization request"},
			})
		},
	}, {
		Name:  "client-cc",
		Title: "with --param extension=client-credentials, over HTTP, as client-auth but the authorization server takes only the client credentials grant, from the client whose id, secret and P-256 key the client was given ({client_id}, {client_secret}, {client_key}), authenticated by a client assertion (private_key_jwt, RFC 7523) or its secret (HTTP Basic or the form): the client gets its token without a user",
		Rules: []string{"MCP-CLIENT-CC-1", "MCP-CLIENT-CC-2", "MCP-CLIENT-CC-3", "MCP-CLIENT-CC-4"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return extensionAuth(env, httpserve.ExtClientCredentials, []judged{
				{"MCP-CLIENT-CC-1", httpserve.CheckCCGrant, "the client asked the authorization server for no token after its 401 (it does not authorize)"},
				{"MCP-CLIENT-CC-2", httpserve.CheckCCAuth, "the client made no client credentials token request"},
				{"MCP-CLIENT-CC-3", httpserve.CheckCCClaims, "the client authenticated with no client assertion (with its secret, which the extension allows, or not at all)"},
				{"MCP-CLIENT-CC-4", httpserve.CheckCCAssertion, "the client authenticated with no client assertion (with its secret, which the extension allows, or not at all)"},
			})
		},
	}, {
		Name:  "client-wif",
		Title: "with --param extension=workload-identity, over HTTP, as client-auth but the authorization server takes only RFC 7523's JWT bearer grant, with the workload JWT the client was given ({assertion}: issued for the authorization server by an issuer it trusts): the client gets its token without a user",
		Rules: []string{"MCP-CLIENT-WIF-1", "MCP-CLIENT-WIF-2"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return extensionAuth(env, httpserve.ExtWorkloadIdentity, []judged{
				{"MCP-CLIENT-WIF-1", httpserve.CheckWIFGrant, "the client asked the authorization server for no token after its 401 (it does not authorize)"},
				{"MCP-CLIENT-WIF-2", httpserve.CheckWIFAssertion, "the client made no JWT bearer token request"},
			})
		},
	}, {
		Name:  "client-ema",
		Title: "with --param extension=enterprise-managed, over HTTP, as client-auth but the authorization server takes only the JWT bearer grant of an ID-JAG from the client whose id and secret the client was given, and an enterprise IdP on the same listener exchanges the user's ID token the client was given ({id_token}, {idp_token_endpoint}, {idp_client_id}) for an ID-JAG (RFC 8693): the client exchanges, then presents the ID-JAG",
		Rules: []string{"MCP-CLIENT-EMA-1", "MCP-CLIENT-EMA-2"},
		Fresh: true,
		Run: func(env *scenario.Env) error {
			return extensionAuth(env, httpserve.ExtEnterpriseManaged, []judged{
				{"MCP-CLIENT-EMA-1", httpserve.CheckEMAExchange, "the client made no token exchange at its IdP"},
				{"MCP-CLIENT-EMA-2", httpserve.CheckEMAGrant, "the client asked the authorization server for no token after its 401 (it does not authorize)"},
			})
		},
	}, {
		Name:  "client-http-custom-headers",
		Title: "over HTTP under 2026-07-28, list besides echo and fail a tool route whose inputSchema marks parameters with x-mcp-header (a string, an integer, a boolean, a nested string, a nullable one; its defaults include values that need Base64 and a null) and six tools whose annotations are invalid (empty, no token, repeated but for case, on an object, on a number, under items): a call of route mirrors its arguments into Mcp-Param headers, Base64 where a value cannot travel plain, none for a null, and the client calls none of the six",
		Rules: []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"},
		Fresh: true,
		Run:   customHeaders,
	}}
}

// noRefreshWish is why MCP-CLIENT-AUTH-13 skips: the guidance is for
// clients that desire refresh tokens.
const noRefreshWish = "the client registered no client (dynamic registration), or showed no wish for refresh tokens (it asked no offline_access and redeemed no refresh token): the guidance is for \"MCP Clients that desire refresh tokens\""

// overHTTPAuth protects the server with a, then converses as overHTTP
// does; in a run of a revision whose rules of it do not apply (before
// 2025-06-18, or 2025-11-25 for some) the server is not protected and
// the client converses all the same, so it ends as it would.
func overHTTPAuth(env *scenario.Env, a *httpserve.Auth, rules []judged) error {
	applies := false
	for _, r := range rules {
		if rule := env.Protocol.Rule(r.rule); rule != nil && env.Protocol.Applies(rule) {
			applies = true
		}
	}
	if !applies {
		a = nil
	}
	return overHTTPWith(env, httpserve.Settings{}, a, rules, nil)
}

// ExtensionParam selects the authorization extensions a client under test
// implements (--param extension=NAME, repeatable): their scenarios judge
// it, given the credentials each needs; unselected, they skip.
const ExtensionParam = "extension"

// Extensions are the names ExtensionParam takes, with the words the
// client's command must name to get its credentials.
var Extensions = map[string]string{
	httpserve.ExtClientCredentials: httpserve.WordClientID + " with " + httpserve.WordClientKey + " or " + httpserve.WordClientSecret,
	httpserve.ExtWorkloadIdentity:  httpserve.WordAssertion,
	httpserve.ExtEnterpriseManaged: httpserve.WordClientID + ", " + httpserve.WordClientSecret + ", " + httpserve.WordIDToken + ", " + httpserve.WordIdPTokenEndpoint + " and " + httpserve.WordIdPClientID,
}

// CheckParams refuses an extension the client role has no scenario of.
func CheckParams(params map[string]string) error {
	v, ok := params[ExtensionParam]
	if !ok {
		return nil
	}
	for _, e := range strings.Split(v, "\n") {
		if _, known := Extensions[e]; !known {
			names := slices.Sorted(maps.Keys(Extensions))
			return fmt.Errorf("--param %s=%s: no such authorization extension; want one of %s", ExtensionParam, e, strings.Join(names, ", "))
		}
	}
	return nil
}

// extensionAuth protects the server under extension ext when the run
// selected it, as overHTTPAuth does; otherwise the client is let go and
// the rules skip.
func extensionAuth(env *scenario.Env, ext string, rules []judged) error {
	if !slices.Contains(strings.Split(env.Params[ExtensionParam], "\n"), ext) {
		for _, r := range rules {
			env.Skip(r.rule, "the "+ext+" extension is not selected: --param "+ExtensionParam+"="+ext+" says the client implements it (give it "+Extensions[ext]+")")
		}
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	return overHTTPAuth(env, &httpserve.Auth{Extension: ext}, rules)
}

// judged is a rule a scenario declares, the transport's check that
// decides it, and why it is skipped when the check never came up.
type judged struct{ rule, check, unobserved string }

// overHTTP sets the session's settings, then converses as client-session
// does; over another transport its rules skip.
func overHTTP(env *scenario.Env, set httpserve.Settings, rules []judged) error {
	return overHTTPWith(env, set, nil, rules, nil)
}

// httpSession is the Streamable HTTP session the scenario serves, nil
// over another transport.
func httpSession(env *scenario.Env) *httpserve.Session {
	var sv interface{ Conn() transport.Conn }
	var s *httpserve.Session
	if env.Ability(&sv) {
		s, _ = sv.Conn().(*httpserve.Session)
	}
	return s
}

// overHTTPWith is overHTTP, the server protected by a when it is set,
// conversing as c says (nil: as client-session).
func overHTTPWith(env *scenario.Env, set httpserve.Settings, a *httpserve.Auth, rules []judged, c *conv) error {
	s := httpSession(env)
	if s == nil {
		for _, r := range rules {
			env.Skip(r.rule, "the client is not reached over Streamable HTTP: the scenario is one of that transport")
		}
		return nil
	}
	s.Set(set)
	if a != nil {
		// Every authorization server knows the client the run
		// provisioned ({client_id}, {client_secret}).
		a.Provisions = s.Provisioned()
		g, err := Guard(*a)
		if err != nil {
			return err
		}
		s.Protect(g)
	}
	var err error
	if c != nil {
		err = c.serve(env)
	} else {
		err = converse(env, false)
	}
	if a != nil {
		// Ending the protection judges what is judged only at the end
		// (a client refused for good stopped trying).
		s.Protect(nil)
	}
	// A client that opened with initialize in a run of a revision
	// without it is judged by legacyRevision: a rule of the run's
	// revision alone is then no rule of its session, whatever the
	// transport reported.
	session := env.SessionProtocol()
	for _, r := range rules {
		rule := session.Rule(r.rule)
		switch {
		case session != env.Protocol && rule != nil && !session.Applies(rule):
			env.Skip(r.rule, "the client opened with initialize: its session is of "+legacyRevision+", which has no such rule")
		case !s.Reported(r.check):
			env.Skip(r.rule, r.unobserved)
		}
	}
	return err
}

// customHeaders serves client-http-custom-headers: the transport judges
// the headers of the call of route (httpserve's CheckParam*), the
// scenario which tools the client called.
func customHeaders(env *scenario.Env) error {
	if !applies(env, "MCP-CLIENT-HTTP-11") {
		_ = env.CloseInput()
		env.Closed = true
		return nil
	}
	c := conv{headers: true, calledRoute: -1, calledInvalid: -1}
	var judge []judged
	err := overHTTPWith(env, httpserve.Settings{}, nil, nil, &c)
	s := httpSession(env)
	if s == nil {
		for _, r := range []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"} {
			env.Skip(r, "the client is not reached over Streamable HTTP: the scenario is one of that transport")
		}
		return err
	}
	if c.legacy {
		for _, r := range []string{"MCP-CLIENT-HTTP-11", "MCP-CLIENT-HTTP-12", "MCP-CLIENT-HTTP-13", "MCP-CLIENT-HTTP-14"} {
			env.Skip(r, "the client opened with initialize: its session is of "+legacyRevision+", which has no x-mcp-header")
		}
		return err
	}
	notCalled := "the client never called tool route (a client calls the tools its user asks for): no Mcp-Param header to judge"
	judge = append(judge,
		judged{"MCP-CLIENT-HTTP-11", httpserve.CheckParamHeaders, notCalled},
		judged{"MCP-CLIENT-HTTP-12", httpserve.CheckParamEncoding, notCalled},
		judged{"MCP-CLIENT-HTTP-13", httpserve.CheckParamNull, notCalled})
	if c.calledRoute >= 0 {
		judge[0].unobserved = "the client's call of route gave no annotated parameter a value"
		judge[1].unobserved = "no Mcp-Param header of the client's call of route carried a value that needs Base64 (non-ASCII, control characters, spaces at either end)"
		judge[2].unobserved = "the client's call of route gave no annotated parameter null"
	}
	for _, r := range judge {
		if !s.Reported(r.check) {
			env.Skip(r.rule, r.unobserved)
		}
	}
	switch {
	case c.calledInvalid >= 0:
		env.Fail("MCP-CLIENT-HTTP-14", c.calledInvalid, "the client called tool "+c.invalidName+", whose x-mcp-header annotation is invalid: it did not reject the definition", "no call of a tool with an invalid x-mcp-header (left out of the client's tools)", "tools/call "+c.invalidName)
	case c.calledRoute >= 0:
		env.Pass("MCP-CLIENT-HTTP-14", c.calledRoute)
	default:
		env.Skip("MCP-CLIENT-HTTP-14", "the client called neither route nor any tool with an invalid x-mcp-header: nothing shows whether it would call a tool it should have rejected")
	}
	return err
}
