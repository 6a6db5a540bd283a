package mcpauthz

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/pkce"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// flow is one run of the authorization-code grant.
type flow struct {
	e        *scenario.Env
	w        *web
	m        *meta
	cb       *callback
	redirect string
	resource string
	// The client: its id, secret and how it authenticates.
	id, secret, method string
}

func grant(e *scenario.Env) error {
	w := client(e, grantRules)
	if w == nil {
		return nil
	}
	m := discover(e, w, false)
	if m == nil {
		skipAll(e, "no metadata to find the endpoints in (MCP-AUTHZ-META-1)", grantRules...)
		return nil
	}
	if str(m.doc, "authorization_endpoint") == "" || str(m.doc, "token_endpoint") == "" {
		skipAll(e, "the metadata names no authorization_endpoint or token_endpoint (MCP-AUTHZ-META-4)", grantRules...)
		return nil
	}
	f := &flow{e: e, w: w, m: m, resource: DefaultResource}
	if r := e.Params[ParamResource]; r != "" {
		f.resource = r
	}
	cb, err := listen(e.Params[ParamCallbackPort])
	if err != nil {
		skipAll(e, "no callback listener: "+err.Error(), grantRules...)
		return nil
	}
	defer cb.close()
	f.cb, f.redirect = cb, cb.url()
	if !f.client() {
		return nil
	}
	if code, verifier := e.Params[ParamCode], e.Params[ParamCodeVerifier]; code != "" {
		const why = "the code was obtained by hand (--param code): wirecheck saw no authorization response"
		skipAll(e, why, "MCP-AUTHZ-CODE-1", "MCP-AUTHZ-REDIR-1", "MCP-AUTHZ-ISS-1", "MCP-AUTHZ-ISS-2", "MCP-AUTHZ-ISS-3", "MCP-AUTHZ-PKCE-2")
		f.redeem(code, verifier)
		f.errors("", "")
		return nil
	}
	verifier := pkce.Random(32)
	q, seq, why := f.authorize(verifier, f.redirect)
	if q == nil {
		skipAll(e, why, "MCP-AUTHZ-CODE-1", "MCP-AUTHZ-REDIR-1", "MCP-AUTHZ-ISS-1", "MCP-AUTHZ-ISS-2", "MCP-AUTHZ-ISS-3", "MCP-AUTHZ-TOKEN-1", "MCP-AUTHZ-TOKEN-3", "MCP-AUTHZ-TOKEN-2", "MCP-AUTHZ-RES-1", "MCP-AUTHZ-PKCE-2")
		f.errors("", "")
		return nil
	}
	code, ok := f.judgeResponse(q.query, seq, q.state)
	f.judgeUnregistered()
	if !ok {
		skipAll(e, "the authorization response carried no code (MCP-AUTHZ-CODE-1)", "MCP-AUTHZ-TOKEN-1", "MCP-AUTHZ-TOKEN-3", "MCP-AUTHZ-TOKEN-2", "MCP-AUTHZ-RES-1", "MCP-AUTHZ-PKCE-2")
		f.errors("", "")
		return nil
	}
	f.redeem(code, verifier)
	// A second code, redeemed with a verifier that is not its own.
	var wrongCode string
	if q2, _, _ := f.authorize(pkce.Random(32), f.redirect); q2 != nil {
		wrongCode = first(q2.query, "code")
	}
	f.errors(wrongCode, code)
	return nil
}

// client registers one (or takes --param client-id); false when there is
// none, every rule after it skipped.
func (f *flow) client() bool {
	e := f.e
	supported := strs(f.m.doc, "token_endpoint_auth_methods_supported")
	if len(supported) == 0 {
		supported = []string{"client_secret_basic"} // RFC 8414 §2's default
	}
	if id := e.Params[ParamClientID]; id != "" {
		f.id, f.secret = id, e.Params[ParamClientSecret]
		f.method = "none"
		if f.secret != "" {
			f.method = "client_secret_basic"
			if !slices.Contains(supported, "client_secret_basic") && slices.Contains(supported, "client_secret_post") {
				f.method = "client_secret_post"
			}
		}
		skipAll(e, "the run names its client (--param client-id): wirecheck registered none", "MCP-AUTHZ-DCR-1", "MCP-AUTHZ-DCR-2")
		return true
	}
	reg := str(f.m.doc, "registration_endpoint")
	if reg == "" {
		skipAll(e, "the metadata names no registration_endpoint and the run names no client (--param client-id=… and, for a confidential client, client-secret=…, registered with redirect URI http://127.0.0.1:PORT/callback and --param callback-port=PORT)", grantRules...)
		return false
	}
	want := "none"
	for _, m := range []string{"none", "client_secret_post", "client_secret_basic"} {
		if slices.Contains(supported, m) {
			want = m
			break
		}
	}
	body, _ := json.Marshal(map[string]any{
		"client_name": "wirecheck", "redirect_uris": []string{f.redirect},
		"grant_types": []string{"authorization_code"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": want,
	})
	res, seq := f.w.post("register a client at "+reg, reg, "application/json", body, nil)
	doc := object(res)
	id := str(doc, "client_id")
	ok := res != nil && res.Status >= 200 && res.Status < 300
	// RFC 7591 asks 201 and application/json in a sentence without
	// keyword (DCR-2, SHOULD); only client_id is REQUIRED (DCR-1). A
	// refusal is the server's right (§3 lets it ask an initial access
	// token, §3.2.2 answers an error): no client, no breach.
	switch {
	case res != nil && res.Status >= 400 && res.Status < 500:
		skipAll(e, fmt.Sprintf("the registration was refused (HTTP %d): RFC 7591 lets a server refuse it; name a client with --param client-id", res.Status), "MCP-AUTHZ-DCR-1", "MCP-AUTHZ-DCR-2")
	case !ok:
		e.Skip("MCP-AUTHZ-DCR-1", "the registration was not answered with a success, which alone carries a client_id")
		fail(e, "MCP-AUTHZ-DCR-2", seq, "the registration was not answered 201 Created", "HTTP 201 with a JSON object labelled application/json", answered(res))
	case id == "":
		fail(e, "MCP-AUTHZ-DCR-1", seq, "the registration's answer carries no client_id", "a JSON object with a client_id string", answered(res))
	default:
		pass(e, "MCP-AUTHZ-DCR-1", seq)
	}
	if ok {
		judgeLabelled(e, "MCP-AUTHZ-DCR-2", seq, res, doc, http.StatusCreated, "the registration was answered %d, not 201 Created", "the registration's answer")
	}
	if id == "" {
		skipAll(e, "no client was registered (MCP-AUTHZ-DCR-1)", grantRules[2:]...)
		return false
	}
	f.id, f.secret, f.method = id, str(doc, "client_secret"), str(doc, "token_endpoint_auth_method")
	if f.method == "" {
		f.method = "client_secret_basic" // RFC 7591 §2's default
	}
	return true
}

// response is an authorization response as the callback got it.
type response struct {
	query url.Values
	state string
}

// maxHops bounds the redirects followed within the authorization server
// before its answer reaches the callback.
const maxHops = 5

// authorize sends an authorization request and follows its redirects to
// the callback; nil and why when it never got there (a login page).
func (f *flow) authorize(verifier, redirect string) (*response, int, string) {
	state := pkce.Random(16)
	u, err := url.Parse(str(f.m.doc, "authorization_endpoint"))
	if err != nil {
		return nil, 0, "the authorization_endpoint is not a URL: " + err.Error()
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", f.id)
	q.Set("redirect_uri", redirect)
	q.Set("state", state)
	q.Set("code_challenge", pkce.S256(verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("resource", f.resource)
	u.RawQuery = q.Encode()
	next := u.String()
	var seq int
	for hop := 0; hop <= maxHops; hop++ {
		res, s := f.w.getHTML("authorization request "+next, next)
		if hop == 0 {
			seq = s
		}
		loc := ""
		if res != nil && res.Status >= 300 && res.Status < 400 {
			loc = res.Header.Get("Location")
		}
		if loc == "" {
			return nil, seq, "the authorization endpoint answered " + answered(res) + " instead of redirecting back: it asks a human to log in or consent, which wirecheck cannot do. Log in by hand with a redirect URI of http://127.0.0.1:PORT/callback, then pass --param code=… with --param code-verifier=… (the verifier of the code_challenge you sent) and --param callback-port=PORT"
		}
		to, err := url.Parse(next)
		if err == nil {
			to, err = to.Parse(loc)
		}
		if err != nil {
			return nil, seq, "the authorization endpoint redirected to a Location that is not a URL: " + loc
		}
		if f.cb.owns(to, redirect) {
			// Follow it, as a browser would, to the callback listener.
			f.w.get("the redirect to the callback "+to.Redacted(), to.String())
			got := f.cb.take()
			if got == nil {
				got = to.Query()
			}
			return &response{query: got, state: state}, seq, ""
		}
		if to.Host != u.Host {
			return nil, seq, "the authorization endpoint redirected to another site (" + to.Redacted() + "): a login wirecheck cannot complete. Log in by hand and pass --param code=… with --param code-verifier=…"
		}
		next = to.String()
	}
	return nil, seq, fmt.Sprintf("more than %d redirects within the authorization server", maxHops)
}

// judgeResponse judges an authorization response (MCP-AUTHZ-CODE-1,
// MCP-AUTHZ-ISS-1) and returns its code.
func (f *flow) judgeResponse(q url.Values, seq int, state string) (string, bool) {
	e := f.e
	got := q.Encode()
	switch errCode := q.Get("error"); errCode {
	case "":
	case "invalid_target":
		// RFC 8707 §2: a server may serve only resources it knows.
		e.Skip("MCP-AUTHZ-CODE-1", "the authorization server refused the resource "+f.resource+" (invalid_target): name an MCP server it serves with --param "+ParamResource+"=URI")
		f.judgeIss(q, seq)
		return "", false
	case "access_denied", "login_required", "interaction_required", "consent_required":
		e.Skip("MCP-AUTHZ-CODE-1", "the authorization server answered "+errCode+": it wants a human to log in or consent, which wirecheck cannot do; pass --param "+ParamCode+"=… with --param "+ParamCodeVerifier+"=…")
		f.judgeIss(q, seq)
		return "", false
	default:
		fail(e, "MCP-AUTHZ-CODE-1", seq, "the authorization request was refused: "+errCode+" "+q.Get("error_description"),
			"a code for a well-formed request (response_type code, S256 challenge, a registered redirect_uri)", got)
		f.judgeIss(q, seq)
		return "", false
	}
	codes, states := q["code"], q["state"]
	switch {
	case len(codes) != 1 || codes[0] == "":
		fail(e, "MCP-AUTHZ-CODE-1", seq, "the authorization response does not carry one code", "one non-empty code", got)
	case len(states) != 1 || states[0] != state:
		fail(e, "MCP-AUTHZ-CODE-1", seq, "the authorization response does not carry the request's state", "state="+state, got)
	default:
		pass(e, "MCP-AUTHZ-CODE-1", seq)
	}
	f.judgeIss(q, seq)
	if len(codes) == 0 || codes[0] == "" {
		return "", false
	}
	return codes[0], true
}

func (f *flow) judgeIss(q url.Values, seq int) {
	iss, says := str(f.m.doc, "issuer"), f.m.doc["authorization_response_iss_parameter_supported"] == true
	got := q["iss"]
	switch {
	case len(got) == 0:
		fail(f.e, "MCP-AUTHZ-ISS-2", seq, "the authorization response carries no iss", "iss="+iss, q.Encode())
		f.e.Skip("MCP-AUTHZ-ISS-3", "the authorization response carries no iss: nothing to advertise")
	case says:
		pass(f.e, "MCP-AUTHZ-ISS-2", seq)
		pass(f.e, "MCP-AUTHZ-ISS-3", f.m.seq)
	default:
		pass(f.e, "MCP-AUTHZ-ISS-2", seq)
		fail(f.e, "MCP-AUTHZ-ISS-3", seq, "the authorization response carries iss, but the metadata does not set authorization_response_iss_parameter_supported to true",
			"authorization_response_iss_parameter_supported: true", fmt.Sprintf("authorization_response_iss_parameter_supported %v", show(f.m.doc["authorization_response_iss_parameter_supported"])))
	}
	switch {
	case len(got) == 0 && says:
		fail(f.e, "MCP-AUTHZ-ISS-1", seq, "the metadata sets authorization_response_iss_parameter_supported, but the authorization response carries no iss", "iss="+iss, q.Encode())
	case len(got) == 0:
		f.e.Skip("MCP-AUTHZ-ISS-1", "the metadata does not set authorization_response_iss_parameter_supported and the response carries no iss (RFC 9207 is optional)")
	case len(got) != 1 || got[0] != iss:
		fail(f.e, "MCP-AUTHZ-ISS-1", seq, "the authorization response's iss is not the metadata's issuer", "iss="+iss, "iss="+strings.Join(got, ","))
	default:
		pass(f.e, "MCP-AUTHZ-ISS-1", seq)
	}
}

// judgeUnregistered asks for a redirect to a URI the client did not
// register (MCP-AUTHZ-REDIR-1): any answer but a redirect there passes.
func (f *flow) judgeUnregistered() {
	bad := f.redirect + "-unregistered"
	u, _ := url.Parse(str(f.m.doc, "authorization_endpoint"))
	q := u.Query()
	for k, v := range map[string]string{"response_type": "code", "client_id": f.id, "redirect_uri": bad, "state": pkce.Random(16),
		"code_challenge": pkce.S256(pkce.Random(32)), "code_challenge_method": "S256", "resource": f.resource} {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	res, seq := f.w.getHTML("authorization request with an unregistered redirect_uri", u.String())
	loc := ""
	if res != nil {
		loc = res.Header.Get("Location")
	}
	if to, err := u.Parse(loc); loc != "" && err == nil && f.cb.owns(to, bad) {
		fail(f.e, "MCP-AUTHZ-REDIR-1", seq, "the authorization server redirected to a redirect_uri the client did not register", "no redirect to "+bad, answered(res)+" Location: "+loc)
		return
	}
	pass(f.e, "MCP-AUTHZ-REDIR-1", seq)
}

// auth adds the client's authentication to a token request.
func (f *flow) auth(form url.Values) map[string]string {
	switch f.method {
	case "client_secret_basic":
		cred := url.QueryEscape(f.id) + ":" + url.QueryEscape(f.secret)
		return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(cred))}
	case "client_secret_post":
		form.Set("client_id", f.id)
		form.Set("client_secret", f.secret)
	default:
		form.Set("client_id", f.id)
	}
	return nil
}

func (f *flow) tokenRequest(what string, form url.Values, set map[string]string) (*httpmcp.Result, int) {
	return f.w.post(what, str(f.m.doc, "token_endpoint"), "application/x-www-form-urlencoded", []byte(form.Encode()), set)
}

// redeem exchanges the code (MCP-AUTHZ-TOKEN-1, -2, MCP-AUTHZ-RES-1).
func (f *flow) redeem(code, verifier string) {
	e := f.e
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {f.redirect},
		"code_verifier": {verifier}, "resource": {f.resource}}
	set := f.auth(form)
	res, seq := f.tokenRequest("token request with the code and its code_verifier", form, set)
	doc := object(res)
	at, tt := str(doc, "access_token"), str(doc, "token_type")
	switch {
	case res != nil && res.Status == http.StatusBadRequest && str(doc, "error") == "invalid_target":
		e.Skip("MCP-AUTHZ-TOKEN-1", "the authorization server refused the resource "+f.resource+" (invalid_target): name an MCP server it serves with --param "+ParamResource+"=URI")
	case res == nil || res.Status < 200 || res.Status >= 300:
		fail(e, "MCP-AUTHZ-TOKEN-1", seq, "the code, with its verifier, was not redeemed", "a success with access_token and token_type", answered(res))
	case at == "" || tt == "":
		fail(e, "MCP-AUTHZ-TOKEN-1", seq, "the token response lacks access_token or token_type", "a JSON object with access_token and token_type strings", answered(res))
	default:
		pass(e, "MCP-AUTHZ-TOKEN-1", seq)
	}
	// RFC 6749 §5.1 says 200 and application/json without keyword
	// (TOKEN-3, SHOULD); only the parameters are REQUIRED (TOKEN-1).
	if res != nil && res.Status >= 200 && res.Status < 300 {
		judgeLabelled(e, "MCP-AUTHZ-TOKEN-3", seq, res, doc, http.StatusOK, "the token response is %d, not 200 OK", "the token response")
	} else {
		e.Skip("MCP-AUTHZ-TOKEN-3", "no token response to judge (MCP-AUTHZ-TOKEN-1)")
	}
	if at == "" {
		skipAll(e, "no access token was issued (MCP-AUTHZ-TOKEN-1)", "MCP-AUTHZ-TOKEN-2", "MCP-AUTHZ-RES-1", "MCP-AUTHZ-REFRESH-1")
		return
	}
	defer f.judgeRotation(str(doc, "refresh_token"))
	if cc := strings.ToLower(res.Header.Get("Cache-Control")); strings.Contains(cc, "no-store") {
		pass(e, "MCP-AUTHZ-TOKEN-2", seq)
	} else {
		fail(e, "MCP-AUTHZ-TOKEN-2", seq, "the token response may be cached", "Cache-Control: no-store", "Cache-Control: "+res.Header.Get("Cache-Control"))
	}
	aud, ok := audience(at)
	switch {
	case !ok:
		e.Skip("MCP-AUTHZ-RES-1", "the access token is not a JWT: its audience cannot be read")
	case slices.Contains(aud, f.resource):
		pass(e, "MCP-AUTHZ-RES-1", seq)
	default:
		fail(e, "MCP-AUTHZ-RES-1", seq, "the access token issued for a resource is not restricted to it", "aud with "+f.resource, "aud "+strings.Join(aud, ", "))
	}
}

// judgeRotation redeems a public client's refresh token, then redeems it
// again: the second time it must be refused (MCP-AUTHZ-REFRESH-1).
func (f *flow) judgeRotation(rt string) {
	e := f.e
	switch {
	case !applies(e, "MCP-AUTHZ-REFRESH-1"):
		return
	case rt == "":
		e.Skip("MCP-AUTHZ-REFRESH-1", "the token response carries no refresh_token")
		return
	case f.method != "none":
		e.Skip("MCP-AUTHZ-REFRESH-1", "the client is confidential ("+f.method+"): MCP asks rotation for public clients")
		return
	}
	redeem := func(what string) (*httpmcp.Result, int) {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "resource": {f.resource}}
		return f.tokenRequest(what, form, f.auth(form))
	}
	first, seq := redeem("refresh token request")
	if first == nil || first.Status < 200 || first.Status >= 300 {
		e.Skip("MCP-AUTHZ-REFRESH-1", "the refresh token was not redeemed ("+answered(first)+"): no rotation to judge")
		return
	}
	again, seq2 := redeem("refresh token request with the refresh token already redeemed")
	if again != nil && again.Status >= 200 && again.Status < 300 {
		fail(e, "MCP-AUTHZ-REFRESH-1", seq2, "a public client's refresh token was taken again after it was redeemed: it is not rotated", "a refusal (invalid_grant)", answered(again))
		return
	}
	pass(e, "MCP-AUTHZ-REFRESH-1", seq)
}

// audience is a JWT's aud, unverified (only its shape is judged); false
// when the token is not a JWT.
func audience(token string) ([]string, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false
	}
	var c struct {
		Aud any `json:"aud"`
	}
	if json.Unmarshal(b, &c) != nil {
		return nil, false
	}
	switch a := c.Aud.(type) {
	case string:
		return []string{a}, true
	case []any:
		var out []string
		for _, v := range a {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, true
}

// refusal is a token request wirecheck expects refused, and the error
// codes that answer it as RFC 6749 §5.2 (or RFC 7636 §4.6) asks.
type refusal struct {
	what, rule string
	form       url.Values
	set        map[string]string
	want       []string
}

// errors judges the token endpoint's refusals: a code with a verifier not
// its own (when there is one), an unknown grant type, an unknown client.
// used is a code already redeemed (any string when none).
func (f *flow) errors(wrongCode, used string) {
	if used == "" {
		used = pkce.Random(16)
	}
	var rs []refusal
	if wrongCode != "" {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {wrongCode}, "redirect_uri": {f.redirect},
			"code_verifier": {pkce.Random(32)}, "resource": {f.resource}}
		rs = append(rs, refusal{"a code redeemed with a code_verifier not its own", "MCP-AUTHZ-PKCE-2", form, f.auth(form), []string{"invalid_grant"}})
	} else {
		f.e.Skip("MCP-AUTHZ-PKCE-2", "wirecheck got no second code to redeem with the wrong verifier")
	}
	form := url.Values{"grant_type": {"urn:wirecheck:unknown-grant"}, "code": {used}}
	rs = append(rs, refusal{"an unknown grant_type", "MCP-AUTHZ-ERR-2", form, f.auth(form), []string{"unsupported_grant_type"}})
	// An unknown public client: invalid_client, or invalid_grant from a
	// server that checks the code's client first (RFC 6749 §4.1.3 orders
	// neither).
	form = url.Values{"grant_type": {"authorization_code"}, "code": {used}, "redirect_uri": {f.redirect},
		"code_verifier": {pkce.Random(32)}, "client_id": {"wirecheck-unknown-client-" + pkce.Random(6)}}
	rs = append(rs, refusal{"an unknown client", "MCP-AUTHZ-ERR-2", form, nil, []string{"invalid_client", "invalid_grant"}})
	for _, r := range rs {
		res, seq := f.tokenRequest("token request with "+r.what, r.form, r.set)
		doc := object(res)
		code := str(doc, "error")
		// ERR-1: the REQUIRED error; ERR-3: the status and the label
		// RFC 6749 §5.2 states without keyword.
		refused := res != nil && (res.Status < 200 || res.Status >= 300)
		switch {
		case res == nil:
			fail(f.e, "MCP-AUTHZ-ERR-1", seq, "the token request with "+r.what+" got no answer", "a refusal with a JSON error", "no answer")
		case !refused:
			// Not a refusal: the rule of the case fails below.
		case code == "":
			fail(f.e, "MCP-AUTHZ-ERR-1", seq, "the refusal of the token request with "+r.what+" is not a JSON object with an error string", `{"error": "…"}`, answered(res))
		default:
			pass(f.e, "MCP-AUTHZ-ERR-1", seq)
		}
		switch {
		case !refused:
		case res.Status != http.StatusBadRequest && !(res.Status == http.StatusUnauthorized && code == "invalid_client"):
			fail(f.e, "MCP-AUTHZ-ERR-3", seq, "the token request with "+r.what+" was refused with another status", "HTTP 400 (401 for invalid_client)", answered(res))
		case doc == nil || !isJSON(res.Header):
			fail(f.e, "MCP-AUTHZ-ERR-3", seq, "the refusal of the token request with "+r.what+" is not labelled application/json", "Content-Type: application/json", answered(res))
		default:
			pass(f.e, "MCP-AUTHZ-ERR-3", seq)
		}
		switch {
		case res != nil && res.Status >= 200 && res.Status < 300:
			fail(f.e, r.rule, seq, "the token request with "+r.what+" was served", "a refusal with error "+strings.Join(r.want, " or "), answered(res))
		case slices.Contains(r.want, code):
			pass(f.e, r.rule, seq)
		default:
			fail(f.e, r.rule, seq, "the token request with "+r.what+" was not refused with error "+strings.Join(r.want, " or "), "error "+strings.Join(r.want, " or "), answered(res))
		}
	}
}

func first(q url.Values, k string) string {
	if v := q[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// callback is the local listener the authorization response is
// redirected to, as an MCP client on the user's machine has one.
type callback struct {
	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	last url.Values
}

func listen(port string) (*callback, error) {
	if port == "" {
		port = "0"
	} else if _, err := strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("--param %s=%q is not a port", ParamCallbackPort, port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, err
	}
	c := &callback{ln: ln}
	c.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.last = r.URL.Query()
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("wirecheck got the authorization response; this page may be closed.\n"))
	})}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

func (c *callback) url() string { return "http://" + c.ln.Addr().String() + "/callback" }

// owns reports whether u is a redirect to the redirect URI.
func (c *callback) owns(u *url.URL, redirect string) bool {
	r, err := url.Parse(redirect)
	return err == nil && u.Scheme == r.Scheme && u.Host == r.Host && u.Path == r.Path
}

// take is the query the listener got last, nil when none.
func (c *callback) take() url.Values {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.last
	c.last = nil
	return q
}

func (c *callback) close() { _ = c.srv.Close() }

// judgeLabelled judges the SHOULD half of a success whose REQUIRED
// parameters another rule judges (DCR-2, TOKEN-3): the status the RFC
// names (want; statusMsg formats the one given) and a JSON object
// labelled application/json (what names the answer).
func judgeLabelled(e *scenario.Env, rule string, seq int, res *httpmcp.Result, doc map[string]any, want int, statusMsg, what string) {
	expected := fmt.Sprintf("HTTP %d with a JSON object labelled application/json", want)
	switch {
	case res.Status != want:
		fail(e, rule, seq, fmt.Sprintf(statusMsg, res.Status), expected, answered(res))
	case doc == nil || !isJSON(res.Header):
		fail(e, rule, seq, what+" is not a JSON object labelled application/json", "Content-Type: application/json, a JSON object", answered(res))
	default:
		pass(e, rule, seq)
	}
}
