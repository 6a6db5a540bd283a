package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Who the reference client is to an authorization server (MCP
// basic/authorization, client registration, 2025-11-25 on), in the
// priority order the page gives: the pre-registered credentials the run
// hands it (variants preregistered*, through EnvClientID, EnvClientSecret
// and EnvClientIssuer: oauthext.go's creds) for the authorization server
// they were given for; else the URL of a Client ID Metadata Document it serves itself, where
// the server advertises client_id_metadata_document_supported; else
// dynamic registration (RFC 7591), anew with every authorization server.

// oauthClient is a client identity at one authorization server: its id,
// secret and how it authenticates at the token endpoint.
type oauthClient struct{ ID, Secret, Method string }

// registrations is what the client keeps of its identities.
type registrations struct {
	mu sync.Mutex
	// preIssuer is the issuer the pre-registered credentials belong to:
	// the first authorization server the client met (the run gives them
	// for wirecheck's first one).
	preIssuer string
	// first is the registration the fault reuses-client takes everywhere.
	first *oauthClient
	// doc serves the client's metadata document on loopback, over TLS.
	doc *httptest.Server
}

// clientFor is the client's identity at the authorization server issuer,
// whose metadata says whether it takes metadata documents and where it
// registers ("" none).
func (l *link) clientFor(issuer string, cimd bool, registration string) (oauthClient, error) {
	r := &l.reg
	r.mu.Lock()
	if l.fault["reuses-client"] && r.first != nil {
		c := *r.first
		r.mu.Unlock()
		return c, nil
	}
	if pre := l.variant["preregistered"] || l.variant["preregistered-post"]; pre && l.creds.id != "" {
		if r.preIssuer == "" {
			r.preIssuer = l.creds.issuer
		}
		if r.preIssuer == "" || r.preIssuer == issuer {
			r.preIssuer = issuer
			r.mu.Unlock()
			c := oauthClient{ID: l.creds.id, Secret: l.creds.secret, Method: "client_secret_basic"}
			switch {
			case l.fault["preregistered-no-secret"]:
				c.Secret, c.Method = "", "none"
			case l.variant["preregistered-post"]:
				c.Method = "client_secret_post"
			}
			return c, nil
		}
	}
	r.mu.Unlock()
	if cimd && !l.fault["cimd-ignored"] {
		u, err := l.document()
		return oauthClient{ID: u, Method: "none"}, err
	}
	if registration == "" {
		return oauthClient{}, errors.New("the authorization server has no registration endpoint nor metadata documents, and the client no pre-registered credentials")
	}
	c, err := l.register(registration)
	if err == nil && l.fault["reuses-client"] {
		r.mu.Lock()
		r.first = &c
		r.mu.Unlock()
	}
	return c, err
}

// wantsRefresh: the client wants refresh tokens, unless the variant
// no-refresh says it wants none.
func (l *link) wantsRefresh() bool { return !l.variant["no-refresh"] }

// register registers dynamically: a public client by default; the
// variants secret-basic and secret-post a confidential one, which
// authenticates at the token endpoint as it registered.
func (l *link) register(endpoint string) (oauthClient, error) {
	method := "none"
	switch {
	case l.variant["secret-basic"]:
		method = "client_secret_basic"
	case l.variant["secret-post"]:
		method = "client_secret_post"
	}
	grants := []string{"authorization_code"}
	if l.wantsRefresh() && !l.fault["refresh-unregistered"] {
		grants = append(grants, "refresh_token")
	}
	m := map[string]any{"client_name": "wirecheck reference client", "redirect_uris": []string{redirectURI},
		"token_endpoint_auth_method": method, "grant_types": grants, "response_types": []string{"code"},
		// A local client with a loopback redirect URI: "native" (2026-07-28).
		"application_type": "native"}
	switch {
	case l.fault["no-application-type"]:
		delete(m, "application_type")
	case l.variant["application-type-web"]:
		m["application_type"] = "web"
	}
	reg, _ := json.Marshal(m)
	var out struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
		Method string `json:"token_endpoint_auth_method"`
	}
	if err := l.postJSON(endpoint, "application/json", reg, &out); err != nil || out.ID == "" {
		return oauthClient{}, fmt.Errorf("registration: %v", err)
	}
	// RFC 7591 §3.2.1: the server may register another method than asked.
	if out.Method == "" {
		out.Method = method
	}
	return oauthClient{ID: out.ID, Secret: out.Secret, Method: out.Method}, nil
}

// documentPath is where the client serves its metadata document.
const documentPath = "/oauth/client-metadata.json"

// document serves the client's Client ID Metadata Document (once) and
// returns its URL, the client_id. It is served on loopback over TLS with
// a certificate of its own: the URL must be https, and nothing but the
// run's authorization server fetches it.
func (l *link) document() (string, error) {
	r := &l.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.doc == nil {
		r.doc = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path != documentPath {
				http.NotFound(w, req)
				return
			}
			// The URL it was fetched by is its own.
			id := "https://" + req.Host + documentPath
			if l.fault["cimd-mismatch"] {
				id += "?v=1"
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"client_id": id, "client_name": "wirecheck reference client",
				"redirect_uris": []string{redirectURI}, "grant_types": []string{"authorization_code"}, "response_types": []string{"code"},
				"token_endpoint_auth_method": "none"})
		}))
		r.doc.StartTLS()
	}
	u := r.doc.URL + documentPath
	if l.fault["cimd-http"] {
		u = "http" + u[len("https"):]
	}
	return u, nil
}

func (l *link) closeDocument() {
	l.reg.mu.Lock()
	defer l.reg.mu.Unlock()
	if l.reg.doc != nil {
		l.reg.doc.Close()
	}
}
