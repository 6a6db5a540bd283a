package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/schemas"
)

// prmSchema is the schema of a protected resource metadata document (RFC
// 9728 with MCP's authorization_servers requirement).
const prmSchema = "wirecheck/protected-resource-metadata.json"

var mcpSchemas = sync.OnceValues(func() (*schema.Registry, error) { return schema.Open(schemas.FS, "mcp") })

// invalidToken is a bearer token no server issued.
const invalidToken = "Bearer wirecheck-invalid-token"

// httpAuth judges authorization, which is OPTIONAL: only a server that has
// shown it requires it (a request without credentials refused while its
// twin with the run's credentials, if any, was not) is judged, and by
// MCP's OAuth discovery rules only once it shows it implements OAuth
// (discover): a server that checks an API key as a Bearer token answers
// to the 401 rules alone. The probes need no session: a user without a
// token still learns what the server asks for.
func httpAuth(e *scenario.Env) error {
	// Without a session (a server that refuses the run's credentials)
	// the probes still go: they need none.
	x, _ := exchanger(e, "", authRules...)
	if x == nil {
		return nil
	}
	rules := holding(e, authRules)
	// The first request of a session: it needs no session id.
	body := rawJSON(initRequest(e.Protocol.Version))
	if modern(e) {
		body = rawJSON(request("server/discover", map[string]any{"_meta": meta(e.Protocol.Version)}))
	}
	// Over the legacy transport the probe is the stream's GET: a POST's
	// answer would come on the session's stream, as a stray.
	base := httpmcp.Exchange{Method: http.MethodPost, Body: body}
	if x.Kind() == "sse" {
		base = httpmcp.Exchange{Method: http.MethodGet, Until: func(sse.Event) bool { return true }}
	}
	try := func(what string, set map[string]string, drop ...string) (*httpmcp.Result, int) {
		ex := base
		ex.Set, ex.Drop = set, append(drop, "Mcp-Session-Id")
		return exchange(e, x, what, ex)
	}
	with, _ := try("the first request of a session (over sse: the stream), with the run's credentials (if any)", nil)
	without, seq := try("the same without Authorization", nil, "Authorization")
	a := &auth{e: e, x: x, rules: rules}
	switch {
	case served(without):
		a.skip("the server served a request without credentials: it does not require authorization (authorization is OPTIONAL)")
		if x.Credentialed() {
			// The user's credentials say the server has some to check;
			// serving the same request without them authenticates nothing.
			a.fail("MCP-AUTH-1", seq, "the run carries credentials (--header Authorization), yet the same request without them was served",
				"refused without credentials (401 or 403)", answered(without))
		} else {
			a.skipOne("MCP-AUTH-1", "no credentials given (--header 'Authorization: …'); the server served an unauthenticated client, and authentication may happen outside HTTP (network, mTLS)")
		}
		return nil
	case without != nil && without.Status == http.StatusUnauthorized:
	case served(with) && refused(without):
	default:
		a.skip(fmt.Sprintf("the server has not shown it requires authorization: without credentials %s, with the run's %s", answered(without), answered(with)))
		a.skipOne("MCP-AUTH-1", "nothing to compare: a request with the run's credentials was not served either")
		return nil
	}
	a.pass("MCP-AUTH-1", seq)
	if without.Status == http.StatusUnauthorized {
		a.pass("MCP-AUTH-2", seq)
	} else {
		a.fail("MCP-AUTH-2", seq, "a request without credentials was refused, but not with 401", "401 Unauthorized", answered(without))
	}
	res, s := try("the same with Authorization: "+invalidToken, map[string]string{"Authorization": invalidToken})
	if res != nil && res.Status == http.StatusUnauthorized {
		a.pass("MCP-AUTH-3", s)
	} else {
		a.fail("MCP-AUTH-3", s, "a request with an invalid token was not answered 401", "401 Unauthorized", answered(res))
	}
	for _, bad := range []string{"Bearer", "Bearer a b"} {
		res, s := try("the same with the malformed Authorization: "+bad, map[string]string{"Authorization": bad})
		if served(res) {
			a.fail("MCP-AUTH-4", s, "a request with the malformed Authorization "+show(bad)+" was served", "400 or 401", answered(res))
		} else {
			a.pass("MCP-AUTH-4", s)
		}
	}
	ch := a.challenge(without, seq)
	if !slices.ContainsFunc(oauthRules, func(r string) bool { return a.rules[r] }) {
		return nil
	}
	d := a.discover(ch)
	if d.sign == "" {
		// Authorization is OPTIONAL, and MCP's is OAuth: a server that
		// authenticates otherwise (an API key sent as a Bearer token)
		// answers to the 401 rules above, not to OAuth's discovery.
		why := "the server shows no sign of OAuth: no resource_metadata in a challenge, and no protected resource metadata (" +
			strings.Join(d.wellKnown, ", ") + ") nor authorization server metadata (" + strings.Join(d.asURLs, ", ") + ") is served"
		if a.rfc8414Only() {
			why = "the server shows no sign of OAuth a 2025-03-26 client looks for: no resource_metadata in a challenge, and no authorization server metadata at " +
				d.asURLs[0] + " (protected resource metadata and OpenID Connect discovery, whether served or not, are later revisions' documents)"
		}
		for _, r := range oauthRules {
			a.skipOne(r, why+"; authorization is OPTIONAL and may be other than MCP's OAuth (an API key as a Bearer token), whose discovery rules bind a server that advertises it")
		}
		return nil
	}
	a.oauthChallenge(without, ch, seq, d.sign)
	a.metadata(d)
	a.serverMetadata(d)
	return nil
}

// oauthRules are the rules of MCP's OAuth discovery, judged only of a
// server that shows it implements OAuth (discover).
var oauthRules = []string{"MCP-AUTH-5", "MCP-AUTH-6", "MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10", "MCP-AUTH-11", "MCP-AUTH-12", "MCP-AUTH-13", "MCP-AUTH-14"}

// rfc8414Only reports whether the run judges 2025-03-26's authorization:
// its client finds OAuth by RFC 8414 metadata at the server's origin (or
// the fallback URLs) alone, and only that revision has MCP-AUTH-13/14.
func (a *auth) rfc8414Only() bool {
	return a.rules["MCP-AUTH-13"] || a.rules["MCP-AUTH-14"]
}

// auth judges one run's authorization rules: those of its revision.
type auth struct {
	e     *scenario.Env
	x     httpmcp.Exchanger
	rules map[string]bool
}

func (a *auth) pass(rule string, seq int) {
	if a.rules[rule] {
		a.e.Pass(rule, seq)
	}
}

func (a *auth) fail(rule string, seq int, msg, expected, actual string) {
	if a.rules[rule] {
		a.e.Fail(rule, seq, msg, expected, actual)
	}
}

func (a *auth) skipOne(rule, why string) {
	if a.rules[rule] {
		a.e.Skip(rule, why)
	}
}

// skip skips every rule but MCP-AUTH-1.
func (a *auth) skip(why string) {
	for _, r := range authRules[1:] {
		a.skipOne(r, why)
	}
}

// challenge judges the 401's WWW-Authenticate is there (AUTH-7, 25a)
// and returns it ("" when none, or no 401).
func (a *auth) challenge(without *httpmcp.Result, seq int) string {
	if without.Status != http.StatusUnauthorized {
		a.skipOne("MCP-AUTH-7", "no 401 to read a challenge from (MCP-AUTH-2)")
		return ""
	}
	ch := strings.Join(without.Header.Values("WWW-Authenticate"), ", ")
	if ch == "" {
		a.fail("MCP-AUTH-7", seq, "a 401 without WWW-Authenticate", "a WWW-Authenticate challenge", "none")
	} else {
		a.pass("MCP-AUTH-7", seq)
	}
	return ch
}

// oauthChallenge judges, of a server that advertises OAuth (sign), the
// 401's challenge: naming the metadata (AUTH-5, 25b), with a scope
// (AUTH-11), never offline_access (AUTH-12).
func (a *auth) oauthChallenge(without *httpmcp.Result, ch string, seq int, sign string) {
	if without.Status != http.StatusUnauthorized {
		for _, r := range []string{"MCP-AUTH-5", "MCP-AUTH-11", "MCP-AUTH-12"} {
			a.skipOne(r, "no 401 to read a challenge from (MCP-AUTH-2)")
		}
		return
	}
	shown, lacks := ch, "the 401's WWW-Authenticate has no "
	if ch == "" {
		shown, lacks = "none", "the 401 has no WWW-Authenticate, so no "
	}
	oauth := ", yet the server advertises OAuth (" + sign + ")"
	if authParam(ch, "resource_metadata") != "" {
		a.pass("MCP-AUTH-5", seq)
	} else {
		a.fail("MCP-AUTH-5", seq, lacks+"resource_metadata"+oauth, `WWW-Authenticate: Bearer resource_metadata="…"`, shown)
	}
	scope := authParam(ch, "scope")
	if scope != "" {
		a.pass("MCP-AUTH-11", seq)
	} else {
		a.fail("MCP-AUTH-11", seq, lacks+"scope"+oauth, `WWW-Authenticate: Bearer scope="…"`, shown)
	}
	if hasScope(scope, "offline_access") {
		a.fail("MCP-AUTH-12", seq, "the 401's WWW-Authenticate scope includes offline_access", "no offline_access", ch)
	} else {
		a.pass("MCP-AUTH-12", seq)
	}
}

func hasScope(scopes, s string) bool {
	for _, f := range strings.Fields(scopes) {
		if f == s {
			return true
		}
	}
	return false
}

// authParam reads one auth-param of a challenge, quoted or a token.
func authParam(challenge, name string) string {
	re := regexp.MustCompile(`(?i)(?:^|[\s,])` + regexp.QuoteMeta(name) + `\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))`)
	m := re.FindStringSubmatch(challenge)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[1])
	}
	return m[2]
}

// discovery is what a server publishes of OAuth, and the first sign of
// it: "" when none.
type discovery struct {
	sign string
	// named is the challenge's resource_metadata; wellKnown the two
	// well-known URIs of the protected resource metadata, in the order a
	// client tries them.
	named     string
	wellKnown []string
	// prm is the protected resource metadata fetched (the named URL, else
	// the first well-known URI that answered 200, or the last answer when
	// neither did), from where ("" when neither did), and prmSeq its
	// probe's transcript line.
	prm    *httpmcp.Result
	from   string
	prmSeq int
	// offBox is set when the named metadata is beyond loopback and the
	// server was launched: not fetched, so its document is not judged.
	offBox *transport.OffLoopback
	// unreached says why the named metadata, on another origin than the
	// endpoint, gave no HTTP answer at all ("" when it did, or is on the
	// endpoint's origin).
	unreached string
	// as is the authorization server metadata at the server's origin,
	// asSeq its probe's line; asURLs where it was looked for. nil: not
	// fetched, or no answer.
	as     *httpmcp.Result
	asSeq  int
	asURLs []string
}

// discover fetches what a server that implements MCP's OAuth publishes:
// the protected resource metadata (the challenge's resource_metadata,
// else the two well-known URIs in that order) and, when no sign of OAuth
// was found yet or 2025-03-26 judges it, the authorization server
// metadata at its origin. A JSON object served at one of these, or a
// resource_metadata in the challenge, is the server's sign that it
// implements OAuth.
func (a *auth) discover(ch string) *discovery {
	ep := a.x.Endpoint()
	d := &discovery{named: authParam(ch, "resource_metadata"), wellKnown: []string{
		origin(ep) + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(ep.EscapedPath(), "/"),
		origin(ep) + "/.well-known/oauth-protected-resource",
	}}
	doc := func(res *httpmcp.Result) bool {
		_, ok := jsonObject(bodyOf(res))
		return ok && res.Status == http.StatusOK
	}
	if d.named != "" {
		d.sign = "its 401 names resource_metadata " + d.named
		d.from = d.named
		ctx, cancel := context.WithTimeout(context.Background(), probeWait(a.e))
		var err error
		d.prm, d.prmSeq, err = exchangeErr(ctx, a.e, a.x, "GET the protected resource metadata the challenge names", httpmcp.Exchange{Method: http.MethodGet, URL: d.named})
		cancel()
		errors.As(err, &d.offBox)
		if u, perr := url.Parse(d.named); perr == nil && d.offBox == nil && d.prm == nil && !sameOrigin(ep.ResolveReference(u), ep) {
			d.unreached = "no answer"
			if err != nil {
				d.unreached = err.Error()
			}
		}
	} else {
		for _, u := range d.wellKnown {
			res, seq := exchange(a.e, a.x, "GET the protected resource metadata at "+u, httpmcp.Exchange{Method: http.MethodGet, URL: u})
			d.prm, d.prmSeq = res, seq
			if res != nil && res.Status == http.StatusOK {
				d.from = u
				if doc(res) {
					d.sign = "protected resource metadata at " + u
				}
				break
			}
		}
	}
	d.asURLs = []string{origin(ep) + "/.well-known/oauth-authorization-server", origin(ep) + "/.well-known/openid-configuration"}
	if d.named == "" && a.rfc8414Only() {
		// 2025-03-26 knows no protected resource metadata (RFC 9728 came
		// with 2025-06-18): its client looks for authorization server
		// metadata at the server's origin. A document at the well-known
		// URI alone shows it nothing; a challenge that names one still
		// says the server means OAuth.
		d.sign = ""
	}
	if d.sign != "" && !a.rfc8414Only() {
		return d
	}
	d.as, d.asSeq = exchange(a.e, a.x, "GET the authorization server metadata", httpmcp.Exchange{Method: http.MethodGet, URL: d.asURLs[0]})
	switch {
	case d.sign != "":
	case doc(d.as):
		d.sign = "authorization server metadata at " + d.asURLs[0]
	case a.rfc8414Only():
		// A 2025-03-26 client looks for RFC 8414's document alone.
	default:
		// OpenID Connect Discovery is the other form of authorization
		// server metadata a client of 2025-11-25 looks for.
		res, _ := exchange(a.e, a.x, "GET the OpenID Connect discovery document", httpmcp.Exchange{Method: http.MethodGet, URL: d.asURLs[1]})
		if doc(res) {
			d.sign = "authorization server metadata at " + d.asURLs[1]
		}
	}
	return d
}

// metadata judges the protected resource metadata discover found: one
// discovery mechanism is there (AUTH-6), and the document holds (AUTH-8,
// -9, -10, -12).
func (a *auth) metadata(d *discovery) {
	ep := a.x.Endpoint()
	res, seq, from := d.prm, d.prmSeq, d.from
	docRules := []string{"MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10"}
	if from == "" {
		a.fail("MCP-AUTH-6", seq, "no discovery mechanism: the 401 names no resource_metadata and neither well-known URI serves a document, yet the server advertises OAuth ("+d.sign+")",
			"resource_metadata in WWW-Authenticate, or a document at "+strings.Join(d.wellKnown, " or "), answered(res))
		for _, r := range docRules {
			a.skipOne(r, "no protected resource metadata was found (its discovery is MCP-AUTH-5/6's)")
		}
		a.skipOne("MCP-AUTH-12", "no protected resource metadata was found")
		return
	}
	a.pass("MCP-AUTH-6", seq)
	if d.offBox != nil {
		for _, r := range docRules {
			a.skipOne(r, d.offBox.Named())
		}
		return
	}
	if d.unreached != "" {
		// Another host that does not answer this machine may answer the
		// server's clients (a firewall, a network of its own): silence
		// there is no evidence against the server.
		for _, r := range docRules {
			a.skipOne(r, "the server names "+d.named+", on another host than its endpoint, and it gave no answer from this machine ("+d.unreached+"): its document is not judged")
		}
		return
	}
	doc, ok := jsonObject(bodyOf(res))
	if res == nil || res.Status != http.StatusOK || !ok {
		a.fail("MCP-AUTH-8", seq, "the protected resource metadata at "+from+" is not a JSON object served 200", "200 with a JSON object (RFC 9728)", answered(res))
		for _, r := range docRules[1:] {
			a.skipOne(r, "no protected resource metadata document (MCP-AUTH-8)")
		}
		return
	}
	if problem := a.validate(res.Body); problem != "" {
		a.fail("MCP-AUTH-8", seq, "the protected resource metadata at "+from+" does not hold: "+problem,
			"resource and a non-empty authorization_servers (schemas/mcp/"+prmSchema+")", show(string(res.Body)))
	} else {
		a.pass("MCP-AUTH-8", seq)
	}
	switch r, _ := doc["resource"].(string); {
	case r == "":
		a.skipOne("MCP-AUTH-9", "the metadata names no resource (MCP-AUTH-8)")
	case sameResource(r, ep):
		a.pass("MCP-AUTH-9", seq)
	default:
		a.fail("MCP-AUTH-9", seq, "the metadata's resource names another server than the one it was fetched for", "the endpoint "+ep.Redacted()+" or its origin", r)
	}
	servers, _ := doc["authorization_servers"].([]any)
	if len(servers) == 0 {
		a.skipOne("MCP-AUTH-10", "the metadata names no authorization server (MCP-AUTH-8)")
	}
	for _, s := range servers {
		if str, _ := s.(string); strings.HasPrefix(strings.ToLower(str), "http:") {
			a.fail("MCP-AUTH-10", seq, "an authorization server is named by an http: URL", "https URLs only (\"All authorization server endpoints MUST be served over HTTPS\")", str)
		} else {
			a.pass("MCP-AUTH-10", seq)
		}
	}
	scopes, _ := doc["scopes_supported"].([]any)
	for _, s := range scopes {
		if s == "offline_access" {
			a.fail("MCP-AUTH-12", seq, "the metadata's scopes_supported includes offline_access", "no offline_access", show(scopes))
		}
	}
}

// validate checks a metadata document against its schema ("" when it
// holds).
func (a *auth) validate(body []byte) string {
	reg, err := mcpSchemas()
	if err != nil {
		return "schemas: " + err.Error()
	}
	s := reg.Get(prmSchema)
	if s == nil {
		return "schema " + prmSchema + " is missing"
	}
	v, err := schema.Decode(body)
	if err != nil {
		return err.Error()
	}
	if err := s.Validate(v); err != nil {
		return schema.Explain(err)
	}
	return ""
}

// sameResource: the resource is the endpoint or its origin, a trailing
// slash aside, scheme and host in any case.
func sameResource(r string, ep *url.URL) bool {
	u, err := url.Parse(r)
	if err != nil || !sameOrigin(u, ep) {
		return false
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	return p == "" || p == strings.TrimSuffix(ep.EscapedPath(), "/")
}

// serverMetadata (2025-03-26): the authorization server's metadata at the
// authorization base URL (the endpoint's path discarded) is an RFC 8414
// document (AUTH-13); without it, the fallback endpoints answer (AUTH-14).
func (a *auth) serverMetadata(d *discovery) {
	if !a.rfc8414Only() {
		return
	}
	base := origin(a.x.Endpoint())
	res, seq := d.as, d.asSeq
	doc, ok := jsonObject(bodyOf(res))
	if ok && res.Status == http.StatusOK {
		missing := []string{}
		for _, f := range []string{"issuer", "authorization_endpoint", "token_endpoint", "response_types_supported"} {
			if _, has := doc[f]; !has {
				missing = append(missing, f)
			}
		}
		if len(missing) == 0 {
			a.pass("MCP-AUTH-13", seq)
		} else {
			a.fail("MCP-AUTH-13", seq, "the authorization server metadata lacks "+strings.Join(missing, ", "),
				"issuer, authorization_endpoint, token_endpoint, response_types_supported (RFC 8414)", show(string(res.Body)))
		}
		a.pass("MCP-AUTH-14", seq)
		return
	}
	a.fail("MCP-AUTH-13", seq, "no authorization server metadata at the authorization base URL, yet the server advertises OAuth ("+d.sign+")", "200 with an RFC 8414 document", answered(res))
	for _, p := range []string{"/authorize", "/token", "/register"} {
		res, s := exchange(a.e, a.x, "GET the fallback endpoint "+p, httpmcp.Exchange{Method: http.MethodGet, URL: base + p})
		if res != nil && res.Status != http.StatusNotFound {
			a.pass("MCP-AUTH-14", s)
			return
		}
		seq = s
	}
	a.fail("MCP-AUTH-14", seq, "no authorization server metadata, and the fallback endpoints /authorize, /token and /register are all 404, yet the server advertises OAuth ("+d.sign+")",
		"metadata, or the fallback endpoints", "404 for each")
}

func bodyOf(res *httpmcp.Result) []byte {
	if res == nil {
		return nil
	}
	return res.Body
}

var authRules = []string{"MCP-AUTH-1", "MCP-AUTH-2", "MCP-AUTH-3", "MCP-AUTH-4", "MCP-AUTH-5", "MCP-AUTH-6", "MCP-AUTH-7",
	"MCP-AUTH-8", "MCP-AUTH-9", "MCP-AUTH-10", "MCP-AUTH-11", "MCP-AUTH-12", "MCP-AUTH-13", "MCP-AUTH-14"}
