package mcpclient

import (
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
	as, err := mcpauthz.New(mcpauthz.Options{Path: path, Faults: faults, Variants: variants, ScopesSupported: a.ASScopes, Observe: func(r mcpauthz.Request) {
		g.Observe(httpserve.ASRequest{Endpoint: r.Endpoint, Method: r.Method, Path: r.URL.Path, Form: r.Form, Body: r.Body, Status: r.Status})
	}})
	if err != nil {
		return nil, err
	}
	a.AS = as
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
