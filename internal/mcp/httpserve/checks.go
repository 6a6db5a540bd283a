package httpserve

import "github.com/wirecheck/wirecheck/internal/verdict"

// The checks this transport decides about the client under test, reported
// through transport.Hooks.Check as a server-role transport reports its own
// (internal/mcp/httpmcp/checks.go). A spec's client rules name them in
// `checks:`.
const (
	// CheckAcceptPost: a POST's Accept lists both application/json and
	// text/event-stream.
	CheckAcceptPost = "client-http.accept-post"
	// CheckAcceptGet: a GET's Accept lists text/event-stream.
	CheckAcceptGet = "client-http.accept-get"
	// CheckSessionID: every request after initialize carries the session
	// id wirecheck assigned.
	CheckSessionID = "client-http.session-id"
	// CheckVersionHeader: every request after initialize carries
	// MCP-Protocol-Version (from 2026-07-28 on: every POST, equal to the
	// body's _meta revision).
	CheckVersionHeader = "client-http.version-header"
	// CheckVersionNegotiated: that header names the negotiated revision.
	CheckVersionNegotiated = "client-http.version-negotiated"
	// CheckMetadataHeaders: Mcp-Method (and Mcp-Name where required)
	// mirror the body (2026-07-28, request metadata).
	CheckMetadataHeaders = "client-http.metadata-headers"
	// CheckParamHeaders: a tools/call of a tool listed with x-mcp-header
	// annotations mirrors each argument with a value into its Mcp-Param
	// header (2026-07-28).
	CheckParamHeaders = "client-http.param-headers"
	// CheckParamEncoding: a mirrored value that cannot travel plain is
	// Base64-encoded in the sentinel form.
	CheckParamEncoding = "client-http.param-encoding"
	// CheckParamNull: a null argument is not mirrored.
	CheckParamNull = "client-http.param-null"
	// CheckDelete: a session the client leaves is ended with DELETE.
	// Judged when the listener closes: only then is the client done.
	CheckDelete = "client-http.delete"
	// CheckResumes: a stream wirecheck broke before its response is
	// resumed with GET and Last-Event-ID.
	CheckResumes = "client-http.resumes"
	// CheckRetry: that reconnection waits at least the retry field's time.
	CheckRetry = "client-http.retry"
	// CheckReinitialize: after a 404 for its session id the client starts
	// a new session with an initialize that carries no session id.
	CheckReinitialize = "client-http.reinitialize"
	// CheckAuthPRM: the client fetched the protected resource metadata
	// before asking anything of the authorization server (auth.go).
	CheckAuthPRM = "client-http.auth-prm"
	// CheckAuthPKCE: an authorization request carries an S256
	// code_challenge, and the token request the verifier of one.
	CheckAuthPKCE = "client-http.auth-pkce"
	// CheckAuthResource: authorization and token requests carry resource,
	// the MCP server's canonical URI.
	CheckAuthResource = "client-http.auth-resource"
	// CheckAuthBearer: once issued a token, every request carries it in
	// the Authorization header, never in the query string.
	CheckAuthBearer = "client-http.auth-bearer"
	// CheckAuthPRMOrder: the first metadata URI asked is the challenge's
	// resource_metadata, else the path-based well-known URI.
	CheckAuthPRMOrder = "client-http.auth-prm-order"
	// CheckAuthASOrder: the first authorization server metadata URI asked
	// is RFC 8414's with the issuer's path inserted.
	CheckAuthASOrder = "client-http.auth-as-order"
	// CheckAuthScope: the first authorization request asks the
	// challenge's scope, else scopes_supported, else none.
	CheckAuthScope = "client-http.auth-scope"
	// CheckAuthStepUp: after a 403 insufficient_scope the client
	// authorizes anew asking the challenge's scopes.
	CheckAuthStepUp = "client-http.auth-step-up"
	// CheckAuthRetryLimit: refused 403 for good, the client stops
	// authorizing after a few tries.
	CheckAuthRetryLimit = "client-http.auth-retry-limit"
	// CheckAuthIss: an authorization response whose iss is missing (though
	// advertised) or not the issuer is rejected: its code never redeemed.
	CheckAuthIss = "client-http.auth-iss"
	// CheckAuthIssuer: metadata whose issuer is not the one its URL was
	// built from is not used.
	CheckAuthIssuer = "client-http.auth-issuer"
	// CheckRegApplicationType: a registration request names
	// application_type, native or web (registration.go).
	CheckRegApplicationType = "client-http.reg-application-type"
	// CheckRegCIMDURL: a URL client_id uses https and has a path.
	CheckRegCIMDURL = "client-http.reg-cimd-url"
	// CheckRegCIMDDocument: the document a URL client_id names holds
	// client_id (its URL exactly), client_name and redirect_uris.
	CheckRegCIMDDocument = "client-http.reg-cimd-document"
	// CheckRegCIMDUsed: told the authorization server supports Client ID
	// Metadata Documents, the client uses one.
	CheckRegCIMDUsed = "client-http.reg-cimd-used"
	// CheckRegPreregistered: the pre-registered client authenticates at
	// the token endpoint with the secret handed to it.
	CheckRegPreregistered = "client-http.reg-preregistered"
	// CheckRegReregister: sent to another authorization server, the
	// client registers with it before authorizing there.
	CheckRegReregister = "client-http.reg-reregister"
	// CheckRegNoReuse: the other authorization server never sees the
	// first one's client id, secret or refresh token.
	CheckRegNoReuse = "client-http.reg-no-reuse"
	// CheckCCGrant: given client credentials (the client-credentials
	// extension), the client asks its token with the client credentials
	// grant (authext.go).
	CheckCCGrant = "client-http.cc-grant"
	// CheckCCAuth: that request authenticates the client with a client
	// assertion (RFC 7523) or the secret it was given.
	CheckCCAuth = "client-http.cc-auth"
	// CheckCCClaims: a client assertion's iss and sub are the client's id.
	CheckCCClaims = "client-http.cc-claims"
	// CheckCCAssertion: a client assertion verifies with the key given,
	// names the authorization server in aud and has not expired.
	CheckCCAssertion = "client-http.cc-assertion"
	// CheckWIFGrant: given a workload's JWT (workload identity
	// federation), the client asks its token with the JWT bearer grant.
	CheckWIFGrant = "client-http.wif-grant"
	// CheckWIFAssertion: that request's assertion is the workload's JWT,
	// which verifies.
	CheckWIFAssertion = "client-http.wif-assertion"
	// CheckEMAExchange: under enterprise-managed authorization the client
	// exchanges its ID token at its IdP (RFC 8693) with every parameter
	// SEP-990 requires.
	CheckEMAExchange = "client-http.ema-exchange"
	// CheckEMAGrant: it then presents the ID-JAG with the JWT bearer
	// grant, authenticated with its credentials.
	CheckEMAGrant = "client-http.ema-grant"
	// CheckAuthASRoot: for an issuer without a path, the client tries
	// both RFC 8414's and OpenID Connect Discovery's URIs, in either
	// order, before it gives up (authdiscovery.go).
	CheckAuthASRoot = "client-http.auth-as-root"
	// CheckAuthGrantTypes: a client that wants refresh tokens registers
	// refresh_token among its grant_types.
	CheckAuthGrantTypes = "client-http.auth-grant-types"
	// CheckAuthOffline: offline_access is asked only when the
	// authorization server's metadata offers it.
	CheckAuthOffline = "client-http.auth-offline"
)

func init() {
	for _, c := range []string{CheckDelete, CheckResumes, CheckRetry, CheckReinitialize, CheckAuthPRM, CheckAuthPKCE, CheckAuthResource, CheckAuthPRMOrder, CheckAuthASOrder, CheckAuthScope, CheckAuthStepUp, CheckAuthRetryLimit, CheckAuthIss, CheckAuthIssuer, CheckAuthASRoot, CheckAuthGrantTypes, CheckAuthOffline,
		CheckRegCIMDUsed, CheckRegReregister, CheckRegNoReuse, CheckCCGrant, CheckCCAuth, CheckCCClaims, CheckCCAssertion, CheckWIFGrant, CheckWIFAssertion, CheckEMAExchange, CheckEMAGrant} {
		verdict.Register(c, "")
	}
	// Judged on every request: a report counts their failures.
	for _, c := range []string{CheckAcceptPost, CheckSessionID, CheckVersionHeader, CheckVersionNegotiated, CheckMetadataHeaders, CheckAuthBearer, CheckParamHeaders, CheckParamEncoding, CheckParamNull, CheckRegApplicationType, CheckRegCIMDURL, CheckRegCIMDDocument, CheckRegPreregistered} {
		verdict.Register(c, "requests")
	}
	verdict.Register(CheckAcceptGet, "GETs")
}
