package mcp

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// maxRetries bounds the retries of one request answered input_required.
const maxRetries = 3

const (
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
)

// legacyEra tells from the answer to server/discover (nil: none in time)
// whether the server is legacy (stdio backward compatibility: any error
// but a recognized modern one, or no answer), and says why.
func legacyEra(in *peer.Inbound) (string, bool) {
	if in == nil {
		return "server/discover was not answered in time", true
	}
	if c, ok := errorCode(in); ok && c <= -32020 && c >= -32099 {
		// A code the 2026-07-28 specification reserves: a modern server
		// that does not support the revision asked for.
		return "", false
	}
	return "server/discover was answered with the error " + show(field(in, "/error")), true
}

// fallback runs the initialize handshake with the newest legacy revision
// in this process, as a dual-era client does with a legacy server, and
// makes the peer judge the rest of the process by the revision the server
// negotiated.
func fallback(e *scenario.Env, why string) (*session, error) {
	return fallbackTo(e, why, legacyLatest(e))
}

// fallbackTo is fallback asking initialize for the revision v.
func fallbackTo(e *scenario.Env, why, v string) (*session, error) {
	if p, err := e.Protocol.ForVersion(v); err == nil {
		e.SetProtocol(p)
	}
	in, s, err := handshake(e, v, false)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%s, and initialize (the fallback) was answered with an error: %s", why, show(field(in, "/error")))
	}
	if s.version != v {
		if p, err := e.Protocol.ForVersion(s.version); err == nil {
			e.SetProtocol(p)
		}
	}
	s.fallback = why
	keep(e, s)
	return s, nil
}

// fallbackHint says what a fallback session means for the run.
func (s *session) fallbackHint(asked string) string {
	return fmt.Sprintf("the server does not implement revision %s (%s); wirecheck fell back to initialize, which negotiated %s, and judged the rest of that process by %s: rerun with --revision %s",
		asked, s.fallback, s.version, s.version, s.version)
}

// notModern is why a 2026-07-28 check does not apply to this session.
func (s *session) notModern(e *scenario.Env) string {
	if s.fallback != "" {
		return s.fallbackHint(e.Protocol.Version)
	}
	return "this belongs to revision " + modernVersion(e) + "; this run uses " + e.Protocol.Version
}
