package mcpclient

import (
	"crypto/ecdsa"
	"net/http"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
)

// Guard is the protection a scenario puts on wirecheck's endpoint: a,
// with the reference authorization server mounted (internal/refserver/
// mcpauthz: registration open, approval at once, S256 alone), its every
// request shown to the guard's checks.
func Guard(a httpserve.Auth) (*httpserve.Guard, error) {
	var g *httpserve.Guard
	var faults, variants []string
	if a.WrongIssuer {
		faults = append(faults, "issuer-mismatch")
	}
	if a.IssUnadvertised {
		faults = append(faults, "iss-unadvertised")
	}
	if a.IssAbsent {
		variants = append(variants, "no-iss")
	}
	if a.ASMetadata != "" {
		// MetadataAppended too: the guard hides the inserted URI.
		variants = append(variants, "openid-only")
	}
	path := httpserve.ASPath
	if a.ASRoot {
		path = ""
	}
	o := mcpauthz.Options{Path: path, Faults: faults, Variants: variants, ScopesSupported: a.ASScopes, Observe: func(r mcpauthz.Request) {
		g.Observe(httpserve.ASRequest{Endpoint: r.Endpoint, Method: r.Method, Path: r.URL.Path, Form: r.Form, Header: r.Header, Body: r.Body, Status: r.Status})
	}}
	// Under an extension the authorization server takes only its grant,
	// from the client the run provisioned.
	p := a.Provisions
	switch a.Extension {
	case httpserve.ExtClientCredentials:
		o.Grants = []string{mcpauthz.GrantClientCredentials}
		o.Clients = []mcpauthz.Client{{ID: p.ClientID, Secret: p.ClientSecret, Key: &p.ClientKey.PublicKey}}
	case httpserve.ExtWorkloadIdentity:
		o.Grants = []string{mcpauthz.GrantJWTBearer}
		o.Trusted = map[string]*ecdsa.PublicKey{p.WorkloadIssuer: &p.WorkloadKey.PublicKey}
	case httpserve.ExtEnterpriseManaged:
		o.Grants, o.IDJAG = []string{mcpauthz.GrantJWTBearer}, true
		o.Clients = []mcpauthz.Client{{ID: p.ClientID, Secret: p.ClientSecret}}
		o.Trusted = map[string]*ecdsa.PublicKey{p.IdPIssuer: &p.IdPKey.PublicKey}
	}
	as, err := mcpauthz.New(o)
	if err != nil {
		return nil, err
	}
	a.AS = as
	if a.Extension == httpserve.ExtEnterpriseManaged {
		// The enterprise IdP beside the authorization server, on the
		// same listener.
		idp, err := mcpauthz.NewIdP(mcpauthz.IdPOptions{Path: httpserve.IdPPath, Key: p.IdPKey, Audience: p.IdPClientID, ClientID: p.ClientID, Observe: o.Observe})
		if err != nil {
			return nil, err
		}
		mux := http.NewServeMux()
		mux.Handle(httpserve.IdPPath+"/", idp)
		mux.Handle("/", as)
		a.AS = mux
	}
	a.Verify = func(token, issuer, resource string) (string, error) {
		c, err := as.Verify(token, issuer, resource)
		if err != nil {
			return "", err
		}
		return c.Scope, nil
	}
	g = httpserve.NewGuard(a)
	return g, nil
}
