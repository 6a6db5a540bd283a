package mcp

import (
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// logLevel calls the server's first tools without a log level (no log
// notification may come) and with level debug (some may), and gives an
// invalid level to a server declaring logging.
func logLevel(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), "MCP-LOGGING-3", "MCP-LOGGING-4")
		return nil
	}
	fails := judgeOf(e).judged("MCP-LOGGING-3").fail
	items, _, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	for _, level := range []string{"", "debug"} {
		for i, t := range items {
			tm, _ := t.(map[string]any)
			name, _ := tm["name"].(string)
			if i >= 5 || name == "" {
				break
			}
			if skipTool(e, name) {
				continue
			}
			_, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": toolArgs(e, tm, i)}, sendOpts{logLevel: level})
			if err != nil && !unjudged(err) {
				return err
			}
		}
		s.settle(e, logSettle)
	}
	if judgeOf(e).judged("MCP-LOGGING-3").fail == fails {
		e.Pass("MCP-LOGGING-3", -1)
	}
	if !s.has("logging") {
		e.Skip("MCP-LOGGING-4", "the server does not declare the logging capability")
		return nil
	}
	in, err := s.callWith(e, "tools/list", map[string]any{}, sendOpts{logLevel: "loudest"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-LOGGING-4", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-4", in.Seq, "a request whose "+metaLogLevel+" is \"loudest\" was not answered with error -32602",
			"error code -32602 (Invalid params)", string(in.Raw))
	}
	return nil
}

func logging(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	logs := judgeOf(e).counts().logs
	defer func() {
		s.settle(e, logSettle)
		if judgeOf(e).counts().logs == logs {
			e.Skip("MCP-LOGGING-1", "no log notification arrived during this scenario")
		}
	}()
	if s.modern {
		skipAll(e, "revision "+s.requested+" has no logging/setLevel (the level travels in each request's _meta)", "MCP-LOGGING-2")
		return nil
	}
	if !s.has("logging") {
		e.Skip("MCP-LOGGING-2", "the server does not declare the logging capability")
		return nil
	}
	in, err := s.call(e, "logging/setLevel", map[string]any{"level": "debug"})
	if err != nil {
		return err
	}
	if _, ok := in.Field("/result"); ok {
		e.Pass("MCP-LOGGING-2", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-2", in.Seq, "logging/setLevel debug was refused", "an empty result", string(in.Raw))
	}
	in, err = s.call(e, "logging/setLevel", map[string]any{"level": "loudest"})
	if err != nil {
		return err
	}
	if c, ok := errorCode(in); ok && c == -32602 {
		e.Pass("MCP-LOGGING-2", in.Seq)
	} else {
		e.Fail("MCP-LOGGING-2", in.Seq, "logging/setLevel with an invalid level was not answered with error -32602", "error code -32602", string(in.Raw))
	}
	if _, err := s.call(e, "logging/setLevel", map[string]any{"level": "info"}); err != nil {
		return err
	}
	return nil
}

// judgeModernLog judges a log notification of a 2026-07-28 session: it
// belongs to a request that set a log level, in flight. j.mu is held.
func (j *judge) judgeModernLog(in *peer.Inbound, v peer.Verdicts) {
	if j.attributable(in) {
		v.Pass("MCP-LOGGING-3", in.Seq)
		return
	}
	v.Fail("MCP-LOGGING-3", in.Seq, "a log notification while no request that set "+metaLogLevel+" was in flight",
		"notifications/message only for a request whose _meta carries "+metaLogLevel+", before its response", string(in.Raw))
}

// attributable reports whether a log notification came while a request
// that set a log level was in flight: sent (the judge saw it go), its
// answer not read before the notification. j.mu is held.
func (j *judge) attributable(in *peer.Inbound) bool {
	ok := false
	kept := j.leveled[:0]
	for _, c := range j.leveled {
		r := c.Answer()
		if r == nil || r.Seq > in.Seq {
			ok = true
		}
		if r == nil || r.Seq >= in.Seq {
			// Answered before this frame, it is no longer in flight for
			// any frame read after it.
			kept = append(kept, c)
		}
	}
	j.leveled = kept
	return ok
}

// logSettle is how long logging and log-level wait after their calls for
// log notifications that follow the responses.
const logSettle = 50 * time.Millisecond
