package fuzz

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// tool is one tool the server listed, with its compiled input schema.
type tool struct {
	name   string
	schema *jsonschema.Schema
}

// sequence is one run of the property: a fresh server, a drawn list of
// actions, and what the peer observed.
type sequence struct {
	c     *Campaign
	t     *rapid.T
	p     *peer.Peer
	env   *scenario.Env
	rec   *transcript.Recorder
	steps []scenario.Step
	ids   int
	tools []tool
	shape string
	sent  int

	// failure is the first failure at or above the level; the peer's
	// reader goroutine sets it, so it is read through failed().
	mu      sync.Mutex
	failure *verdict.Observation
	closed  bool
	last    map[string]any // values carried from response to request
}

// errStop ends a sequence early (the server is gone, or a failure was seen).
var errStop = errors.New("sequence stopped")

// run is the rapid property.
func (c *Campaign) run(t *rapid.T) {
	// A server that cannot be started fails every sequence the same way:
	// one start failure ends the campaign, not one per sequence. An
	// interrupt or a spent budget ends the batch at once: a refused
	// sequence would only pass, and rapid would go on trying smaller
	// candidates of a large recording, each refused, for as long as its
	// own clock allows. Goexit ends the goroutine rapid runs in (see Run),
	// as testing.T.FailNow does; the smallest failure so far is kept.
	if c.ctx.Err() != nil || c.startFailure() != nil || c.spent() {
		runtime.Goexit()
	}
	c.countSequence()
	s := &sequence{c: c, t: t, rec: transcript.NewRecorder(), last: map[string]any{}}
	defer s.finish()
	if err := s.start(); err != nil {
		s.fatal()
		return
	}
	n := rapid.IntRange(1, c.cfg.MaxActions).Draw(t, "actions")
	for i := 0; i < n && !s.closed; i++ {
		if err := s.act(); err != nil {
			break
		}
		if s.failed() != nil || c.ctx.Err() != nil {
			break
		}
	}
	if s.failed() == nil && !s.closed && c.ctx.Err() == nil {
		s.setShape("end of sequence")
		s.probe()
	}
	s.fatal()
}

// fatal fails the rapid test when the sequence saw a failure, which makes
// rapid shrink it. An interrupted campaign fails nothing.
func (s *sequence) fatal() {
	f := s.failed()
	if f == nil || s.c.ctx.Err() != nil || s.c.known(f) {
		return
	}
	s.c.recordFailure(s)
	s.t.Fatalf("%s: %s", f.Rule, f.Message)
}

func (s *sequence) finish() {
	s.c.messages.Add(int64(s.sent))
	if s.c.cfg.Trace != nil {
		s.c.cfg.Trace(s.steps)
	}
	if s.p != nil {
		s.p.Close()
	}
}

func (s *sequence) observe(o verdict.Observation) {
	s.c.tally(o)
	if o.Verdict != verdict.Fail || !s.c.counts(o.Rule) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure == nil {
		s.failure = &o
	}
}

// failed returns the sequence's first failure, or nil.
func (s *sequence) failed() *verdict.Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

func (s *sequence) start() error {
	tr, err := s.c.cfg.Launch()
	if err != nil {
		return s.c.startError(err, false, s.rec)
	}
	s.p = peer.New(peer.Options{
		Protocol: s.c.cfg.Protocol, Schemas: s.c.cfg.Schemas, Transport: tr,
		Recorder: s.rec, Observe: s.observe, Handler: s.c.cfg.Handler,
	})
	s.c.live.Store(s.p)
	s.env = &scenario.Env{Peer: s.p, Protocol: s.c.cfg.Protocol, Timeout: s.c.cfg.Timeout, Observe: s.observe}
	if st := s.c.cfg.Protocol.Startup; st != nil {
		s.setShape("startup")
		if _, err := s.p.AwaitKind(st.Kind, s.c.cfg.StartupTimeout); err != nil {
			why := "no ready line within " + s.c.cfg.StartupTimeout.String()
			if errors.Is(err, peer.ErrExited) {
				why = s.env.Gone()
			}
			return s.c.startError(errors.New(why), true, s.rec)
		}
	}
	f := s.c.cfg.Protocol.Fuzz
	if f == nil {
		return nil
	}
	for _, step := range f.Setup {
		s.setShape("setup")
		if n, ok := spec.SetupNotification(step); ok {
			if err := s.notify(fill(n, "", nil, s.last)); err != nil {
				return err
			}
			continue
		}
		if _, err := s.call(fill(step, "", nil, s.last)); err != nil {
			return err
		}
	}
	if f.Tools != nil {
		s.setShape("discover tools")
		var cursor any
		for page := 0; page < maxPages; page++ {
			req := fill(f.Tools.List, "", nil, s.last)
			if page > 0 {
				setPointer(req, f.Tools.Next.To, cursor)
			}
			in, err := s.call(req)
			if err != nil {
				return err
			}
			if in == nil {
				break
			}
			s.tools = append(s.tools, s.c.toolsFrom(in)...)
			if f.Tools.Next == nil {
				break
			}
			if cursor, _ = in.Field(f.Tools.Next.From); cursor == nil {
				break
			}
		}
	}
	return nil
}

// maxPages bounds the pages of a tool list read at the start of a
// sequence (a server whose cursor never ends costs that many requests).
const maxPages = 10

// setPointer sets the value at a JSON pointer in a request, making the
// objects on the way; a pointer through something else sets nothing.
func setPointer(v any, ptr string, val any) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	m, ok := v.(map[string]any)
	for i, tok := range toks {
		if !ok {
			return
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if i == len(toks)-1 {
			m[tok] = val
			return
		}
		next, has := m[tok].(map[string]any)
		if !has {
			if _, taken := m[tok]; taken {
				return
			}
			next = map[string]any{}
			m[tok] = next
		}
		m, ok = next, true
	}
}

// act draws one action and performs it.
func (s *sequence) act() error {
	actions := []string{"request", "invalid", "bytes", "split", "pipeline", "close"}
	if len(s.tools) > 0 {
		actions = append(actions, "call", "call", "call-invalid")
	}
	if s.c.request == nil {
		actions = []string{"bytes", "close"}
	}
	switch a := rapid.SampledFrom(actions).Draw(s.t, "action"); a {
	case "request":
		v := s.c.validRequest.Draw(s.t, "request")
		s.setShape(requestLabel(v))
		_, err := s.call(v)
		return err
	case "call":
		tl := rapid.SampledFrom(s.tools).Draw(s.t, "tool")
		args := gen.Valid(tl.schema).Draw(s.t, "args")
		s.setShape(s.callLabel(tl.name))
		_, err := s.call(fill(s.c.cfg.Protocol.Fuzz.Tools.Call, tl.name, args, s.last))
		return err
	case "call-invalid":
		tl := rapid.SampledFrom(s.tools).Draw(s.t, "tool")
		m := gen.Invalid(tl.schema).Draw(s.t, "mutation")
		s.setShape(s.callLabel(tl.name) + " with invalid arguments")
		if _, err := s.call(fill(s.c.cfg.Protocol.Fuzz.Tools.Call, tl.name, m.Value, s.last)); err != nil {
			return err
		}
		return s.probe()
	case "invalid":
		m := s.c.invalidRequest.Draw(s.t, "mutation")
		s.setShape(invalidLabel(m.Value, firstWords(m.What)))
		if err := s.sendInvalid(m.Value); err != nil {
			return err
		}
		return s.probe()
	case "bytes":
		mal := rapid.SampledFrom(malformations).Draw(s.t, "malformation")
		base := s.c.validRequest.Draw(s.t, "base")
		if m, ok := base.(map[string]any); ok {
			// Without an id, any answer can only carry a null id, which the
			// peer expects after raw input.
			delete(m, idField(s.c))
		}
		b, _ := json.Marshal(base)
		s.setShape("malformed bytes: " + mal.label)
		if err := s.raw(mal.make(s.t, b)); err != nil {
			return err
		}
		return s.probe()
	case "split":
		v := s.c.validRequest.Draw(s.t, "request")
		s.setShape(requestLabel(v) + " split over two writes")
		s.setID(v)
		s.c.withParams(v)
		b, _ := json.Marshal(v)
		at := rapid.IntRange(1, max(1, len(b))).Draw(s.t, "split at")
		c, err := s.p.RequestSplit(b, at, 5*time.Millisecond)
		s.sent++
		name := s.name()
		s.steps = append(s.steps, scenario.Step{Send: v, As: name, Split: at}, scenario.Step{Expect: name})
		if err != nil {
			return s.gone(err)
		}
		return s.await(c)
	case "pipeline":
		k := rapid.IntRange(2, 5).Draw(s.t, "pipelined")
		s.setShape(fmt.Sprintf("%d pipelined requests", k))
		var calls []*peer.Call
		var names []string
		for i := 0; i < k; i++ {
			v := s.c.validRequest.Draw(s.t, "request")
			c, name, err := s.send(v)
			if err != nil {
				return err
			}
			calls, names = append(calls, c), append(names, name)
		}
		for i, c := range calls {
			s.steps = append(s.steps, scenario.Step{Expect: names[i]})
			if err := s.await(c); err != nil {
				return err
			}
		}
	case "close":
		s.setShape("stdin closed")
		return s.closeInput()
	}
	return nil
}

// setShape labels what the sequence does now; the peer tags its
// observations with it, so a failure is grouped by the action that caused
// it, even when it shows only later (a duplicate answer).
func (s *sequence) setShape(shape string) {
	s.shape = shape
	if s.p != nil {
		s.p.Tag(shape)
	}
}

func (s *sequence) name() string { return fmt.Sprintf("r%d", s.ids) }

// setID gives a generated request an id of this sequence, so ids repeat
// from run to run and a saved reproducer reads the same every time.
func (s *sequence) setID(v any) {
	m, ok := v.(map[string]any)
	if !ok || s.c.cfg.Protocol.Correlation.ID == "" {
		return
	}
	s.ids++
	m[idField(s.c)] = fmt.Sprintf("f%d", s.ids)
}

func (s *sequence) send(v any) (*peer.Call, string, error) {
	s.setID(v)
	s.c.withParams(v)
	name := s.name()
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	s.sent++
	s.steps = append(s.steps, scenario.Step{Send: v, As: name})
	c, err := s.p.Request(b)
	if err != nil {
		return nil, "", s.gone(err)
	}
	return c, name, nil
}

func (s *sequence) call(v any) (*peer.Inbound, error) {
	c, name, err := s.send(v)
	if err != nil {
		return nil, err
	}
	s.steps = append(s.steps, scenario.Step{Expect: name})
	if c == nil {
		return nil, nil
	}
	in, err := s.env.Await(c, s.firstWait())
	if err != nil {
		s.noteGone()
		return nil, errStop
	}
	for _, ptr := range s.c.lastPtrs {
		if v, ok := in.Field(ptr); ok {
			s.last[ptr] = v
		}
	}
	return in, nil
}

// firstWait is the wait for an answer: --timeout, but --startup-timeout
// while the server has said nothing yet. Without a ready line the first
// answer also waits for the process to start, which on a loaded machine
// is not the server's own step.
func (s *sequence) firstWait() time.Duration {
	select {
	case <-s.p.Heard():
		return 0
	default:
		return s.c.cfg.StartupTimeout
	}
}

// notify sends a notification: no id is added and no answer is awaited
// or allowed (an answer would be a stray). The reproducer writes it as a
// line that is not answered.
func (s *sequence) notify(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.sent++
	line := string(b)
	s.steps = append(s.steps, scenario.Step{SendLine: &line, Answered: new(bool)})
	if err := s.p.SendRaw(append(b, '\n'), false); err != nil {
		return s.gone(err)
	}
	return nil
}

func (s *sequence) await(c *peer.Call) error {
	if c == nil {
		return nil
	}
	if _, err := s.env.Await(c, s.firstWait()); err != nil {
		s.noteGone()
		return errStop
	}
	return nil
}

// sendInvalid sends a schema-invalid request: tracked when its id is still
// one the server can echo, as raw input (answerable with a null id) when not.
func (s *sequence) sendInvalid(v any) error {
	if m, ok := v.(map[string]any); ok {
		switch m[idField(s.c)].(type) {
		case string, json.Number, float64:
			s.ids++
			m[idField(s.c)] = fmt.Sprintf("f%d", s.ids)
			_, err := s.call(v)
			return err
		}
	}
	s.c.withParams(v)
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.raw(append(b, '\n'))
}

func (s *sequence) raw(b []byte) error {
	s.sent++
	if utf8.Valid(b) {
		str := string(b)
		s.steps = append(s.steps, scenario.Step{SendRaw: &str})
	} else {
		enc := base64.StdEncoding.EncodeToString(b)
		s.steps = append(s.steps, scenario.Step{SendBase64: &enc})
	}
	if err := s.p.SendRaw(b, true); err != nil {
		return s.gone(err)
	}
	return nil
}

// probe asks whether the server still answers a known-good request.
func (s *sequence) probe() error {
	rules := s.c.cfg.Protocol.RulesForCheck(verdict.CheckSurvives)
	step := scenario.Step{ExpectAlive: true}
	if len(rules) > 0 {
		step.Rule = rules[0].ID
	}
	s.steps = append(s.steps, step)
	s.sent++
	if _, err := s.env.Probe(); err != nil {
		s.p.Check(verdict.CheckSurvives, verdict.Fail, -1,
			"after "+s.shape+", the server did not answer a known-good request: "+err.Error(),
			"an answer to the probe request", s.env.Gone())
		return errStop
	}
	s.p.Check(verdict.CheckSurvives, verdict.Pass, -1, "", "", "")
	return nil
}

func (s *sequence) closeInput() error {
	s.closed = true
	rules := s.c.cfg.Protocol.RulesForCheck(verdict.CheckExitOnEOF)
	step := scenario.Step{ExpectExit: &scenario.Exit{Within: scenario.Duration(s.c.cfg.Timeout), Code: new(int)}}
	if len(rules) > 0 {
		step.Rule = rules[0].ID
	}
	s.steps = append(s.steps, scenario.Step{CloseStdin: true}, step)
	tr := s.p.Transport()
	if err := tr.CloseInput(); err != nil {
		return errStop
	}
	select {
	case <-tr.Exited():
		if es := tr.ExitStatus(); es.Signal != "" || es.Code != 0 {
			s.p.Check(verdict.CheckExitOnEOF, verdict.Fail, -1, "the server ended with "+es.String()+" when stdin closed", "exit 0", es.String())
		} else {
			s.p.Check(verdict.CheckExitOnEOF, verdict.Pass, -1, "", "", "")
		}
	case <-time.After(s.c.cfg.Timeout):
		s.p.Check(verdict.CheckExitOnEOF, verdict.Fail, -1, "the server was still running "+s.c.cfg.Timeout.String()+" after stdin closed", "the process exits", "still running")
	}
	return nil
}

// gone turns a write error into the end of the sequence; a server that
// died mid-sequence is judged by the liveness check.
func (s *sequence) gone(err error) error {
	s.noteGone()
	return errStop
}

// noteGone records a death nobody asked for as a liveness failure.
func (s *sequence) noteGone() {
	if s.failed() != nil {
		return
	}
	select {
	case <-s.p.Transport().Exited():
		s.p.Check(verdict.CheckSurvives, verdict.Fail, -1, "after "+s.shape+", the server exited: "+s.env.Gone(),
			"the server keeps running", s.p.Transport().ExitStatus().String())
	default:
	}
}

// requestLabel names a request the way the protocol's document would: by
// its method, or by what makes it no request of any method. Labels group
// failures and title reproducers, so they never show a Go type.
func requestLabel(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return jsonType(v) + " sent as a request"
	}
	method, has := m["method"]
	if !has {
		return "request without a method"
	}
	if name, ok := method.(string); ok {
		if name == "" {
			return "request with an empty method"
		}
		return "request " + name
	}
	return "request whose method is " + jsonType(method)
}

// invalidLabel names a schema-invalid request by what makes it invalid.
// The method is left out on purpose: one defect (say, a crash on a wrong
// type) would otherwise be found, shrunk and saved once per method.
func invalidLabel(_ any, what string) string {
	return "invalid request: " + what
}

// callLabel names a call of a listed tool by the protocol's call method.
func (s *sequence) callLabel(tool string) string {
	method := "call"
	if name, ok := s.c.cfg.Protocol.Fuzz.Tools.Call["method"].(string); ok && name != "" {
		method = name
	}
	return fmt.Sprintf("%s of tool %q", method, tool)
}

// jsonType names the JSON type of a decoded value, with its article.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, uint64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}

func firstWords(s string) string {
	if i := strings.Index(s, " at "); i > 0 {
		return s[:i]
	}
	return s
}

// withParams sets the fuzz model's params (what the revision asks of every
// request, e.g. MCP 2026-07-28's _meta) in a request's params object, added
// when absent. A request whose params is not an object is left as it is:
// that is the invalid input it was drawn to be.
func (c *Campaign) withParams(v any) {
	f := c.cfg.Protocol.Fuzz
	m, ok := v.(map[string]any)
	if f == nil || len(f.Params) == 0 || !ok {
		return
	}
	raw, has := m["params"]
	params, isObj := raw.(map[string]any)
	if has && !isObj {
		return
	}
	if params == nil {
		params = map[string]any{}
		m["params"] = params
	}
	for k, x := range f.Params {
		params[k] = clone(x)
	}
}

func idField(c *Campaign) string {
	return strings.TrimPrefix(c.cfg.Protocol.Correlation.ID, "/")
}

// clone deep-copies a request template from the spec so a sequence can set
// its id without touching the spec.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = clone(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = clone(v)
		}
		return out
	}
	return v
}
