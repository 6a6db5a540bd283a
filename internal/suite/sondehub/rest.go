package sondehub

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

// invalidToken is a bearer token no hub issued.
const invalidToken = "Bearer wirecheck-invalid-token"

// rest probes the REST API beside the MCP endpoint: each endpoint with
// the run's credentials (served, JSON), without them and with a token no
// hub issued (refused, 401).
func rest(e *scenario.Env) error {
	x, err := exchanger(e, restRules...)
	if x == nil || err != nil {
		return err
	}
	base := restBase(x.Endpoint())
	r := restJudge{e: e, x: x}
	for _, ep := range []struct{ rule, path string }{{"SONDE-HUB-REST-1", "/health"}, {"SONDE-HUB-REST-2", "/api/v1/agents"}} {
		r.endpoint(ep.rule, base+ep.path, ep.path)
	}
	switch {
	case !r.servedAny:
		skipAll(e, "neither REST endpoint was served with the run's credentials (SONDE-HUB-REST-1, -2)", "SONDE-HUB-REST-3", "SONDE-HUB-REST-4", "SONDE-HUB-REST-5")
	case !r.refused:
		e.Skip("SONDE-HUB-REST-5", "no request without a valid token was refused (SONDE-HUB-REST-4): no refusal to read a status from")
	}
	return nil
}

type restJudge struct {
	e *scenario.Env
	x httpmcp.Exchanger
	// servedAny: an endpoint was served with the token; refused: a
	// request without a valid one was refused (REST-5 judged).
	servedAny, refused bool
}

// endpoint judges one REST endpoint.
func (r *restJudge) endpoint(rule, u, path string) {
	get := func(what string, set map[string]string, drop ...string) (*httpmcp.Result, int) {
		return mcpsuite.Probe(r.e, r.x, what, httpmcp.Exchange{Method: http.MethodGet, URL: u, Set: set, Drop: append(drop, "Mcp-Session-Id")})
	}
	with, seq := get("GET "+path+" with the run's credentials", nil)
	switch {
	case mcpsuite.Served(with):
		r.e.Pass(rule, seq)
	case with != nil && (with.Status == http.StatusUnauthorized || with.Status == http.StatusForbidden):
		r.e.Skip(rule, "GET "+path+" refused the run's credentials ("+mcpsuite.Answered(with)+"): give the hub's API key with --header 'Authorization: Bearer …'")
		return
	default:
		r.e.Fail(rule, seq, "GET "+path+" with the Bearer token was not served", "2xx", mcpsuite.Answered(with))
		return
	}
	r.servedAny = true
	if mt := mediaType(with.Header); (mt == "application/json" || strings.HasSuffix(mt, "+json")) && json.Valid(with.Body) {
		r.e.Pass("SONDE-HUB-REST-3", seq)
	} else {
		r.e.Fail("SONDE-HUB-REST-3", seq, "GET "+path+" did not answer JSON", "Content-Type application/json and a JSON body", mcpsuite.Answered(with))
	}
	without, wseq := get("GET "+path+" without Authorization", nil, "Authorization")
	bad, bseq := get("GET "+path+" with Authorization: "+invalidToken, map[string]string{"Authorization": invalidToken})
	for _, p := range []struct {
		res  *httpmcp.Result
		seq  int
		what string
	}{{without, wseq, "without Authorization"}, {bad, bseq, "with a token the hub did not issue"}} {
		switch {
		case mcpsuite.Served(p.res):
			r.e.Fail("SONDE-HUB-REST-4", p.seq, "GET "+path+" "+p.what+" was served", "a refusal", mcpsuite.Answered(p.res))
		case p.res != nil && p.res.Status == http.StatusUnauthorized:
			r.refused = true
			r.e.Pass("SONDE-HUB-REST-4", p.seq)
			r.e.Pass("SONDE-HUB-REST-5", p.seq)
		default:
			r.refused = true
			r.e.Pass("SONDE-HUB-REST-4", p.seq)
			r.e.Fail("SONDE-HUB-REST-5", p.seq, "GET "+path+" "+p.what+" was refused, but not with 401", "401 Unauthorized", mcpsuite.Answered(p.res))
		}
	}
}

// restBase is where the REST API lives: the hub's URL, the MCP endpoint's
// path without its /mcp.
func restBase(ep *url.URL) string {
	u := *ep
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp")
	u.RawPath = ""
	return strings.TrimSuffix(u.String(), "/")
}
