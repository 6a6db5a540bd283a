package mcpclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
)

// Guard is the protection a scenario puts on wirecheck's endpoint: a,
// with the reference authorization server mounted (internal/refserver/
// mcpauthz: registration open, approval at once, S256 alone), its every
// request shown to the guard's checks. The server knows beforehand the
// client a.Provisions names (the run's {client_id} and {client_secret});
// with a.Migrate a second one (which does not) is mounted as AS2.
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
	if !a.CIMD {
		faults = append(faults, "no-cimd")
	}
	if a.NoRegistration {
		variants = append(variants, "no-registration")
	}
	observe := func(second bool) func(mcpauthz.Request) {
		return func(r mcpauthz.Request) {
			g.Observe(httpserve.ASRequest{Endpoint: r.Endpoint, Method: r.Method, Path: r.URL.Path, Form: r.Form, Header: r.Header, Body: r.Body,
				Status: r.Status, Second: second})
		}
	}
	fetch := func(ctx context.Context, u string) ([]byte, error) {
		b, err := fetchLoopback(ctx, u)
		var beyond errBeyond
		switch {
		case errors.As(err, &beyond):
		case err != nil:
			g.ObserveDocument(httpserve.Document{URL: u, Err: err.Error()})
		default:
			g.ObserveDocument(httpserve.Document{URL: u, Body: b})
		}
		return b, err
	}
	path := httpserve.ASPath
	if a.ASRoot {
		path = ""
	}
	p := a.Provisions
	o := mcpauthz.Options{Path: path, Faults: faults, Variants: variants, ScopesSupported: a.ASScopes, Observe: observe(false), Fetch: fetch}
	if p.ClientID != "" {
		// The pre-registered client, whose credentials the run gave the
		// client under test.
		o.Clients = []mcpauthz.Client{{ID: p.ClientID, Secret: p.ClientSecret, AuthMethod: mcpauthz.SecretEither}}
	}
	// Under an extension the authorization server takes only its grant,
	// from the client the run provisioned.
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
	a.Verify = verifier(as)
	a.Issued1 = func(id string) (string, bool) {
		c, ok := as.Issued(id)
		return c.Secret, ok
	}
	a.Refresh1 = as.IssuedRefresh
	if a.Migrate {
		as2, err := mcpauthz.New(mcpauthz.Options{Path: httpserve.AS2Path, Faults: []string{"no-cimd"}, Observe: observe(true), Fetch: fetch})
		if err != nil {
			return nil, err
		}
		a.AS2, a.Verify2 = as2, verifier(as2)
	}
	g = httpserve.NewGuard(a)
	return g, nil
}

// verifier takes the tokens as issued, returning the scope each grants.
func verifier(as *mcpauthz.Server) func(token, issuer, resource string) (string, error) {
	return func(token, issuer, resource string) (string, error) {
		c, err := as.Verify(token, issuer, resource)
		if err != nil {
			return "", err
		}
		return c.Scope, nil
	}
}

// errBeyond: a client_id URL whose host is not a loopback address, which
// wirecheck does not fetch (it sends nothing beyond loopback the user did
// not name).
type errBeyond struct{ host string }

func (e errBeyond) Error() string {
	return "the metadata document's host " + e.host + " is not a loopback address: wirecheck fetches nothing beyond loopback"
}

// maxDocument bounds a fetched Client ID Metadata Document.
const maxDocument = 64 << 10

// fetchLoopback gets a Client ID Metadata Document from a loopback host.
// A client under test serves its document there with a certificate no CA
// signed, so the certificate is not verified: the connection never leaves
// the machine.
func fetchLoopback(ctx context.Context, u string) ([]byte, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(p.Hostname()); p.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, errBeyond{p.Hostname()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	hc := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback only, see above
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxDocument))
}
