// Package peer talks to one server instance on behalf of scenarios: it
// correlates responses with requests, records every frame in the transcript,
// validates every inbound frame against its kind's schema, answers requests
// the server sends, and reports what it observes as observations of rules.
//
// Every frame passes through the peer both ways, and the peer shows each
// to the protocol's frame judge (Judge, per process) after its schema
// checks, so the rules a judge decides are judged by the same code
// whether run, replay or fuzz sent the request. A protocol's Go
// scenarios still judge what only their own exchanges show.
package peer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Handler answers a request the server sent. It returns the encoded
// response, or nil to leave the request unanswered.
type Handler func(in *Inbound) []byte

// Errors a wait can end with.
var (
	ErrTimeout = errors.New("no answer within the timeout")
	ErrExited  = errors.New("the server's output ended")
	// ErrUnmatched ends a wait once every request in flight has had a
	// response line whose id matches none of them (see unmatched): the
	// server answered them all, each id mangled, and owes no more. It is
	// an ErrTimeout to callers that tell only answered from unanswered.
	ErrUnmatched = fmt.Errorf("%w: every request in flight was answered with an id that matches none of them", ErrTimeout)
)

// Options wires a peer.
type Options struct {
	Protocol  *spec.Protocol
	Schemas   *schema.Registry
	Transport transport.Transport
	Recorder  *transcript.Recorder
	Observe   verdict.Observer
	Handler   Handler
	// Judge makes the protocol's frame judge for this process (nil: the
	// schemas and built-in checks only).
	Judge NewJudge
	// InboxCap bounds the frames kept for Next; older ones are dropped so
	// a flooding server cannot exhaust memory. Default 4096.
	InboxCap int
	// StartupGrace is how long a wait may last, on top of its own timeout,
	// while the server has not yet written its first line: a timeout
	// measures the server's answer, not its interpreter's start-up on a
	// loaded machine. 0: no grace.
	StartupGrace time.Duration
	// InboxBytes bounds what those frames cost, their bytes and decoded
	// values (see footprint), and what one call's events cost. Default
	// 4 MiB: a flood of large lines would fill 4096 frames with gigabytes.
	InboxBytes int
	// Scenario names the scenario observed from the first frame on (see
	// SetScenario). Naming it here, not by SetScenario after New, keeps
	// the frames that arrive in between: SetScenario empties the inbox,
	// and a fast server's ready line may already be in it.
	Scenario string
}

// Inbound is one frame the server sent, as the peer understood it.
type Inbound struct {
	Raw   []byte
	Seq   int
	At    time.Time
	Value any // decoded JSON (numbers as json.Number); nil when not JSON
	Kind  *spec.Kind
	Call  *Call
	// Problem says why the frame is not a well-formed protocol frame.
	Problem string
	// Invalid is set on the answer to a raw line, to a request sent
	// without an id, or to one that breaks the protocol's request schema
	// (Call.Invalid): its kind is the protocol's invalid kind, and a null
	// or missing id on it is no wrong id.
	Invalid bool
	// HTTP is how the frame came over HTTP; nil on stdio. On a refusal
	// (see Call.Refused) it says which exchange ended and why.
	HTTP *transport.Via

	size int // footprint, once computed
}

// Field returns the value at a JSON pointer in the frame, and whether it exists.
func (in *Inbound) Field(ptr string) (any, bool) { return Pointer(in.Value, ptr) }

// Call is a request in flight or answered.
type Call struct {
	ID       any
	Key      string // the id as canonical JSON: "1" and 1 differ
	Method   string
	Scenario string
	Seq      int
	SentAt   time.Time
	// strays is the peer's count of stray responses when it was sent.
	strays int

	done     chan struct{}
	Response *Inbound
	// Events are the call's events in arrival order; past InboxCap of
	// them or InboxBytes of their cost the later ones are only counted in
	// EventsDropped.
	Events        []*Inbound
	EventsDropped int
	eventBytes    int
	// Mismatch is set when the response was matched to this call although
	// its id was not an exact echo (another JSON type, or another value
	// while this was the only request in flight).
	Mismatch string
	// Invalid is set when the request breaks the protocol's request schema
	// (an unknown method, params of another shape): its answer is judged
	// as an answer to an invalid request (Inbound.Invalid), and a null or
	// missing id on it is a reading the method accepts, not a wrong id.
	Invalid bool
	// unjudged: a refusal of its exchange is no finding (see
	// RequestUnjudged).
	unjudged bool
	// overCap: its answer came over --max-frame (ErrOverCap).
	overCap bool
	// unsent: the transport never sent it (ErrUnsent).
	unsent bool
	// patient: an exchange of it that ran out of wirecheck's --timeout
	// is no finding (see Patient).
	patient bool
	// Refused is set when the request's HTTP exchange ended without a
	// JSON-RPC answer (transport.Via.End): the call is done, its waits
	// return ErrRefused, and Response is a stand-in with no message that
	// names the transcript line saying so.
	Refused string
}

// Patient marks a call whose answer may take longer than --timeout
// without breaking a rule (a tool call, where the protocol bounds no
// response time), so
// an HTTP exchange of it that wirecheck's own timeout ends records no
// finding; its waits still end, and Refused says why.
func (p *Peer) Patient(c *Call) {
	p.mu.Lock()
	c.patient = true
	p.mu.Unlock()
}

// Done is closed once the call has its final response.
func (c *Call) Done() <-chan struct{} { return c.done }

// Describe names the request in a message, `request id "f44" (tools/call)`,
// and says what it lacked instead of leaving a gap: a request sent without
// a method (or with one that is no string) reads `request id "f44" (no
// method)`.
func (c *Call) Describe() string {
	return DescribeRequest(c.Key, c.Method)
}

// DescribeRequest is Call.Describe for a request known by its id key and
// method ("" when it had none).
func DescribeRequest(key, method string) string {
	what := "request id " + key
	if key == "" {
		what = "a request without an id"
	}
	if method == "" {
		return what + " (no method)"
	}
	return what + " (" + method + ")"
}

// Peer is one conversation with one server instance.
type Peer struct {
	o Options
	// proto judges the frames; SetProtocol swaps it (a client that
	// falls back to an older revision of the protocol mid-process).
	proto   atomic.Pointer[spec.Protocol]
	started time.Time

	mu       sync.Mutex
	scenario string
	// launchedFor is Options.Scenario until a scenario is set: setting
	// that one keeps what arrived since the launch (see SetScenario).
	launchedFor string
	pending     map[string]*Call
	answered    map[string]*Call
	// bodied are the keys filed in answered since forgetBodies last ran.
	bodied []string
	anon   int // raw lines sent that may be answered with a null id
	// anonIDs counts those of the anon lines whose bytes may carry an id
	// (at most anon): an answer with an id that is not null may be theirs
	// only while it is not zero.
	anonIDs int
	// strays counts the responses that carried an id no request of this
	// peer ever had (stdio: nothing else tells what they answer);
	// straySig is closed and replaced at each.
	strays   int
	straySig chan struct{}
	// refusedRaw counts the raw lines of this scenario whose POST the
	// legacy transport's server refused (see onStream): each may still
	// get its JSON-RPC error on the stream.
	refusedRaw int
	// noteOpen is set from a raw line sent with no answer owed (a
	// notification) until a request sent after it (noteSeq, its
	// transcript line) is answered: meanwhile a null-id frame may be that
	// line's answer, which it must not have (see lookup).
	noteOpen bool
	noteSeq  int
	// anonSeq is the transcript line of the last raw line owed an
	// answer; stale counts those of the anon lines sent before a request
	// the server has since answered (a server that reads in order would
	// have answered them first): their answer may still come late, but a
	// null id is no longer more likely theirs than an invalid request's.
	anonSeq int
	stale   int
	// held queues the lines of requests sent between Hold and Flush;
	// heldCalls are their calls, untracked if the write fails.
	held      []byte
	heldCalls []*Call
	inbox     []*Inbound
	inboxB    int // the inbox's cost (footprint)
	dropped   int
	// dropNoted is set once the transcript says the current scenario's
	// inbox overflowed.
	dropNoted bool
	// firstLine is the first frame the server wrote, while it is queued:
	// the startup contract judges it, so a flood behind it must not push
	// it out before the runner has read it.
	firstLine *Inbound
	signal    chan struct{} // closed and replaced whenever the inbox grows
	// overCapSeq and overCapMsg are the transcript line and message of
	// the last frame over the cap (see OverCapAfter).
	overCapSeq int
	overCapMsg string
	frames     int
	known      int // frames of a kind this protocol defines
	stderr     []string
	// handler, when set, answers server requests instead of
	// Options.Handler until the next scenario starts.
	handler Handler
	// serverIDs holds the ids of requests the server sent: a response-role
	// frame carrying one (an error about a callback) is about that request,
	// not an answer to one of wirecheck's, and not a stray. serverOrder
	// holds them in arrival order, to forget the oldest past maxServerIDs.
	serverIDs   map[string]bool
	serverOrder []string
	// heldChecks, when not nil, keeps the observations of checks
	// (HoldChecks).
	heldChecks []verdict.Observation

	gone chan struct{}
	// goneAt is when the output ended (read once gone is closed).
	goneAt time.Time
	// heard is closed when the first line arrives on stdout.
	heard     chan struct{}
	heardOnce sync.Once
	heardAt   time.Time // set before heard is closed
	readDone  chan struct{}
	errDone   chan struct{}

	state state // see State
	judge Judge // see Options.Judge

	// wmu keeps the two writes of a split line together: a handler's
	// answer written between them would land inside the line.
	wmu sync.Mutex
}

// transportSend and transportRaw write under wmu.
func (p *Peer) transportSend(msg []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.o.Transport.Send(msg)
}

func (p *Peer) transportRaw(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.o.Transport.WriteRaw(b)
}

// New starts the peer's readers on the transport.
func New(o Options) *Peer {
	if o.InboxCap <= 0 {
		o.InboxCap = 4096
	}
	if o.InboxBytes <= 0 {
		o.InboxBytes = DefaultInboxBytes
	}
	if o.Observe == nil {
		o.Observe = func(verdict.Observation) {}
	}
	p := &Peer{
		o:           o,
		scenario:    o.Scenario,
		launchedFor: o.Scenario,
		started:     time.Now(),
		pending:     map[string]*Call{},
		answered:    map[string]*Call{},
		serverIDs:   map[string]bool{},
		signal:      make(chan struct{}),
		straySig:    make(chan struct{}),
		gone:        make(chan struct{}),
		heard:       make(chan struct{}),
		readDone:    make(chan struct{}),
		errDone:     make(chan struct{}),
	}
	p.proto.Store(o.Protocol)
	if o.Judge != nil {
		p.judge = o.Judge(o.Protocol)
	}
	if s, ok := o.Transport.(transport.Sinker); ok {
		s.SetSink(p.sink)
	}
	go p.readLoop()
	go p.stderrLoop()
	return p
}

// protocol is the protocol the peer judges frames by.
func (p *Peer) protocol() *spec.Protocol { return p.proto.Load() }

// Protocol is the protocol the peer judges frames by now (see SetProtocol).
func (p *Peer) Protocol() *spec.Protocol { return p.protocol() }

// SetProtocol makes the peer classify and validate the frames it receives
// from now on by proto: a client that negotiated another revision of a
// versioned protocol in this process (it fell back from one revision's
// handshake to another's) judges the server by that revision.
func (p *Peer) SetProtocol(proto *spec.Protocol) { p.proto.Store(proto) }

// SetScenario tags what is observed from now on, forgets raw lines the
// previous scenario left unanswered, and drops the handler it set. The
// answers of its calls are kept only as far as a late duplicate needs
// them (see forgetBodies).
//
// Setting the scenario the process was launched for (Options.Scenario)
// keeps what arrived since: it is that scenario's, as everything a
// client under test sends from its first message on is.
func (p *Peer) SetScenario(name string) {
	p.mu.Lock()
	if name != "" && name == p.launchedFor {
		p.launchedFor = ""
		p.mu.Unlock()
		p.o.Recorder.SetScenario(name)
		return
	}
	p.launchedFor = ""
	p.scenario = name
	p.anon, p.anonIDs, p.refusedRaw = 0, 0, 0
	p.inbox, p.inboxB, p.dropNoted, p.firstLine = nil, 0, false, nil
	p.handler = nil
	p.forgetBodies()
	p.mu.Unlock()
	p.o.Recorder.SetScenario(name)
}

// SetHandler makes h answer the requests the server sends from now until
// the current scenario ends (nil restores Options.Handler), so a scenario
// can pick how wirecheck answers: allow, deny, or never answer.
func (p *Peer) SetHandler(h Handler) {
	p.mu.Lock()
	p.handler = h
	p.mu.Unlock()
}

// currentHandler is the scenario's handler, or the default one.
func (p *Peer) currentHandler() Handler {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.handler != nil {
		return p.handler
	}
	return p.o.Handler
}

// ServerRequest reports whether id (canonical, see Key) is the id of a
// request the server sent.
func (p *Peer) ServerRequest(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.serverIDs[key]
}

// Tag renames what is observed from now on without forgetting anything, so
// the fuzzer can label each action of one sequence: observations of a
// response carry the tag of the request it answers.
func (p *Peer) Tag(name string) {
	p.mu.Lock()
	p.scenario = name
	p.mu.Unlock()
}

// Scenario is the current scenario's name.
func (p *Peer) Scenario() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.scenario
}

// Gone is closed when the server's output has ended.
func (p *Peer) Gone() <-chan struct{} { return p.gone }

// GoneAt is when the server's output ended, zero while it has not.
func (p *Peer) GoneAt() time.Time {
	select {
	case <-p.gone:
		return p.goneAt
	default:
		return time.Time{}
	}
}

// Heard is closed when the server has written its first line on stdout:
// it has started and read its input (the runner lets the next process
// start then).
func (p *Peer) Heard() <-chan struct{} { return p.heard }

// StartupGrace is how much longer a WaitUp or NextUp begun before the
// server's first line may last (Options.StartupGrace).
func (p *Peer) StartupGrace() time.Duration { return p.o.StartupGrace }

// Recorder is the transcript the peer writes to.
func (p *Peer) Recorder() *transcript.Recorder { return p.o.Recorder }

// Transport is the connection the peer reads from.
func (p *Peer) Transport() transport.Transport { return p.o.Transport }

// Request sends a request (a complete JSON object, encoded) and tracks it
// when it carries an id. A frame without an id is sent as a notification
// and returns a nil Call.
func (p *Peer) Request(msg []byte) (*Call, error) {
	c, err := p.track(msg)
	if err != nil {
		return nil, err
	}
	return p.send(c, msg)
}

// RequestUnjudged is Request for a request of wirecheck's own whose
// exchange the server may refuse without breaking a rule: the liveness
// probe, sent after a scenario that may have left no session (a protocol
// over HTTP may refuse a request outside one with 400, as its transport
// says a server should). Its answer, when it comes, is judged as any other.
func (p *Peer) RequestUnjudged(msg []byte) (*Call, error) {
	c, err := p.track(msg)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.unjudged = true
	}
	return p.send(c, msg)
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// send records and writes a tracked request (queues it, while held).
func (p *Peer) send(c *Call, msg []byte) (*Call, error) {
	p.sent(msg, c)
	seq := p.o.Recorder.Add(transcript.Sent, msg)
	p.mu.Lock()
	p.written(c, seq)
	if p.held != nil {
		p.held = append(append(p.held, msg...), '\n')
		p.heldCalls = append(p.heldCalls, c)
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	if err := p.transportSend(msg); err != nil {
		p.untrack(c)
		p.note("write failed: " + err.Error())
		return nil, err
	}
	return c, nil
}

// written notes that a tracked call's line is transcript line seq, about
// to be written. Under p.mu: the reader reads both (a call is pending from
// before its line is written, and an answer that no id ties to a request,
// taken for the invalid one sent first, may come meanwhile). The caller
// holds p.mu.
func (p *Peer) written(c *Call, seq int) {
	if c != nil {
		c.Seq, c.SentAt = seq, time.Now()
	}
}

// Hold makes the requests sent from now until Flush go out together, in
// one write, each tracked before any is written: requests meant to be
// written before the server reads any (a pipeline) are then all in flight
// when the first answer comes, however the writer is scheduled. Over a
// transport of whole messages (HTTP) it does nothing.
func (p *Peer) Hold() {
	if m, ok := p.o.Transport.(transport.Messenger); ok && m.WholeMessages() {
		return
	}
	p.mu.Lock()
	p.held = []byte{}
	p.mu.Unlock()
}

// Flush writes what Hold queued, in one write.
func (p *Peer) Flush() error {
	p.mu.Lock()
	b, calls := p.held, p.heldCalls
	p.held, p.heldCalls = nil, nil
	p.mu.Unlock()
	if len(b) == 0 {
		return nil
	}
	if err := p.transportRaw(b); err != nil {
		for _, c := range calls {
			p.untrack(c)
		}
		p.note("write failed: " + err.Error())
		return err
	}
	return nil
}

// track registers a request about to be sent: a Call when it has an id,
// one more null-id answer allowed when it has none.
func (p *Peer) track(msg []byte) (*Call, error) {
	return p.trackValue(msg, nil)
}

// RequestValue is Request for a message the caller built as v and encoded
// as msg: the id and method are read from v, which saves decoding msg
// again, when the id is a string (a number's JSON type is only known once
// encoded, so other ids are read from msg).
func (p *Peer) RequestValue(v any, msg []byte) (*Call, error) {
	c, err := p.trackValue(msg, v)
	if err != nil {
		return nil, err
	}
	return p.send(c, msg)
}

func (p *Peer) trackValue(msg []byte, v any) (*Call, error) {
	if id, ok := Pointer(v, p.protocol().Correlation.ID); !ok || !isString(id) {
		var err error
		if v, err = schema.Decode(msg); err != nil {
			return nil, fmt.Errorf("request is not JSON: %w", err)
		}
	}
	idv, ok := Pointer(v, p.protocol().Correlation.ID)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok || idv == nil {
		// A request without an id can only be answered with a null id.
		p.anon++
		return nil, nil
	}
	method, _ := Pointer(v, p.protocol().Correlation.Method)
	ms, _ := method.(string)
	c := &Call{ID: idv, Key: Key(idv), Method: ms, done: make(chan struct{}), Scenario: p.scenario,
		Invalid: p.noMethod(ms) || !p.validRequest(v, msg), strays: p.strays}
	if p.pending[c.Key] != nil {
		return nil, fmt.Errorf("id %s is already in flight", c.Key)
	}
	p.pending[c.Key] = c
	delete(p.answered, c.Key)
	return c, nil
}

// noMethod reports whether a request names no method a server could run:
// none, or an empty name, which a server may read as no method at all
// and so answer as an Invalid Request, id null (JSON-RPC 2.0 §5).
func (p *Peer) noMethod(method string) bool {
	return method == "" && p.protocol().Correlation.Method != ""
}

// validRequest reports whether a request passes the schema of some kind the
// protocol sends (role out); a protocol that declares none sends only
// valid requests. v may be the caller's own value (Go ints, slices), which
// a schema may misjudge, so a rejection is confirmed on msg decoded.
func (p *Peer) validRequest(v any, msg []byte) bool {
	judged := false
	for _, k := range p.protocol().Kinds {
		if k.Role != spec.RoleRequestOut {
			continue
		}
		s := p.o.Schemas.Get(k.Schema)
		if s == nil {
			continue
		}
		judged = true
		if s.Validate(v) == nil {
			return true
		}
		if d, err := schema.Decode(msg); err == nil && s.Validate(d) == nil {
			return true
		}
	}
	return !judged
}

func (p *Peer) untrack(c *Call) {
	if c == nil {
		return
	}
	p.mu.Lock()
	delete(p.pending, c.Key)
	p.mu.Unlock()
}

// RequestSplit sends a request like Request, but writes its line in two
// writes split at byte at, with a pause between (at most pause: until
// the server has read the first part, where the transport tells), to check that the server
// reassembles a message that arrives in pieces. Over a transport.Messenger
// (HTTP) it sends the request whole and says so in the transcript.
func (p *Peer) RequestSplit(msg []byte, at int, pause time.Duration) (*Call, error) {
	c, err := p.track(msg)
	if err != nil {
		return nil, err
	}
	if m, ok := p.o.Transport.(transport.Messenger); ok && m.WholeMessages() {
		// Over HTTP a write is a body: two would be two broken messages and
		// the request never sent. The request goes whole, and the
		// transcript says the split did not happen.
		p.note(fmt.Sprintf("split at byte %d not applied: this transport carries whole messages, one per request body", at))
		return p.send(c, msg)
	}
	p.sent(msg, c)
	line := append(append([]byte{}, msg...), '\n')
	at = max(1, min(at, len(line)-1))
	seq := p.o.Recorder.Add(transcript.Sent, msg)
	p.mu.Lock()
	p.written(c, seq)
	p.mu.Unlock()
	p.wmu.Lock()
	err = p.o.Transport.WriteRaw(line[:at])
	if err == nil {
		// The second part must come after the server's read of the first;
		// a transport that can tell when that happened cuts the pause short.
		if ra, ok := p.o.Transport.(transport.ReadAwaiter); ok {
			ra.AwaitRead(pause)
		} else {
			time.Sleep(pause)
		}
		err = p.o.Transport.WriteRaw(line[at:])
	}
	p.wmu.Unlock()
	if err != nil {
		p.untrack(c)
		p.note("write failed: " + err.Error())
		return nil, err
	}
	return c, nil
}

// SendRaw writes bytes as they are (framing included by the caller). When
// answerable, one response with a null id is expected and not a stray.
func (p *Peer) SendRaw(b []byte, answerable bool) error {
	if answerable {
		p.mu.Lock()
		p.anon++
		if p.mayCarryID(b) {
			p.anonIDs++
		}
		p.mu.Unlock()
	}
	p.sent(b, nil)
	seq := p.o.Recorder.Add(transcript.Sent, b)
	p.mu.Lock()
	if answerable {
		p.anonSeq = seq
	} else {
		p.noteOpen, p.noteSeq = true, seq
	}
	p.mu.Unlock()
	if err := p.transportRaw(b); err != nil {
		p.note("write failed: " + err.Error())
		return err
	}
	return nil
}

// ForgetRaw gives up on one raw line owed an answer (SendRaw with
// answerable) that was not answered, so the guess that an unknown id
// answers the only request in flight is back on.
func (p *Peer) ForgetRaw() {
	p.mu.Lock()
	p.takeAnon()
	p.mu.Unlock()
}

// takeAnon counts one raw line owed an answer off (answered or given up).
// Which one is not known, so the count of those that may carry an id only
// stays within it. The caller holds p.mu.
func (p *Peer) takeAnon() {
	if p.anon > 0 {
		p.anon--
	}
	p.anonIDs = min(p.anonIDs, p.anon)
	p.stale = min(p.stale, p.anon)
}

// mayCarryID reports whether a raw line could give the server an id to
// answer with: it names the protocol's id member, or escapes a character
// (which could spell that name). A notification, or text that is no JSON
// object with an id, gives none: its answer can only say id null.
func (p *Peer) mayCarryID(b []byte) bool {
	ptr := strings.TrimPrefix(p.protocol().Correlation.ID, "/")
	return ptr == "" || strings.Contains(ptr, "/") || bytes.Contains(b, []byte(`"`+ptr+`"`)) || bytes.Contains(b, []byte(`\`))
}

// Wait blocks until the call is answered, the timeout passes or the server
// ends.
func (p *Peer) Wait(c *Call, timeout time.Duration) (*Inbound, error) {
	return p.wait(c, timeout, 0)
}

// WaitUp is Wait for a request whose answer is the server's own step: the
// timeout counts from when the server has written its first line, so a
// process still starting (an interpreter on a loaded machine) gets up to
// Options.StartupGrace more. A wait that reads silence on purpose (is this
// method answered at all?) uses Wait.
func (p *Peer) WaitUp(c *Call, timeout time.Duration) (*Inbound, error) {
	return p.wait(c, timeout, p.o.StartupGrace)
}

func (p *Peer) wait(c *Call, timeout, grace time.Duration) (*Inbound, error) {
	start := time.Now()
	t := time.NewTimer(p.grace(timeout, grace))
	defer t.Stop()
	heard := p.heard
	for {
		strays := p.unmatched(c)
		if strays == nil {
			return nil, ErrUnmatched
		}
		select {
		case <-c.done:
			return answer(c)
		case <-strays:
			continue
		case <-heard:
			// The server is up: from then on only the timeout counts.
			heard = nil
			t.Reset(time.Until(p.upSince(start).Add(timeout)))
			continue
		case <-t.C:
		case <-p.gone:
			// A response may have been routed just before the output ended.
			select {
			case <-c.done:
				return answer(c)
			default:
			}
			return nil, ErrExited
		}
		break
	}
	select {
	case <-c.done:
		return answer(c)
	default:
	}
	return nil, ErrTimeout
}

// unmatched returns nil when c, still unanswered, is owed nothing more:
// every request in flight has had, after it was sent, a response whose id
// no request ever had (on stdio, where nothing else ties a response to
// its request), as many as there are requests, the later ones included
// (for each of the k last sent, at least k such responses since it was
// sent), and no raw line owed an answer could have given those ids. A
// server answers each request line once, so none of them will get
// another. Otherwise it returns the signal of the next stray response.
func (p *Peer) unmatched(c *Call) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending[c.Key] != c || p.anonIDs > 0 || p.strays == c.strays {
		return p.straySig
	}
	calls := make([]*Call, 0, len(p.pending))
	for _, pc := range p.pending {
		calls = append(calls, pc)
	}
	// The latest sent first: the k-th of them needs k strays since.
	slices.SortFunc(calls, func(a, b *Call) int { return cmp.Compare(b.strays, a.strays) })
	for k, pc := range calls {
		if p.strays-pc.strays < k+1 {
			return p.straySig
		}
	}
	return nil
}

// grace is the bound of a wait that starts now: timeout, plus grace while
// the server has not written anything yet.
func (p *Peer) grace(timeout, grace time.Duration) time.Duration {
	select {
	case <-p.heard:
		return timeout
	default:
		return timeout + grace
	}
}

// upSince is when a wait that started at start began to count: then, or
// when the server wrote its first line if that came later. Call it only
// once heard is closed.
func (p *Peer) upSince(start time.Time) time.Time {
	if p.heardAt.After(start) {
		return p.heardAt
	}
	return start
}

// Answered reports whether this process has answered a request of method,
// so a caller can tell a request this server is known to answer (the
// probe) from one it may never have understood.
func (p *Peer) Answered(method string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.answered {
		if c.Method == method && c.Response != nil && c.Refused == "" {
			return true
		}
	}
	return false
}

// Next returns the oldest frame not correlated with a call (a ready line, a
// notification, a request, a stray or unclassifiable frame), waiting up to
// timeout for one.
func (p *Peer) Next(timeout time.Duration) (*Inbound, error) {
	return p.NextWhere(timeout, func(*Inbound) bool { return true })
}

// NextWhere returns the oldest uncorrelated frame for which match holds,
// waiting up to timeout for one; the frames it passes over stay queued for
// later calls. It lets a scenario follow one stream (one session's
// messages, one progress token) while others interleave.
func (p *Peer) NextWhere(timeout time.Duration, match func(*Inbound) bool) (*Inbound, error) {
	return p.next(time.Now(), timeout, 0, match)
}

// NextUp is Next for a frame that is the server's own step (a frame a
// scenario expects), as WaitUp is Wait: the timeout, counted from start,
// counts from the server's first line if that came later, so a process
// still starting gets up to Options.StartupGrace more. A caller that
// skips frames keeps its start across the calls of one wait. A zero
// timeout only looks.
func (p *Peer) NextUp(start time.Time, timeout time.Duration) (*Inbound, error) {
	return p.next(start, timeout, p.o.StartupGrace, func(*Inbound) bool { return true })
}

func (p *Peer) next(start time.Time, timeout, grace time.Duration, match func(*Inbound) bool) (*Inbound, error) {
	deadline := start.Add(timeout)
	var heard chan struct{}
	if grace > 0 && timeout > 0 {
		deadline = start.Add(p.grace(timeout, grace))
		heard = p.heard
	}
	for {
		in, sig := p.take(match)
		if in != nil {
			return in, nil
		}
		select {
		case <-p.gone:
			// Everything the server sent is queued: one last look.
			if in, _ := p.take(match); in != nil {
				return in, nil
			}
			return nil, ErrExited
		default:
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, ErrTimeout
		}
		t := time.NewTimer(left)
		select {
		case <-sig:
		case <-t.C:
		case <-p.gone:
		case <-heard:
			// The server is up: from then on only the timeout counts.
			heard = nil
			deadline = p.upSince(start).Add(timeout)
		}
		t.Stop()
	}
}

// AwaitKind waits up to timeout for the first frame of the named kind (a
// ready line), skipping others. It returns the first frame that arrived at
// all, so the caller can tell whether the one it waited for came first, and
// ErrTimeout or ErrExited when it never came.
func (p *Peer) AwaitKind(kind string, timeout time.Duration) (first *Inbound, err error) {
	deadline := time.Now().Add(timeout)
	for {
		in, err := p.Next(time.Until(deadline))
		if err != nil {
			return first, err
		}
		if first == nil {
			first = in
		}
		if in.Kind != nil && in.Kind.Name == kind {
			return first, nil
		}
	}
}

// take removes and returns the oldest queued frame that matches, or nil
// and the signal that will close when the queue next grows.
func (p *Peer) take(match func(*Inbound) bool) (*Inbound, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, in := range p.inbox {
		if match(in) {
			p.inboxB -= footprint(in)
			if in == p.firstLine {
				p.firstLine = nil
			}
			if i == 0 {
				p.inbox = p.inbox[1:] // the common case: no copy
			} else {
				p.inbox = append(p.inbox[:i:i], p.inbox[i+1:]...)
			}
			return in, nil
		}
	}
	return nil, p.signal
}

// Frames counts every frame received so far, correlated or not.
func (p *Peer) Frames() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}

// ProtocolFrames counts the frames received so far that classified as a
// kind of the protocol; junk on stdout is judged by the framing checks and
// must not break a silence a step expects.
func (p *Peer) ProtocolFrames() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.known
}

// InFlight lists the calls still waiting for a response.
func (p *Peer) InFlight() []*Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Call, 0, len(p.pending))
	for _, c := range p.pending {
		out = append(out, c)
	}
	return out
}

// Forget drops a call from the pending table (after a timeout was reported),
// so a late answer is judged a duplicate-free late response rather than a
// stray.
func (p *Peer) Forget(c *Call) {
	p.mu.Lock()
	if p.pending[c.Key] == c {
		delete(p.pending, c.Key)
		p.answer(c)
	}
	p.mu.Unlock()
}

// StderrTail returns the last lines the server wrote on stderr, for
// evidence when it dies.
func (p *Peer) StderrTail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.stderr...)
}

// StderrEnded is closed once the server's stderr has ended and each of its
// lines is in the transcript and StderrTail.
func (p *Peer) StderrEnded() <-chan struct{} { return p.errDone }

// Close ends the server and waits for the readers.
func (p *Peer) Close() error {
	err := p.o.Transport.Close()
	<-p.readDone
	<-p.errDone
	return err
}

func (p *Peer) note(s string) { p.o.Recorder.Add(transcript.Note, []byte(s)) }

func (p *Peer) stderrLoop() {
	defer close(p.errDone)
	ch := p.o.Transport.Stderr()
	if ch == nil {
		return
	}
	for f := range ch {
		p.o.Recorder.Add(transcript.Stderr, f.Raw)
		line, _ := transcript.Text(f.Raw)
		if len(line) > 300 {
			line = line[:300] + "…"
		}
		p.mu.Lock()
		p.stderr = append(p.stderr, line)
		if len(p.stderr) > 20 {
			p.stderr = p.stderr[len(p.stderr)-20:]
		}
		p.mu.Unlock()
	}
}

// readLoop takes the frames of a transport that is no Sinker; of one that
// is, it only waits for the end of its output.
func (p *Peer) readLoop() {
	defer close(p.readDone)
	for f := range p.o.Transport.Recv() {
		p.sink(f, false)
	}
	if p.o.Transport.Overflowed() {
		p.note("the server wrote faster than wirecheck could judge its output: frames past the buffer cap were dropped unjudged")
	}
	p.goneAt = time.Now()
	close(p.gone)
	p.mu.Lock()
	sig := p.signal
	p.signal = make(chan struct{})
	p.mu.Unlock()
	close(sig)
}

// sink is the peer's transport.Sink. On the reader's goroutine it refuses
// every line that names a "method", the requests a handler may answer
// among them: that write could wait on a server that reads nothing while
// it writes, and the reader must go on reading meanwhile (a line that
// names it only in escapes, "\u006dethod", is answered there, a wait
// WriteTimeout bounds). An answer to wirecheck's own request names none,
// and is judged where it was read: one goroutine switch less before its
// waiter wakes.
func (p *Peer) sink(f transport.Frame, inline bool) bool {
	if inline && bytes.Contains(f.Raw, []byte(`"method"`)) {
		return false
	}
	p.heardOnce.Do(func() { p.heardAt = time.Now(); close(p.heard) })
	if f.Raw == nil && f.HTTP != nil && f.HTTP.End != "" {
		p.ended(f)
		return true
	}
	p.receive(f)
	return true
}

// DefaultInboxBytes is Options.InboxBytes' default.
const DefaultInboxBytes = 4 << 20

// maxServerIDs bounds the ids of server requests remembered: a server that
// floods requests with fresh ids must not grow the table without end.
const maxServerIDs = 10_000

// rememberServerID records the id of a request the server sent. The caller
// holds p.mu.
func (p *Peer) rememberServerID(key string) {
	if p.serverIDs[key] {
		return
	}
	if len(p.serverOrder) >= maxServerIDs {
		delete(p.serverIDs, p.serverOrder[0])
		p.serverOrder = p.serverOrder[1:]
	}
	p.serverIDs[key] = true
	p.serverOrder = append(p.serverOrder, key)
}

// ForgetBodies is forgetBodies for a caller that runs many exchanges
// under one scenario: the fuzzer, whose process serves hundreds of
// sequences tagged by action (Tag), never by scenario, and would
// otherwise hold every answer it was sent, decoded, until the process
// ends (some 40 MB on eight lanes: GC time, and past the soft memory
// limit, GC all the time).
func (p *Peer) ForgetBodies() {
	p.mu.Lock()
	p.forgetBodies()
	p.mu.Unlock()
}

// forgetBodies keeps, of each answered call, only what a later duplicate
// answer is judged by (its transcript line, its kind, its scenario), so the
// answers of every request a process was sent are not all held until it
// ends: a server answering each with megabytes would hold them all. The
// table gets a stub in the call's place; the call itself, which a scenario
// or a session may still read, is left as it is. The caller holds p.mu.
func (p *Peer) forgetBodies() {
	for _, k := range p.bodied {
		c := p.answered[k]
		if c == nil {
			continue
		}
		r := c.Response
		if r == nil || (r.Raw == nil && r.Value == nil) {
			continue
		}
		stub := &Call{ID: c.ID, Key: c.Key, Method: c.Method, Scenario: c.Scenario, Seq: c.Seq, SentAt: c.SentAt,
			done: c.done, Mismatch: c.Mismatch}
		stub.Response = &Inbound{Seq: r.Seq, At: r.At, Kind: r.Kind, Call: stub, Problem: r.Problem}
		p.answered[k] = stub
	}
	p.bodied = p.bodied[:0]
}

// answer files a call in the table of answered calls, noting its key
// for forgetBodies, which then looks at the calls answered since it last
// ran, not the whole table (a fuzzed process answers thousands; the
// fuzzer forgets after every sequence). The caller holds p.mu.
func (p *Peer) answer(c *Call) {
	p.answered[c.Key] = c
	p.bodied = append(p.bodied, c.Key)
}

// footprint estimates what a received frame holds in memory: its bytes and
// its decoded value, which for many small tokens is many times the bytes.
func footprint(in *Inbound) int {
	if in.size == 0 {
		in.size = 256 + len(in.Raw) + valueSize(in.Value)
	}
	return in.size
}

func valueSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 48
		for k, e := range x {
			n += 48 + len(k) + valueSize(e)
		}
		return n
	case []any:
		n := 24
		for _, e := range x {
			n += 16 + valueSize(e)
		}
		return n
	case string:
		return 16 + len(x)
	case json.Number:
		return 16 + len(x)
	}
	return 0
}

// Key is the canonical JSON text of an id, so ids of different JSON types
// never collide: transport.IDKey, the key the HTTP transports name a
// request by (transport.Via.For).
func Key(id any) string { return transport.IDKey(id) }

// looseKey is the id's text regardless of JSON type, to recognise an id
// echoed with the wrong type.
func looseKey(id any) string {
	switch v := id.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return Key(id)
}

// Reply sends a message that is no request of wirecheck's to track: an
// answer to a request the other side sent, or a notification, framed by
// the transport (Send) as a handler's answer is. It passes the frame
// judge and the transcript; seq is its transcript line.
func (p *Peer) Reply(msg []byte) (seq int, err error) {
	p.sent(msg, nil)
	seq = p.o.Recorder.Add(transcript.Sent, msg)
	if err := p.transportSend(msg); err != nil {
		p.note("write failed: " + err.Error())
		return seq, err
	}
	return seq, nil
}
