package fuzz

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/gen"
	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// tool is one tool the server listed, with the generators of its
// arguments from its input schema, made once per schema a campaign sees:
// a generator analyses its schema when it is made, which per draw cost
// more than drawing from it.
type tool struct {
	name    string
	valid   *rapid.Generator[any]
	invalid *rapid.Generator[gen.Mutation]
}

// unit is one action as run: the steps it sent and awaited, and the shape
// its failures are grouped under. A process's history is a list of them,
// and shrinking a history drops whole units, never half an exchange.
type unit struct {
	shape string
	steps []scenario.Step
}

func flatten(us []unit) []scenario.Step {
	var out []scenario.Step
	for _, u := range us {
		out = append(out, u.steps...)
	}
	return out
}

// proc is one server process and what the fuzzer ran on it. The process
// outlives a sequence while it stays healthy (persistent fuzzing), so its
// history is the reproducer of a failure that needs what came before.
type proc struct {
	c   *Campaign
	s   *session.Session
	p   *peer.Peer
	env *scenario.Env
	rec *transcript.Recorder
	// ids numbers the requests of the process (f1, f2, …): one id is never
	// used twice on one process, as MCP asks of a session.
	ids int
	// tokens numbers the progress tokens it was sent ($token); strays
	// the ids of unasked responses ($stray).
	tokens, strays int
	tools          []tool
	last           map[string]any // values carried from response to request
	// handshake are the answers of its setup (what the server declared,
	// which follow-up requests' conditions read); items are the names
	// each source listed; undo the answered follow-up requests a later
	// action may take back; open the requests left open, which a later
	// action may cancel (follow.go).
	handshake []*peer.Inbound
	items     map[string][]string
	// made says which items the server made and where (yield);
	// producers are the sends whose answers made them, not forgotten.
	made      map[[2]string]made
	producers []string
	undo      []undoable
	open      []opened
	// units is everything run on the process, its setup first (setup
	// units of them); sequences counts the sequences it has served.
	units []unit
	setup int
	// named are the sends of the last unit, which the next forgets,
	// but for those held: a later request refers to their answers
	// (hold).
	named     []string
	held      map[string]bool
	sequences int
	sent      int

	// failure is the first failure at or above the level; the peer's
	// reader goroutine sets it, so it is read through failed(). shape is
	// what the process does now (setShape).
	mu      sync.Mutex
	failure *verdict.Observation
	shape   string

	// ahead, when set, draws the sequence's next action; do calls it
	// once, after the steps that send and before the first that waits.
	ahead func()
}

// sequence is one run of the property: drawn actions on a process, new
// or kept from the sequence before.
type sequence struct {
	c  *Campaign
	t  *rapid.T
	ln *lane
	// index is its place in the batch.
	index int
	pr    *proc
	// from is the first unit of this sequence in pr.units: 0 when it
	// started the process (its setup is part of it).
	from   int
	closed bool
	keep   bool
}

// closeOdds is how rarely a sequence ends by closing stdin: its process
// cannot serve another, and a start costs more than the messages of a
// dozen sequences (the reference server: some 80 ms of CPU, most of it
// the package initialisation of its libraries; a Node server more). Once
// the campaign has seen cleanExits clean exits on EOF, later batches
// close one in rareCloseOdds: the rule is still checked, and the starts
// it cost were most of the fuzzer's time. BenchmarkFuzz/reference, 500
// sequences, 2 cores, three runs each: 40 starts at one in 12 always;
// 10 starts and 0.41 to 0.44 of the bare client at 12, 3 and 120; 6
// starts, 0.42 to 0.47 at 12, 3 and 400; 5 starts, 0.47 to 0.49 at 16, 2
// and 400.
// The value that closes is a middle one: rapid draws the ends of a range
// more often, and shrinks towards its low end (no close).
const (
	closeOdds     = 16
	rareCloseOdds = 400
	cleanExits    = 2
)

// errStop ends a sequence early (the server is gone, or a failure was seen).
var errStop = errors.New("sequence stopped")

// run is the rapid property: sequence index of the batch, on lane ln.
func (c *Campaign) run(t *rapid.T, ln *lane, index int) {
	// A server that cannot be started fails every sequence the same way:
	// one start failure ends the campaign, not one per sequence. An
	// interrupt or a spent budget ends the batch at once: a refused
	// sequence would only pass, and rapid would go on trying smaller
	// candidates of a large recording, each refused, for as long as its
	// own clock allows. Goexit ends the goroutine rapid runs in (see Run),
	// as testing.T.FailNow does; the smallest failure so far is kept.
	if c.ctx.Err() != nil || c.startFailure() != nil || c.spent() || c.enough() {
		runtime.Goexit()
	}
	c.countSequence()
	ln.ran = true
	pr, err := c.acquire(ln)
	if pr == nil {
		return
	}
	s := &sequence{c: c, t: t, ln: ln, index: index, pr: pr}
	if pr.sequences > 0 {
		s.from = len(pr.units)
		pr.forgetProducers()
	}
	defer s.finish()
	n := rapid.IntRange(1, c.cfg.MaxActions).Draw(t, "actions")
	stopped := err
	var next *action
	if stopped == nil {
		next = s.draw()
	}
	for i := 0; stopped == nil && i < n; i++ {
		cur := next
		next = nil
		if i+1 < n {
			// The next action is drawn while the server works on this
			// one's requests (see ahead), not after its answers.
			pr.ahead = func() { next = s.draw() }
		}
		pr.setShape(cur.shape)
		stopped = cur.run()
		pr.ahead = nil
		if stopped != nil || pr.failed() != nil || c.ctx.Err() != nil {
			break
		}
		if next == nil && i+1 < n {
			next = s.draw()
		}
	}
	// Closing stdin ends a sequence, and the process: one in c.odds
	// does, so most sequences leave a process the next one can keep.
	if stopped == nil && pr.failed() == nil && c.ctx.Err() == nil && rapid.IntRange(1, c.odds).Draw(t, "close stdin") == c.odds/2 {
		pr.setShape("stdin closed")
		s.closed = true
		stopped = pr.do(scenario.Step{CloseStdin: true}, pr.exitStep())
		if stopped == nil && pr.failed() == nil {
			c.cleanExits.Add(1)
		}
	}
	if c.ctx.Err() == nil {
		s.keep = pr.settle(stopped)
		// The end of a sequence is fuzz's end of a conversation, as a
		// scenario's end is run's: the frame judge decides what it left
		// open (a cancellation of a request never received), after the
		// probe's round trip, as run's scenario end comes after its last.
		pr.setShape("end of sequence")
		pr.env.Settle()
	}
	s.judge()
}

// settle is the liveness probe that ends every sequence, the one between
// the runner's scenarios (session.Probe), so a replayed reproducer ends
// with the same probe. A death or a hang is a failure of the action
// before it; a process that answered serves the next sequence, its probe
// kept in its history as the step that sends it again.
func (pr *proc) settle(stopped error) bool {
	h := session.Probe(pr.env, stopped)
	after := "after " + pr.currentShape() + ", "
	switch v, judged := h.Survival(); {
	case !judged:
	case h.State == session.Dead:
		pr.p.Check(verdict.CheckSurvives, v, -1, after+"the server died: "+h.Why,
			"the server keeps running", pr.p.Transport().ExitStatus().String())
	case h.State == session.Hung:
		pr.p.Check(verdict.CheckSurvives, v, -1, after+h.Why, "the server keeps answering", "no answer")
	default:
		pr.p.Check(verdict.CheckSurvives, v, -1, "", "", "")
	}
	if h.State == session.Alive || h.State == session.Hung || h.State == session.Refused {
		pr.sent++
	}
	keep := h.Keep && pr.failed() == nil
	if keep {
		pr.units = append(pr.units, unit{shape: "end of sequence", steps: []scenario.Step{pr.probeStep()}})
	}
	return keep
}

// judge deals with a failure the sequence saw. On a lane that generates,
// it is a candidate for the batch to decide (see batch): a failure on a
// process that served sequences before is confirmed on a fresh one
// first; alone, it is shrunk as any other; only after the history of its
// process, that history is the reproducer, shrunk by confirm (rapid
// cannot: it shrinks one sequence). On the shrinking lane it fails the
// rapid test, which makes rapid shrink it. An interrupted campaign fails
// nothing.
func (s *sequence) judge() {
	f := s.pr.failed()
	if f == nil || s.c.ctx.Err() != nil || s.c.known(f) {
		return
	}
	if !s.ln.shrink {
		s.ln.cand = &candidate{index: s.index, obs: *f, run: s.pr.record(), units: s.pr.units, setup: s.pr.setup, from: s.from}
		return
	}
	s.c.recordFailure(s.pr.record())
	// rapid takes two runs of one input for the same failure only when
	// this text is the same (else it stops shrinking at once, or never
	// starts), so it names the bug and nothing timing or history
	// decides: the message says whether a write to an exited server
	// failed before its exit was seen, and quotes the stderr read so far
	// (on a kept process, earlier sequences' too).
	s.t.Fatalf("%s after %s", f.Rule, f.Scenario)
}

// finish counts the sequence and keeps its process for the next one when
// it is healthy, closes it otherwise.
func (s *sequence) finish() {
	pr := s.pr
	// What a late duplicate answer is judged by stays; the answers
	// themselves are not held for the process's life.
	pr.p.ForgetBodies()
	s.c.messages.Add(int64(pr.sent))
	pr.sent = 0
	pr.sequences++
	if s.c.cfg.Trace != nil {
		s.c.trace.Lock()
		s.c.cfg.Trace(flatten(pr.units[s.from:]))
		s.c.trace.Unlock()
	}
	s.c.release(s.ln, pr, s.keep)
}

func (pr *proc) observe(o verdict.Observation) {
	if pr.c.ctx.Err() != nil {
		// An interrupt or the end of the budget closed the server: what
		// follows is not the server's doing, and nothing is judged.
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if o.Scenario == "" {
		// A step's own observation: grouped under the action it ends.
		o.Scenario = pr.shape
	}
	if o.Verdict == verdict.Fail && pr.c.sentUnknown(pr.rec, o.Seq) {
		// The failure is on a request of a generated method the protocol
		// does not define (left unanswered, say): that is its cause,
		// whichever action sent it (one request, a pipeline, a split
		// line), so it is one distinct failure, not one per action.
		o.Scenario = unknownMethod
	}
	pr.c.tally(o)
	if o.Verdict != verdict.Fail || !pr.c.counts(o.Rule) {
		return
	}
	if pr.failure == nil {
		// A copy: taking o's address would put every observation (a
		// few per message) on the heap.
		f := o
		pr.failure = &f
	}
}

// failed returns the process's first failure, or nil.
func (pr *proc) failed() *verdict.Observation {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.failure
}

// record is the failure of the process with everything that ran on it.
func (pr *proc) record() *failure {
	return &failure{obs: *pr.failed(), steps: flatten(pr.units), transcript: pr.rec.Slice(0, -1)}
}

// failure is a failing run as it will be saved: the observation, the
// steps from the process's start, and what was exchanged.
type failure struct {
	obs        verdict.Observation
	steps      []scenario.Step
	transcript []transcript.Entry
	history    bool
	// sent is steps as JSON, to tell whether a rerun sent the same.
	sent string
}

// start launches a process and runs the protocol's setup on it. A process
// that could not be started ends the campaign (nil, with startErr set); a
// setup that did not go through returns the process and errStop, its
// failure to be judged.
func (c *Campaign) start() (*proc, error) {
	pr := &proc{c: c, last: map[string]any{}, items: map[string][]string{}, made: map[[2]string]made{}, held: map[string]bool{}, shape: "startup"}
	s, err := session.Launch(c.sessionOptions(pr.observe))
	if err != nil {
		return nil, c.startError(err)
	}
	// A target that speaks first (a client under test) is observed from
	// its connection on: what observe reads is set under its lock.
	pr.mu.Lock()
	pr.s, pr.p, pr.env = s, s.Peer(), s.Env()
	pr.rec = pr.p.Recorder()
	pr.mu.Unlock()
	pr.setShape("startup")
	if err := s.AwaitReady(); err != nil {
		s.Close()
		return nil, c.startError(err)
	}
	err = pr.setupSteps()
	pr.setup = len(pr.units)
	return pr, err
}

// sessionOptions are the options of a session of the campaign, its
// observations going to observe: the spec, schemas, handler and frame
// judge run and replay give theirs (session.Options.PeerOptions wires
// them into the peer).
func (c *Campaign) sessionOptions(observe verdict.Observer) session.Options {
	return session.Options{
		Target: c.cfg.Target, Protocol: c.cfg.Protocol, Schemas: c.cfg.Schemas,
		Observe: observe, Handler: c.cfg.Handler, Judge: c.cfg.Judge, Timeout: c.cfg.Timeout, StartupTimeout: c.cfg.StartupTimeout,
		// An interrupt, or the end of the budget, ends a spare's start too.
		Abort: c.ctx.Done(),
	}
}

func (pr *proc) setupSteps() error {
	f := pr.c.cfg.Protocol.Fuzz
	if f == nil {
		return nil
	}
	for _, step := range f.Setup {
		pr.setShape("setup")
		if m, ok := spec.SetupAwait(step); ok {
			// The target speaks first (a client's handshake, which the
			// handler answers): the setup waits until it is done.
			if err := pr.do(scenario.Step{ExpectFrame: true, Seek: true, Assert: scenario.Assert{Match: m}}); err != nil {
				return err
			}
			continue
		}
		if n, ok := spec.SetupNotification(step); ok {
			if err := pr.notify(fill(n, "", nil, pr)); err != nil {
				return err
			}
			continue
		}
		in, err := pr.call(fill(step, "", nil, pr))
		if err != nil {
			return err
		}
		if in != nil {
			pr.handshake = append(pr.handshake, in)
		}
	}
	if f.Tools != nil {
		pr.setShape("discover tools")
		// A page's request refers to the cursor in the answer before it
		// (made.ref): replayed, it sends the cursor the replayed server
		// made.
		after := ""
		for page := 0; page < maxPages; page++ {
			req := fill(f.Tools.List, "", nil, pr)
			if page > 0 {
				setPointer(req, f.Tools.Next.To, made{from: after, path: f.Tools.Next.From}.ref())
			}
			in, err := pr.call(req)
			pr.release(after)
			if err != nil {
				return err
			}
			if in == nil {
				break
			}
			pr.tools = append(pr.tools, pr.c.toolsFrom(in)...)
			if f.Tools.Next == nil {
				break
			}
			if cursor, _ := in.Field(f.Tools.Next.From); cursor == nil {
				break
			}
			after = pr.hold(pr.name())
		}
	}
	return pr.listSources()
}

// maxPages bounds the pages of a tool list read at the start of a
// process (a server whose cursor never ends costs that many requests).
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

// action is one drawn action, not yet run: what it is called, and what
// runs it. Everything drawn is drawn before it runs; what depends on the
// process (ids, values carried from earlier answers) is settled when it
// runs.
type action struct {
	shape string
	run   func() error
}

// draw draws one action.
func (s *sequence) draw() *action {
	pr := s.pr
	actions := []string{"request", "invalid", "bytes", "pipeline"}
	if !s.c.cfg.Target.OverHTTP() {
		// A line written in two parts tests a reader of a byte stream;
		// over HTTP each write is a body of its own, two broken
		// messages, and the request in them was never sent.
		actions = append(actions, "split")
	}
	if len(pr.tools) > 0 {
		actions = append(actions, "call", "call", "call-invalid")
	}
	if len(pr.follows()) > 0 {
		actions = append(actions, "follow")
	}
	if len(pr.undo) > 0 {
		actions = append(actions, "undo")
	}
	if len(pr.open) > 0 {
		actions = append(actions, "cancel")
	}
	if s.c.request == nil {
		actions = []string{"bytes"}
	}
	if f := s.c.cfg.Protocol.Fuzz; f != nil && len(f.Frames) > 0 {
		// Appended last, and only where the model has frames: the draws
		// of every other campaign stay what they were.
		actions = append(actions, "frame", "frame")
	}
	disturbances := pr.disturbances()
	if len(disturbances) > 0 {
		// Last again: only a transport that can misbehave below the
		// messages (the client role over HTTP) offers any.
		actions = append(actions, "disturb")
	}
	switch a := rapid.SampledFrom(actions).Draw(s.t, "action"); a {
	case "request":
		v := s.validRequest()
		return &action{s.c.label(v), func() error {
			_, err := pr.call(v)
			return err
		}}
	case "frame":
		return s.drawFrame()
	case "disturb":
		d := rapid.SampledFrom(disturbances).Draw(s.t, "disturbance")
		return &action{"transport disturbed: " + d, func() error {
			return pr.do(scenario.Step{Disturb: d}, pr.probeStep())
		}}
	case "follow":
		return s.drawFollow()
	case "undo":
		return s.drawUndo()
	case "cancel":
		return s.drawCancel()
	case "call":
		tl := rapid.SampledFrom(pr.tools).Draw(s.t, "tool")
		args := tl.valid.Draw(s.t, "args")
		return &action{s.callLabel(tl.name), func() error {
			_, err := pr.callTool(fill(s.c.cfg.Protocol.Fuzz.Tools.Call, tl.name, args, pr))
			return err
		}}
	case "call-invalid":
		tl := rapid.SampledFrom(pr.tools).Draw(s.t, "tool")
		m := tl.invalid.Draw(s.t, "mutation")
		return &action{s.callLabel(tl.name) + " with invalid arguments", func() error {
			v := fill(s.c.cfg.Protocol.Fuzz.Tools.Call, tl.name, m.Value, pr)
			name := pr.request(v)
			// Arguments a tool does not check may start it all the same.
			expect := scenario.Step{Expect: name, Slow: s.c.cfg.Protocol.Fuzz.Tools.Unbounded}
			return pr.do(scenario.Step{Send: v, As: name}, expect, pr.probeStep())
		}}
	case "invalid":
		m := s.invalidRequest()
		return &action{invalidLabel(m.Value, firstWords(m.What)), func() error {
			return pr.sendInvalid(m.Value)
		}}
	case "bytes":
		mal := rapid.SampledFrom(malformations).Draw(s.t, "malformation")
		base := s.c.validRequest.Draw(s.t, "base")
		if m, ok := base.(map[string]any); ok {
			// Without an id, any answer can only carry a null id, which the
			// peer expects after raw input.
			delete(m, idField(s.c))
		}
		b, _ := json.Marshal(base)
		raw := mal.make(s.t, b)
		label := mal.label
		ignored := s.ignored(mal.name)
		if len(ignored) > 0 {
			label += ", after the lines the protocol ignores"
		}
		return &action{"malformed bytes: " + label, func() error {
			answer := pr.malformedStep(mal.name)
			if answer == nil {
				return pr.do(append(ignored, rawStep(raw), pr.probeStep())...)
			}
			// The answers to earlier raw lines go first (saved, so
			// replay drops them too): the frame judged is this line's.
			return pr.do(scenario.Step{Drain: true}, rawStep(raw), *answer, pr.probeStep())
		}}
	case "split":
		v := s.validRequest()
		shape := s.c.label(v) + " split over two writes"
		// Where, as a share of the line: its length is known only once
		// it runs, with its id and params.
		permille := rapid.IntRange(1, 1000).Draw(s.t, "split at (‰)")
		return &action{shape, func() error {
			name := pr.request(v)
			b, _ := json.Marshal(v)
			at := max(1, len(b)*permille/1000)
			return pr.do(scenario.Step{Send: v, As: name, Split: at}, scenario.Step{Expect: name})
		}}
	case "pipeline":
		k := rapid.IntRange(2, 5).Draw(s.t, "pipelined")
		vs := make([]any, k)
		for i := range vs {
			vs[i] = s.validRequest()
		}
		return &action{fmt.Sprintf("%d pipelined requests", k), func() error {
			var sends, expects []scenario.Step
			for _, v := range vs {
				name := pr.request(v)
				sends = append(sends, scenario.Step{Send: v, As: name})
				expects = append(expects, scenario.Step{Expect: name})
			}
			return pr.do(append(sends, expects...)...)
		}}
	}
	panic("fuzz: an action nobody draws")
}

// methods are the method requests the process's server offers (their
// conditions hold in its setup's answers).
func (pr *proc) methods() []*methodRequests {
	var out []*methodRequests
	for _, m := range pr.c.requests {
		if pr.declares(m.when) {
			out = append(out, m)
		}
	}
	return out
}

// method draws whose request an action sends: nil for the generic one,
// else, half the time, one of the methods the server offers. A revision
// that defines none draws nothing here, so its campaigns draw as before.
func (s *sequence) method() *methodRequests {
	if len(s.c.requests) == 0 {
		return nil
	}
	ms := s.pr.methods()
	if len(ms) == 0 {
		return nil
	}
	i := rapid.IntRange(0, 2*len(ms)-1).Draw(s.t, "method")
	if i >= len(ms) {
		return nil
	}
	return ms[i]
}

func (s *sequence) validRequest() any {
	if m := s.method(); m != nil {
		v := m.valid.Draw(s.t, "request")
		if obj, ok := v.(map[string]any); ok {
			for k, x := range s.c.cfg.Protocol.Fuzz.Envelope {
				if _, has := obj[k]; !has {
					obj[k] = jsonval.Clone(x)
				}
			}
		}
		return v
	}
	return s.c.validRequest.Draw(s.t, "request")
}

func (s *sequence) invalidRequest() gen.Mutation {
	if m := s.method(); m != nil {
		return m.invalid.Draw(s.t, "mutation")
	}
	return s.c.invalidRequest.Draw(s.t, "mutation")
}

// setShape labels what the process does now; the peer tags its
// observations with it, so a failure is grouped by the action that caused
// it, even when it shows only later (a duplicate answer).
func (pr *proc) setShape(shape string) {
	pr.mu.Lock()
	pr.shape = shape
	pr.mu.Unlock()
	pr.p.Tag(shape)
}

func (pr *proc) currentShape() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.shape
}

// do runs steps through the scenario interpreter, the one fixtures and
// replay run through, and keeps them as one unit of the process's
// history: what is saved is what was sent, byte for byte. An error ends
// the sequence; a death nobody asked for is a liveness failure.
func (pr *proc) do(steps ...scenario.Step) error {
	// The sends of the unit before are done with (call has read its
	// answer): their responses are not held for the process's life.
	for _, name := range pr.named {
		if !pr.held[name] {
			pr.env.ForgetNamed(name)
		}
	}
	pr.named = pr.named[:0]
	for i := range steps {
		// An open request (a subscription) outlives its unit: a later
		// action cancels it by name.
		if steps[i].As != "" && !steps[i].Open {
			pr.named = append(pr.named, steps[i].As)
		}
	}
	// The steps' room is made once: a step is a large struct, and
	// growing the slice step by step copied each unit's steps twice.
	pr.units = append(pr.units, unit{shape: pr.currentShape(), steps: make([]scenario.Step, 0, len(steps))})
	u := &pr.units[len(pr.units)-1]
	for i := range steps {
		if i > 0 && pr.ahead != nil && pureSend(&steps[i-1]) && !pureSend(&steps[i]) {
			// What was sent is with the server now: the next action
			// is drawn meanwhile rather than after the answer.
			ahead := pr.ahead
			pr.ahead = nil
			ahead()
		}
		u.steps = append(u.steps, steps[i])
		pr.sent += sends(&steps[i])
		if err := pr.env.Do(&u.steps[len(u.steps)-1]); err != nil {
			// A death is judged by the probe that ends the sequence.
			return errStop
		}
	}
	return nil
}

// pureSend is a step that writes and waits for nothing.
func pureSend(st *scenario.Step) bool { return sends(st) > 0 && !st.ExpectAlive }

// sends is how many messages a step writes.
func sends(st *scenario.Step) int {
	if st.Send != nil || st.SendLine != nil || st.SendRaw != nil || st.SendBase64 != nil || st.ExpectAlive {
		return 1
	}
	return 0
}

func (pr *proc) name() string { return fmt.Sprintf("r%d", pr.ids) }

// request gives a generated request an id of this process and the fuzz
// model's params, and returns the name its expect step waits on. Ids
// repeat from run to run, so a saved reproducer reads the same every time.
func (pr *proc) request(v any) string {
	if m, ok := v.(map[string]any); ok && pr.c.cfg.Protocol.Correlation.ID != "" {
		pr.ids++
		m[idField(pr.c)] = fmt.Sprintf("f%d", pr.ids)
	}
	pr.c.withParams(v)
	return pr.name()
}

// call sends a request, waits for its answer and returns it (nil when
// none came), carrying forward the response fields templates read.
func (pr *proc) call(v any) (*peer.Inbound, error) {
	name := pr.request(v)
	if err := pr.do(scenario.Step{Send: v, As: name}, scenario.Step{Expect: name}); err != nil {
		return nil, err
	}
	in := pr.env.Answer(name)
	if in == nil {
		return nil, nil
	}
	for _, ptr := range pr.c.lastPtrs {
		if v, ok := in.Field(ptr); ok {
			pr.last[ptr] = v
		}
	}
	return in, nil
}

// callTool is call for a tool call: where the protocol bounds no time
// for one, a call slower than --timeout is not judged (Step.Slow).
func (pr *proc) callTool(v any) (*peer.Inbound, error) {
	if !pr.c.cfg.Protocol.Fuzz.Tools.Unbounded {
		return pr.call(v)
	}
	name := pr.request(v)
	if err := pr.do(scenario.Step{Send: v, As: name}, scenario.Step{Expect: name, Slow: true}); err != nil {
		return nil, err
	}
	return pr.env.Answer(name), nil
}

// notify sends a notification: no id is added and no answer is awaited
// or allowed (an answer would be a stray). The reproducer writes it as a
// line that is not answered.
func (pr *proc) notify(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	line := string(b)
	return pr.do(scenario.Step{SendLine: &line, Answered: new(bool)})
}

// ignored are the steps that send the lines the document says a server
// ignores (the fuzz model's ignored: sonde-serve's empty line), each owed
// no answer, before a line of only whitespace: the line whose reading
// the document leaves open (a reader that skips only "" answers it as
// malformed JSON), so an answer to one of the two is no failure, to both
// is. The probe after them is answered after any answer to them by a
// server that reads in order, so the frame judge decides by what came
// before it, not by a wait (internal/suite/sondeserve/judge.go). Sent
// with the whitespace line rather than drawn as an action of their own,
// they change no draw: every campaign's sequences stay what they were.
func (s *sequence) ignored(malformation string) []scenario.Step {
	f := s.c.cfg.Protocol.Fuzz
	if f == nil || malformation != "whitespace" {
		return nil
	}
	no := false
	var out []scenario.Step
	for _, l := range f.Ignored {
		out = append(out, scenario.Step{SendLine: &l, Answered: &no})
	}
	return out
}

// sendInvalid sends a schema-invalid request: tracked when its id is still
// one the server can echo, as raw input (answerable with a null id) when
// not; then the probe.
func (pr *proc) sendInvalid(v any) error {
	if m, ok := v.(map[string]any); ok {
		switch m[idField(pr.c)].(type) {
		case string, json.Number, float64:
			name := pr.request(v)
			return pr.do(scenario.Step{Send: v, As: name}, scenario.Step{Expect: name}, pr.probeStep())
		}
	}
	pr.c.withParams(v)
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return pr.do(rawStep(string(b)+"\n"), pr.probeStep())
}

// rawStep writes bytes as they are: as text when they are, base64 when
// not (the reproducer stays a YAML file).
func rawStep(s string) scenario.Step {
	if utf8.ValidString(s) {
		return scenario.Step{SendRaw: &s}
	}
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	return scenario.Step{SendBase64: &enc}
}

// probeStep asks whether the server still answers a known-good request,
// judged by the protocol's survival rule.
func (pr *proc) probeStep() scenario.Step {
	step := scenario.Step{ExpectAlive: true}
	if rules := pr.c.cfg.Protocol.RulesForCheck(verdict.CheckSurvives); len(rules) > 0 {
		step.Rule = rules[0].ID
	}
	return step
}

// malformedStep expects the answer the protocol's fuzz model says a line
// that is not JSON is owed, after the malformation named so, judged by
// its rule and any further ones (Also); nil when there is none to judge:
// only a truncated request is surely no JSON; the other malformations may
// be JSON a reader takes (a BOM, a huge number), or an empty line, which
// is ignored.
func (pr *proc) malformedStep(malformation string) *scenario.Step {
	f := pr.c.cfg.Protocol.Fuzz
	if f == nil || f.Malformed == nil || malformation != "truncated" {
		return nil
	}
	m := f.Malformed
	st := &scenario.Step{ExpectFrame: true, Rule: m.Rule, Depends: "an answer to a line that is not JSON",
		Assert: scenario.Assert{Match: m.Match, Type: m.Type}}
	for _, a := range m.Also {
		st.Also = append(st.Also, scenario.Also{Rule: a.Rule, Assert: scenario.Assert{Match: a.Match, Type: a.Type}})
	}
	return st
}

// exitStep expects a clean exit within --timeout of stdin closing.
func (pr *proc) exitStep() scenario.Step {
	step := scenario.Step{ExpectExit: &scenario.Exit{Within: scenario.Duration(pr.c.cfg.Timeout), Code: new(int)}}
	if rules := pr.c.cfg.Protocol.RulesForCheck(verdict.CheckExitOnEOF); len(rules) > 0 {
		step.Rule = rules[0].ID
	}
	return step
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
		if !plainMethod(name) {
			// A generated name may hold quotes, spaces or control bytes
			// ("request '" cut short at a newline): quoted, it reads
			// whole on one line.
			return "request " + strconv.Quote(name)
		}
		return "request " + name
	}
	return "request whose method is " + jsonType(method)
}

// unknownMethod is the label of a generated request whose method the
// protocol does not define.
const unknownMethod = "request of a method the protocol does not define"

// label names a generated request as a failure's shape, which groups the
// campaign's distinct failures (a bug is a rule and a shape): a method
// the protocol does not define is named so, not by its generated name, so
// a server that leaves every unknown method unanswered is one distinct
// failure with its hits counted, not one per random name (issue 26). The
// reproducer and its transcript still show the name.
func (c *Campaign) label(v any) string {
	if m, ok := v.(map[string]any); ok && len(c.methods) > 0 {
		if name, ok := m["method"].(string); ok && name != "" && !c.methods[name] {
			return unknownMethod
		}
	}
	return requestLabel(v)
}

// sentUnknown reports whether transcript line seq is a request wirecheck
// sent whose method the protocol does not define.
func (c *Campaign) sentUnknown(rec *transcript.Recorder, seq int) bool {
	if rec == nil || seq < 0 || len(c.methods) == 0 {
		return false
	}
	es := rec.Slice(seq, seq+1)
	if len(es) != 1 || es[0].Seq != seq || es[0].Dir != transcript.Sent {
		return false
	}
	var v any
	if json.Unmarshal([]byte(es[0].Text), &v) != nil {
		return false
	}
	return c.label(v) == unknownMethod
}

// knownMethods are the methods a protocol defines, as its spec names
// them: the methods its kinds answer, and those of its fuzz model's setup
// and tool requests. Empty when the spec names none, and then no method
// is called unknown.
func knownMethods(p *spec.Protocol) map[string]bool {
	out := map[string]bool{}
	add := func(m map[string]any) {
		if name, ok := m["method"].(string); ok && name != "" {
			out[name] = true
		}
	}
	for _, k := range p.Kinds {
		if k.Method != "" {
			out[k.Method] = true
		}
	}
	if f := p.Fuzz; f != nil {
		for _, m := range f.Setup {
			add(m)
			if n, ok := m["notify"].(map[string]any); ok {
				add(n)
			}
		}
		if f.Tools != nil {
			add(f.Tools.List)
			add(f.Tools.Call)
		}
		for _, src := range f.Sources {
			add(src.List)
		}
		for _, fl := range f.Follow {
			add(fl.Request)
			add(fl.Undo)
			if fl.Open != nil {
				add(fl.Open.Cancel)
			}
		}
	}
	return out
}

// plainMethod reports whether a method name reads unambiguously unquoted
// in a label: letters, digits and the punctuation method names use.
func plainMethod(name string) bool {
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("/._-$:", r):
		default:
			return false
		}
	}
	return true
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
// when absent, merged into an object it has. A request whose params is not an object is left as it is:
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
		// An object the request has already (a tool call's _meta with
		// its progress token) takes the model's members beside its own.
		have, isMap := params[k].(map[string]any)
		add, adds := x.(map[string]any)
		if !isMap || !adds {
			params[k] = jsonval.Clone(x)
			continue
		}
		for kk, xx := range add {
			have[kk] = jsonval.Clone(xx)
		}
	}
}

func idField(c *Campaign) string {
	return strings.TrimPrefix(c.cfg.Protocol.Correlation.ID, "/")
}
