package mcp

import (
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// The session plumbing of the MCP scenarios, for the Go scenarios of
// profiles (specs with base: mcp): their rules ride on the same handshake,
// the same judging of every frame, and the same probes.

// Session is the MCP session of the current server process.
type Session struct{ s *session }

// Ensure returns the session of the current server process, running the
// handshake of the run's revision first when the process has none.
func Ensure(e *scenario.Env) (*Session, error) {
	s, err := ensure(e)
	if err != nil {
		return nil, err
	}
	return &Session{s}, nil
}

// Call sends a request and waits for its answer; the notifications that
// arrived meanwhile are judged by the MCP rules as in every scenario.
func (s *Session) Call(e *scenario.Env, method string, params map[string]any) (*peer.Inbound, error) {
	return s.s.call(e, method, params)
}

// Caps are the capabilities the server declared.
func (s *Session) Caps() map[string]any { return s.s.caps }

// InitSeq is the transcript line of the initialize result.
func (s *Session) InitSeq() int { return s.s.initSeq }

// Answered is the revision the server's initialize result named.
func (s *Session) Answered() string { return s.s.answered }

// Unanswered sends a notification and a barrier request, and returns a
// response to the notification if one came.
func (s *Session) Unanswered(e *scenario.Env, method string, params any) *peer.Inbound {
	return unanswered(e, s.s, method, params)
}

// AnswerBad sends a line that is no valid request and returns its answer:
// over Streamable HTTP the answer to its own POST (a refusal without a
// JSON-RPC body is none), elsewhere the next response before a barrier's.
func (s *Session) AnswerBad(e *scenario.Env, line string) *peer.Inbound {
	if httpKind(e) == "http" {
		res, seq := post(e, "POST the body "+line, []byte(line))
		if ms := messages(res, seq); len(ms) > 0 {
			return ms[0]
		}
		return nil
	}
	return answerTo(e, s.s, []byte(line+"\n"))
}

// Exchanger is the transport's probe interface (nil on stdio, with rules
// skipped); kind "http" or "sse" limits it to one HTTP transport.
func Exchanger(e *scenario.Env, kind string, rules ...string) (transport.Exchanger, error) {
	return exchanger(e, kind, rules...)
}

// Exchange sends one probe, noted in the transcript; the note's line is
// the evidence of a verdict.
func Exchange(e *scenario.Env, x transport.Exchanger, what string, ex transport.Exchange) (*transport.Result, int) {
	return exchange(e, x, what, ex)
}

// Messages are the JSON-RPC messages a probe's answer carried.
func Messages(res *transport.Result, seq int) []*peer.Inbound { return messages(res, seq) }

// Request is a JSON-RPC request with a fresh id.
func Request(method string, params any) map[string]any { return request(method, params) }

// InitRequest is the initialize request of a revision.
func InitRequest(version string) map[string]any { return initRequest(version) }

// ErrorCode is the code of an error response.
func ErrorCode(in *peer.Inbound) (int64, bool) { return errorCode(in) }

// Answered says in a few words what a probe got.
func Answered(res *transport.Result) string { return answered(res) }
