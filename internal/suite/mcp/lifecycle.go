package mcp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// discoverFirst is the initialize scenario of 2026-07-28: server/discover,
// which must list the revision asked for.
func discoverFirst(e *scenario.Env) error {
	v := e.Protocol.Version
	in, s, u, ans, err := openModern(e, v)
	if err != nil {
		return err
	}
	if s == nil && u != nil {
		// A server of this era that does not speak the revision: no
		// rule of it is broken, the version error's shape is judged.
		e.Skip("MCP-DISCOVER-1", u.reason())
		e.Skip("MCP-META-2", u.reason())
		judgeVersionError(e, in)
		return fellBack(e, u, v)
	}
	if s == nil {
		why, legacy := legacyEra(in)
		if in == nil {
			var locked bool
			why, locked = silentWhy(e)
			if locked {
				// A server that wants a token refuses every request
				// without one, server/discover too: that tells nothing
				// of the revision it speaks (MCP-AUTH-* judge the
				// refusal).
				e.Skip("MCP-DISCOVER-1", why)
			} else {
				e.Fail("MCP-DISCOVER-1", -1, why, "a DiscoverResult", "nothing")
			}
		} else {
			e.Fail("MCP-DISCOVER-1", in.Seq, "server/discover was answered with an error", "a DiscoverResult", string(in.Raw))
		}
		if !legacy {
			if sup, _ := field(in, "/error/data/supported").([]any); len(sup) > 0 {
				e.Notef("the server does not support revision %s; it supports %s (wirecheck judges the revisions %s)",
					v, show(sup), strings.Join(e.Protocol.Versions.IDs(), ", "))
			}
			return fmt.Errorf("server/discover failed")
		}
		e.Skip("MCP-META-2", "the server does not speak revision 2026-07-28")
		// A legacy server: fall back as a dual-era client does, so the
		// other scenarios judge what the server does speak.
		s, err := fallback(e, why)
		if err != nil {
			return err
		}
		e.Notef("%s", s.fallbackHint(v))
		return nil
	}
	s.judgeServerInfo(e, in)
	switch {
	case u != nil:
		// It lists what it speaks and refuses the revision it left out,
		// as the revision's version negotiation asks.
		e.Pass("MCP-DISCOVER-1", in.Seq)
		judgeVersionError(e, ans)
		return fellBack(e, u, v)
	case ans != nil:
		e.Fail("MCP-DISCOVER-1", in.Seq, "server/discover does not list the revision "+v+" the request named, yet the server serves it (a request naming "+v+" was answered without -32022)",
			"supportedVersions including "+v, string(in.Raw))
	default:
		e.Pass("MCP-DISCOVER-1", in.Seq)
	}
	keep(e, s)
	return nil
}

// fellBack resolves a revision the server does not speak in the
// initialize scenario, and says in the report what the run did.
func fellBack(e *scenario.Env, u *unspoken, v string) error {
	s, err := u.resolve(e)
	if err != nil {
		var un *errUnspoken
		if errors.As(err, &un) {
			e.Notef("%s", un.why)
		}
		return err
	}
	e.Notef("%s", s.fallbackHint(v))
	return nil
}

func initialize(e *scenario.Env) error {
	if modern(e) {
		return discoverFirst(e)
	}
	v := e.Protocol.Version
	// Wait a little before notifications/initialized: a request the
	// server sends meanwhile (other than ping) is sent too early.
	in, s, err := handshakePause(e, v, false, initializedPause)
	if err != nil {
		return err
	}
	if s == nil {
		e.Fail("MCP-LIFECYCLE-1", in.Seq, "initialize was answered with an error", "a result", string(in.Raw))
		return fmt.Errorf("initialize failed")
	}
	e.Pass("MCP-LIFECYCLE-1", in.Seq)
	switch {
	case s.answered == v:
		e.Pass("MCP-LIFECYCLE-3", in.Seq)
	case !isRevision(e, s.answered):
		// Answering another revision says it does not support v; what it
		// answers instead must be a revision it supports.
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "asked for "+v+", the server answered the protocolVersion "+show(s.answered)+", which names no MCP revision",
			"the same revision, or another MCP revision the server supports ("+strings.Join(e.Protocol.Versions.IDs(), ", ")+" or later)", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
	default:
		e.Pass("MCP-LIFECYCLE-4", in.Seq)
		e.Skip("MCP-LIFECYCLE-3", fmt.Sprintf("wirecheck asked for %s and the server answered %s: it may not support %s (run with --revision %s)", v, s.answered, v, s.answered))
	}
	bad := false
	for _, f := range s.early {
		if f.Kind != nil && f.Kind.Role == spec.RoleRequest && field(f, "/method") != "ping" {
			bad = true
			e.Fail("MCP-LIFECYCLE-6", f.Seq, "the server sent a request before it received notifications/initialized", "only ping before initialized", string(f.Raw))
		}
		// The frame judge has judged it as it came.
	}
	if !bad {
		e.Pass("MCP-LIFECYCLE-6", in.Seq)
	}
	keep(e, s)
	ping := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"}
	pin, _, err := e.Call(ping)
	if err != nil {
		e.FailUnanswered("MCP-PING-1", "ping was not answered: "+err.Error(), "an empty result")
		return err
	}
	res, ok := field(pin, "/result").(map[string]any)
	delete(res, "_meta")
	if !ok || len(res) != 0 {
		e.Fail("MCP-PING-1", pin.Seq, "ping was not answered with an empty result", `"result": {}`, string(pin.Raw))
	} else {
		e.Pass("MCP-PING-1", pin.Seq)
	}
	return nil
}

func beforeInitialize(e *scenario.Env) error {
	if modern(e) {
		// The process is opened anyway, as every other scenario opens
		// it: the liveness probe after the scenario then asks in the
		// revision the server speaks (a server that declines this one
		// owes none of its rules, see openModern).
		_, err := ensure(e)
		return err
	}
	if httpKind(e) == "http" {
		if err := earlyPost(e); err != nil {
			return err
		}
		return initAfterEarly(e)
	}
	// The client SHOULD NOT send it (basic/lifecycle#initialization), so
	// the request is off the contract and an unanswered one is judged here
	// only, at SHOULD, not by MCP-JSONRPC-5.
	c, err := e.Send(request("tools/list", map[string]any{}))
	if err != nil {
		return fmt.Errorf("%w: %v", scenario.ErrGone, err)
	}
	wait := max(e.Timeout, firstWait)
	in, err := e.Response(c, wait)
	switch {
	case errors.Is(err, peer.ErrTimeout):
		e.Forget(c)
		e.Fail("MCP-LIFECYCLE-5", c.Seq, "a request sent before initialize was not answered within "+wait.String()+
			" (the first request of a fresh process: the wait includes its start; --timeout sets it when longer)", "a result or an error", "nothing")
	case err != nil:
		return fmt.Errorf("%w: %s", scenario.ErrGone, e.Gone())
	default:
		e.Pass("MCP-LIFECYCLE-5", in.Seq)
	}
	return initAfterEarly(e)
}

// initAfterEarly: initialize still succeeds after the early request.
func initAfterEarly(e *scenario.Env) error {
	ini, s, err := handshake(e, e.Protocol.Version, true)
	if err != nil {
		return err
	}
	if s == nil {
		e.Fail("MCP-LIFECYCLE-5", ini.Seq, "initialize failed after an early request", "an initialize result", string(ini.Raw))
		return nil
	}
	e.Pass("MCP-LIFECYCLE-5", ini.Seq)
	return nil
}

func versionNegotiation(e *scenario.Env) error {
	const bogus = "1999-01-01"
	if modern(e) {
		// A legacy server (no server/discover) knows nothing of
		// per-request revisions: DISCOVER-1 says so already.
		s, err := ensure(e)
		if err != nil {
			return err
		}
		if !s.modern {
			skipAll(e, s.notModern(e), "MCP-VERSION-1", "MCP-META-1", "MCP-META-3")
			return closeAndEnd(e)
		}
		call, err := e.Send(request("tools/list", map[string]any{"_meta": meta(bogus)}))
		if err != nil {
			return fmt.Errorf("%w: %v", scenario.ErrGone, err)
		}
		in, err := e.Await(call, max(e.Timeout, firstWait))
		switch {
		case err != nil && call.Refused != "":
			// Over HTTP, refused with no JSON-RPC body (the peer has
			// judged the missing response): that refusal is the answer,
			// and it is no UnsupportedProtocolVersionError, which
			// streamable-http asks with the 400. The _meta probes go on.
			e.Fail("MCP-VERSION-1", call.Response.Seq, "a request naming the revision "+bogus+" was refused without a JSON-RPC answer, so without UnsupportedProtocolVersionError",
				"error -32022 with data.supported (over HTTP with 400 Bad Request)", call.Refused)
		case err != nil:
			return err
		default:
			c, isErr := errorCode(in)
			sup, _ := field(in, "/error/data/supported").([]any)
			if isErr && c == -32022 && len(sup) > 0 {
				e.Pass("MCP-VERSION-1", in.Seq)
			} else {
				e.Fail("MCP-VERSION-1", in.Seq, "a request naming the revision "+bogus+" was not answered with UnsupportedProtocolVersionError",
					"error -32022 with data.supported", string(in.Raw))
			}
		}
		if err := metaRequired(e, s); err != nil {
			return err
		}
		return closeAndEnd(e)
	}
	in, s, err := handshake(e, bogus, false)
	if err != nil {
		return err
	}
	switch {
	case s == nil:
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "initialize with an unsupported revision was answered with an error", "a result naming a revision the server supports", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
		return closeAndEnd(e)
	case s.answered == s.requested || s.answered == "":
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "the server answered the unsupported revision "+show(s.answered), "another revision, one the server supports", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no other revision")
		return closeAndEnd(e)
	case !isRevision(e, s.answered):
		e.Fail("MCP-LIFECYCLE-4", in.Seq, "asked for the unsupported revision "+bogus+", the server answered the protocolVersion "+show(s.answered)+", which names no MCP revision",
			"another MCP revision the server supports ("+strings.Join(e.Protocol.Versions.IDs(), ", ")+" or later)", string(in.Raw))
		e.Skip("MCP-LIFECYCLE-3", "the server named no revision it supports")
		return closeAndEnd(e)
	}
	e.Pass("MCP-LIFECYCLE-4", in.Seq)
	other := s.answered
	if err := e.Restart(); err != nil {
		return err
	}
	in, s, err = handshake(e, other, false)
	if err != nil {
		return err
	}
	switch {
	case s == nil:
		e.Fail("MCP-LIFECYCLE-3", in.Seq, "the server answered "+other+" to an unsupported revision, then refused "+other, "a result echoing "+other, string(in.Raw))
	case s.answered != other:
		e.Fail("MCP-LIFECYCLE-3", in.Seq, "the server answered "+other+" to an unsupported revision (so it supports it), but asked for "+other+" it answered "+show(s.answered),
			"protocolVersion "+other, string(in.Raw))
	default:
		e.Pass("MCP-LIFECYCLE-3", in.Seq)
	}
	return closeAndEnd(e)
}

// earlyPost: a request before initialize is answered, and over HTTP a 4xx
// refusal (e.g. 400 "no session id") is an answer: "a result or an error"
// (MCP-LIFECYCLE-5).
func earlyPost(e *scenario.Env) error {
	start := time.Now()
	res, seq := post(e, "POST tools/list before initialize", rawJSON(request("tools/list", map[string]any{})), "Mcp-Session-Id")
	const want = "a result or an error (over HTTP a 4xx refusal is one)"
	switch {
	case res == nil && time.Since(start) < probeWait(e):
		// The exchange failed before its bound (the connection refused or
		// cut): say how long it took, not the bound it did not last.
		e.Fail("MCP-LIFECYCLE-5", seq, fmt.Sprintf("a request sent before initialize got no answer: its exchange ended without one after %s (transcript line %d says how)", time.Since(start).Round(time.Millisecond), seq), want, "nothing")
	case res == nil:
		e.Fail("MCP-LIFECYCLE-5", seq, "a request sent before initialize got no answer within "+probeWait(e).String(), want, "nothing")
	case refused(res):
		e.Pass("MCP-LIFECYCLE-5", seq)
	case len(messages(res, seq)) > 0:
		e.Pass("MCP-LIFECYCLE-5", seq)
	default:
		e.Fail("MCP-LIFECYCLE-5", seq, "a request sent before initialize was answered neither by JSON-RPC nor by a 4xx refusal", want, answered(res))
	}
	return nil
}

// initializedPause is how long initialize waits between the initialize
// result and notifications/initialized for a request sent too early.
const initializedPause = 100 * time.Millisecond
