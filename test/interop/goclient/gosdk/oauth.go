package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// redirectURL is where the authorization server sends the code: the
// fetcher reads it from the redirect and never listens there.
const redirectURL = "http://127.0.0.1:9/callback"

// oauthHandler is the SDK's authorization-code handler as an application
// configures it: pre-registered credentials when MCP_CLIENT_ID and
// MCP_CLIENT_SECRET are set (bound to MCP_CLIENT_ISSUER), a Client ID Metadata Document it serves over
// TLS on loopback when CIMD=1, and dynamic registration (its
// application_type inferred by the SDK from the loopback redirect URI;
// grant types authorization_code and refresh_token, as it asks refresh
// tokens). No browser: the authorization server approves at once and its
// redirect carries the code.
func oauthHandler() (*auth.AuthorizationCodeHandler, error) {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirectURL,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirectURL}, ClientName: "go-sdk-client", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}}},
		RequestRefreshToken: true,
		// ACCEPT_UNADVERTISED_ISS=1: the issuer's iss accepted though the
		// metadata does not advertise it (2026-07-28's table, third row);
		// the SDK's default rejects it.
		AcceptUnadvertisedIss:    os.Getenv("ACCEPT_UNADVERTISED_ISS") == "1",
		AuthorizationCodeFetcher: fetchCode,
	}
	if id := os.Getenv("MCP_CLIENT_ID"); id != "" {
		// Bound to their authorization server when MCP_CLIENT_ISSUER names it.
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: id, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: os.Getenv("MCP_CLIENT_SECRET")},
			Issuer: os.Getenv("MCP_CLIENT_ISSUER")}
	}
	if os.Getenv("CIMD") == "1" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: serveDocument()}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// serveDocument serves the client's metadata document over TLS on
// loopback for the life of the process and returns its URL.
func serveDocument() string {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": "https://" + r.Host + "/client.json", "client_name": "go-sdk-client",
			"redirect_uris": []string{redirectURL}, "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
			"token_endpoint_auth_method": "none"})
	}))
	srv.StartTLS()
	return srv.URL + "/client.json"
}

// fetchCode follows the authorization URL as a browser would, to the
// redirect, and reads the response from it.
func fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return nil, errors.New("authorization: no code in the redirect (HTTP " + resp.Status + ")")
	}
	q := loc.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
