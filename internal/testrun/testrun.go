// Package testrun runs a protocol's suite through runner.Run against a
// server process, for tests: a reference server (`wirecheck serve`, built
// once by testbin) with faults and variants, or any other command. It is
// the one place tests tell the runner how to reach a server, so a change
// to that (runner.Config's launch) touches this file only.
package testrun

import (
	"context"
	"slices"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// ErrNotStarted is the runner's error for a server that never started,
// named here so tests need not know which package defines it.
var ErrNotStarted = session.ErrNotStarted

// Server is the server a test runs a suite against.
type Server struct {
	// Protocol names the protocol whose bundle fills what the runner's
	// Config leaves empty (spec, schemas, scenarios, handler).
	Protocol string
	// Faults and Variants switch on the reference server's planted faults
	// and legal variants.
	Faults, Variants []string
	// Revision of a versioned protocol to run under; "" runs the default.
	Revision string
	// Transport is, for a client role, the transport wirecheck serves the
	// reference client on ("" = stdio); a fault or variant of one
	// transport (spec `transport:`) runs over it.
	Transport string
	// Command, when its Argv or URL is set, is the server instead of the
	// reference server (Faults and Variants then do not apply).
	Command target.Target
}

// Target is how the runner reaches the server: the reference server of
// the protocol with its faults and variants, unless a command or URL is
// given.
func (s Server) Target() (target.Target, error) {
	if len(s.Command.Argv) > 0 || s.Command.URL != "" {
		return s.Command, nil
	}
	bin, err := testbin.Wirecheck()
	if err != nil {
		return target.Target{}, err
	}
	proto, role := protocols.RoleOf(s.Protocol)
	argv := []string{bin, "serve", proto}
	if role == protocols.RoleClient {
		argv = append(argv, "--role", role)
	}
	for _, v := range s.Variants {
		argv = append(argv, "--variant", v)
	}
	for _, f := range s.Faults {
		argv = append(argv, "--fault", f)
	}
	if role == protocols.RoleClient {
		// The reference client, its server wirecheck as the run plays it.
		t := target.Target{Transport: s.Transport, Client: true, Binary: bin}
		t.Argv = append(argv, "--", t.Placeholder())
		if t.OverHTTP() {
			// The credentials the run provisions, where the reference
			// client reads them: the pre-registered client's and the
			// issuer it belongs to (its variants preregistered*), and
			// what MCP's authorization extensions presume.
			t.Env = []string{"MCP_CLIENT_ID={client_id}", "MCP_CLIENT_SECRET={client_secret}", "MCP_CLIENT_ISSUER={issuer}", "MCP_CLIENT_KEY={client_key}",
				"MCP_WORKLOAD_JWT={assertion}", "MCP_ID_TOKEN={id_token}", "MCP_IDP_TOKEN_ENDPOINT={idp_token_endpoint}", "MCP_IDP_CLIENT_ID={idp_client_id}"}
		}
		return t, nil
	}
	// A protocol spoken over HTTP alone whose reference server is not
	// MCP's (a profile's also speaks stdio) is launched on a port the
	// target picks, as a user would: the authorization server has no
	// stdio to speak.
	b, err := protocols.Load(s.Protocol)
	if err != nil {
		return target.Target{}, err
	}
	if tr := b.Protocol.Transports; b.Protocol.Base == "" && len(tr) > 0 && !slices.Contains(tr, transport.Stdio) {
		return target.Target{Argv: append(argv, "--"+tr[0], "127.0.0.1:"+target.Port), Transport: tr[0]}, nil
	}
	return target.Target{Argv: argv}, nil
}

// Run runs the suite against the server with cfg's settings. What cfg
// leaves empty comes from the protocol's bundle: the spec, schemas and
// handler, and every scenario when cfg names none.
func Run(s Server, cfg runner.Config) (*report.Report, error) {
	b, err := protocols.Load(s.Protocol)
	if err != nil {
		return nil, err
	}
	t, err := s.Target()
	if err != nil {
		return nil, err
	}
	if t.Paths == nil {
		t.Paths = b.Protocol.Endpoints
	}
	if cfg.Protocol == nil {
		cfg.Protocol = b.Protocol
	}
	if cfg.Schemas == nil {
		cfg.Schemas = b.Schemas
	}
	if cfg.Handler == nil {
		cfg.Handler = b.Handler
	}
	if cfg.Judge == nil {
		cfg.Judge = b.Judge
	}
	if cfg.Scenarios == nil {
		cfg.Scenarios = b.Scenarios
	}
	if s.Revision != "" && b.Protocol.Versions != nil {
		params := map[string]string{b.Protocol.Versions.Param: s.Revision}
		for k, v := range cfg.Params {
			params[k] = v
		}
		cfg.Params = params
	}
	cfg.Target = t
	return runner.Run(context.Background(), cfg)
}

// Verdicts maps each rule to its verdict in the report's table
// (report.ByRule), for tests that judge a run rule by rule.
func Verdicts(rep *report.Report) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for _, g := range rep.ByRule() {
		out[g.Rule.ID] = g.Verdict
	}
	return out
}
