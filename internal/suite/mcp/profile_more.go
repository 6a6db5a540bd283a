package mcp

import (
	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// More of this suite for profiles' scenarios (sophon): what the
// handshake answered, notifications and bad input, the probe interface.

// Caps are the capabilities the server declared.
func (s *Session) Caps() map[string]any { return s.s.caps }

// Answered is the revision the server's initialize result named.
func (s *Session) Answered() string { return s.s.answered }

// InitSeq is the transcript line of the initialize result.
func (s *Session) InitSeq() int { return s.s.initSeq }

// Unanswered sends a notification and a barrier request, and returns a
// response to the notification if one came.
func (s *Session) Unanswered(method string, params any) *peer.Inbound {
	return unanswered(s.e, s.s, method, params)
}

// AnswerBad sends a line that is no valid request and returns its answer:
// over Streamable HTTP the answer to its own POST (a refusal without a
// JSON-RPC body is none), elsewhere the next response before a barrier's.
func (s *Session) AnswerBad(line string) *peer.Inbound {
	if httpKind(s.e) == "http" {
		res, seq := post(s.e, "POST the body "+line, []byte(line))
		if ms := messages(res, seq); len(ms) > 0 {
			return ms[0]
		}
		return nil
	}
	in, _ := answerTo(s.e, s.s, []byte(line+"\n"))
	return in
}

// Exchanger is the transport's probe interface (nil on stdio, with rules
// skipped); kind "http" or "sse" limits it to one HTTP transport.
func Exchanger(e *scenario.Env, kind string, rules ...string) (httpmcp.Exchanger, error) {
	return exchanger(e, kind, rules...)
}

// ErrorCode is the code of an error response.
func ErrorCode(in *peer.Inbound) (int64, bool) { return errorCode(in) }
