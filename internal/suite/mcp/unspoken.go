package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// What a server of the 2026-07-28 era does that does not speak the revision
// a run asks for (basic/versioning#protocol-version-negotiation): "If the
// server does not implement the requested version (whether the version is
// unknown to the server, or is a known version the server has chosen not
// to support), it **MUST** respond with an UnsupportedProtocolVersionError
// listing the versions it does support", and server/discover answers "its
// supported protocol versions". The server then breaks no rule of the
// revision it does not speak: as on stdio against a legacy server, the run
// falls back to a revision it speaks (initialize with the newest one it
// lists that wirecheck judges) or, when there is none, its scenarios skip
// their rules with the reason.

// unspoken is how the server said it does not speak the revision asked.
type unspoken struct {
	// asked is the revision asked for; why how the server refused it.
	asked, why string
	// supported are the revisions the server named.
	supported []string
}

// errUnspoken ends a scenario of a process whose server speaks no revision
// wirecheck can judge it by: the scenario's rules are skipped with why
// (see skipUnspoken), none is an error of the harness.
type errUnspoken struct{ why string }

func (e *errUnspoken) Error() string { return e.why }

// strs are the strings of a JSON array.
func strs(x any) []string {
	a, _ := x.([]any)
	var out []string
	for _, v := range a {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// refusedVersion is the unspoken revision an answer tells of: an
// UnsupportedProtocolVersionError (-32022) naming the revisions the server
// supports; nil for any other answer.
func refusedVersion(in *peer.Inbound, asked, what string) *unspoken {
	if c, ok := errorCode(in); !ok || c != -32022 {
		return nil
	}
	sup := strs(field(in, "/error/data/supported"))
	return &unspoken{asked: asked, why: fmt.Sprintf("%s naming it was answered -32022, supported %s", what, names(sup)), supported: sup}
}

func names(vs []string) string {
	if len(vs) == 0 {
		return "(none named)"
	}
	return strings.Join(vs, ", ")
}

// declines tells whether a server whose server/discover result (in) leaves
// the revision asked out of its supportedVersions does not speak it: a
// request in that revision is answered -32022. It returns nil when the
// list holds the revision, or when the server serves the request all the
// same (then its list is wrong: MCP-DISCOVER-1), with that answer.
func declines(e *scenario.Env, s *session, in *peer.Inbound) (*unspoken, *peer.Inbound, error) {
	listed := strs(field(in, "/result/supportedVersions"))
	if slices.Contains(listed, s.requested) {
		return nil, nil, nil
	}
	method := "tools/list"
	for _, c := range []string{"tools", "prompts", "resources"} {
		if _, ok := s.caps[c]; ok {
			method = c + "/list"
			break
		}
	}
	c, err := e.Send(request(method, map[string]any{"_meta": meta(s.requested)}))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	ans, err := e.Await(c, 0)
	if err != nil {
		return nil, nil, err
	}
	u := refusedVersion(ans, s.requested, method)
	if u == nil {
		return nil, ans, nil
	}
	u.why = fmt.Sprintf("server/discover lists %s, and %s naming %s was answered -32022", names(listed), method, s.requested)
	for _, v := range listed {
		if !slices.Contains(u.supported, v) {
			u.supported = append(u.supported, v)
		}
	}
	return u, ans, nil
}

// resolve falls back, in this process, to the newest revision the server
// named that wirecheck judges with the initialize handshake, as against a
// legacy server; with none such, the process speaks nothing wirecheck can
// judge and every scenario on it skips its rules (errUnspoken).
func (u *unspoken) resolve(e *scenario.Env) (*session, error) {
	pick := ""
	// The newest: the spec lists its revisions oldest first.
	for _, v := range e.Protocol.Versions.With(revtable.Handshake) {
		if slices.Contains(u.supported, v) {
			pick = v
		}
	}
	if pick == "" {
		why := u.reason() + "; none of those is a revision wirecheck judges with initialize: rerun with --revision naming one the server speaks"
		p := proc(e)
		p.mu.Lock()
		p.unspoken = why
		p.mu.Unlock()
		return nil, &errUnspoken{why}
	}
	return fallbackTo(e, u.why, pick)
}

// reason says that the server does not speak the revision, and how it
// said so.
func (u *unspoken) reason() string {
	return fmt.Sprintf("the server does not speak revision %s (%s)", u.asked, u.why)
}

// unspokenOf is why the current process speaks nothing wirecheck judges
// ("" when it does, or nobody asked yet).
func unspokenOf(e *scenario.Env) string {
	p := proc(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unspoken
}

// judgeVersionError is MCP-VERSION-1 on a -32022 the server gave: the
// rule of the error's own shape holds whatever revision it speaks.
func judgeVersionError(e *scenario.Env, in *peer.Inbound) {
	if in == nil {
		return
	}
	if len(strs(field(in, "/error/data/supported"))) > 0 {
		e.Pass("MCP-VERSION-1", in.Seq)
		return
	}
	e.Fail("MCP-VERSION-1", in.Seq, "the UnsupportedProtocolVersionError lists no supported revision", "error -32022 with data.supported", string(in.Raw))
}

// openModern opens a 2026-07-28 process: server/discover and, when its
// list leaves the revision out, a request in it (declines). The checks'
// observations of those exchanges (a transport's: headers, streams) are
// held until the answers tell whether the server speaks the revision: one
// that does not owes none of the rules of that revision alone, and those
// are dropped; the others are judged as ever.
func openModern(e *scenario.Env, v string) (in *peer.Inbound, s *session, u *unspoken, ans *peer.Inbound, err error) {
	e.HoldChecks()
	defer func() {
		var keep func(verdict.Observation) bool
		if u != nil {
			keep = u.owed(e)
		}
		e.ReleaseChecks(keep)
	}()
	in, s, err = discover(e, v, false)
	if err != nil {
		return in, s, nil, nil, err
	}
	if s == nil {
		return in, nil, refusedVersion(in, v, "server/discover"), nil, nil
	}
	u, ans, err = declines(e, s, in)
	return in, s, u, ans, err
}

// owed reports whether an observation is of a rule the server owes: one
// of every revision, or of a revision it says it speaks.
func (u *unspoken) owed(e *scenario.Env) func(verdict.Observation) bool {
	return func(o verdict.Observation) bool {
		r := e.Protocol.Rule(o.Rule)
		if r == nil || len(r.Versions) == 0 {
			return true
		}
		for _, v := range u.supported {
			if r.AppliesTo(v) {
				return true
			}
		}
		return false
	}
}

// skipUnspoken makes a scenario that ended on errUnspoken skip its rules
// with the reason instead of leaving them to the harness's "stopped
// early" error.
func skipUnspoken(s *scenario.Scenario) {
	run := s.Run
	if run == nil {
		return
	}
	s.Run = func(e *scenario.Env) error {
		err := run(e)
		var u *errUnspoken
		if !errors.As(err, &u) {
			return err
		}
		skipAll(e, u.why, s.Rules...)
		return nil
	}
}
