package mcpclient

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// judge is the client role's frame judge (peer.Judge) for one client
// process: every rule a single frame of the client decides given what
// came before it in the process (its initialize, wirecheck's answer to
// it, the requests wirecheck sent). It learns all of it from the frames,
// so a frame is judged the same in run's scenarios, in fuzz's sequences
// and in replay: what only a whole conversation shows (a message that
// never came, a client that did not disconnect) stays with the
// scenarios.
type judge struct {
	mu    sync.Mutex
	proto *spec.Protocol
	known []string
	// handshake: the run's revision opens with initialize; legacy: a
	// client of an earlier revision opened with it in a run of one
	// without (judged as that revision's session from then on).
	handshake, legacy bool
	// apart: messages travel apart (HTTP: one POST each), so a
	// cancellation may arrive before the request it names.
	apart bool

	anyReq bool
	// initKey is the id key of the client's initialize; answeredAt when
	// wirecheck's result to it was about to be written (zero: not yet).
	// A frame read before that instant was sent before the client could
	// have read the result, whenever it is judged.
	initKey     string
	answeredAt  time.Time
	unsupported bool // the result named a revision wirecheck does not know
	serverCaps  map[string]any
	capsKnown   bool
	// caps are the client capabilities declared: initialize's, or the
	// last 2026-07-28 request's _meta.
	caps map[string]any
	// ids are the request ids of the session (id key → transcript line).
	ids map[string]int
	// tokens are the progress tokens of wirecheck's requests.
	tokens map[string]bool
	// unmatched are cancellations of ids not seen as requests yet, over
	// a transport whose messages travel apart: a later request of the id
	// passes it, the conversation's end decides the rest (Settle).
	unmatched []unmatchedCancel
	// initialized: notifications/initialized was seen.
	initialized bool
	record      map[string]*count
}

type count struct{ pass, fail int }

// JudgeRules are the rules the client frame judge decides.
var JudgeRules = []string{
	"MCP-CLIENT-JSONRPC-2", "MCP-CLIENT-LIFECYCLE-1", "MCP-CLIENT-LIFECYCLE-2", "MCP-CLIENT-LIFECYCLE-3",
	"MCP-CLIENT-PING-1", "MCP-CLIENT-ROOTS-1", "MCP-CLIENT-SAMPLING-1", "MCP-CLIENT-ELICIT-1",
	"MCP-CLIENT-CANCEL-1", "MCP-CLIENT-CANCEL-2", "MCP-CLIENT-CAPS-1", "MCP-CLIENT-CAPS-2",
	"MCP-CLIENT-PROGRESS-1", "MCP-CLIENT-META-1", "MCP-CLIENT-META-2",
}

// NewJudge makes the frame judge of one client process.
func NewJudge(p *spec.Protocol) peer.Judge {
	j := &judge{proto: p, handshake: true, ids: map[string]int{}, tokens: map[string]bool{}, record: map[string]*count{}}
	if p != nil {
		if p.Versions != nil {
			j.known = p.Versions.IDs()
		}
		j.handshake = p.Version == "" || p.Has(p.Version, revtable.Handshake)
		j.apart = p.Transport != "" && p.Transport != "stdio"
	}
	return j
}

// judgeOf is the frame judge of the env's process (a bare one, which sees
// nothing, where the peer has none).
func judgeOf(env *scenario.Env) *judge {
	if j, ok := env.Judge().(*judge); ok {
		return j
	}
	return env.State(judgeKey{}, func() any { return NewJudge(nil) }).(*judge)
}

type judgeKey struct{}

// judged is how many times rule passed and failed in this process.
func (j *judge) judged(rule string) count {
	j.mu.Lock()
	defer j.mu.Unlock()
	if c := j.record[rule]; c != nil {
		return *c
	}
	return count{}
}

// Settle decides, at the end of a conversation, the cancellations no
// request of the session has matched (scenario.Settler): run's scenarios
// call it as they end, a step scenario (a replayed file) when its steps
// are done, fuzz after each sequence's closing probe, so a cancellation
// is decided the same on every path, each once.
//
// Over HTTP a cancellation may overtake its request's POST, so it is
// matched against every request of the session by its end; a request
// the listener saw POSTed though refused (401 by a protection, 404 once
// its session ended) was sent all the same. What is left names a request
// wirecheck never received, which over HTTP is no proof the client never
// issued it: a client that cancels a call may abort the call's own POST
// (the TypeScript SDK aborts its fetch), and the request then never
// arrives though the client issued it. "Previously issued" read from the
// client's side, the wire cannot settle it: a skip with the reason, never
// a fail. Over stdio every line written arrives, and there an unknown id
// fails as it comes (notification).
func (j *judge) Settle(env *scenario.Env) {
	j.mu.Lock()
	left := j.unmatched
	j.unmatched = nil
	j.mu.Unlock()
	s := httpSession(env)
	for _, u := range left {
		if s.Sent(u.key) {
			env.Pass("MCP-CLIENT-CANCEL-1", u.seq)
			continue
		}
		env.Skip("MCP-CLIENT-CANCEL-1", fmt.Sprintf("line %d cancels request %s, which wirecheck never received: over HTTP a client may abort a request's POST as it cancels it, so the wire does not show whether the request was issued", u.seq, u.key))
	}
}

// tallied records a verdict and passes it on; j.mu is held.
type tallied struct {
	v peer.Verdicts
	j *judge
}

func (t tallied) c(rule string) *count {
	c := t.j.record[rule]
	if c == nil {
		c = &count{}
		t.j.record[rule] = c
	}
	return c
}
func (t tallied) Pass(rule string, seq int) { t.c(rule).pass++; t.v.Pass(rule, seq) }
func (t tallied) Fail(rule string, seq int, msg, expected, actual string) {
	t.c(rule).fail++
	t.v.Fail(rule, seq, msg, expected, actual)
}

// Sent learns what wirecheck says to the client: its answer to
// initialize (the revision and capabilities the session has), and the
// progress tokens of its requests.
func (j *judge) Sent(raw []byte, c *peer.Call) {
	v, err := schema.Decode(raw)
	if err != nil {
		return
	}
	at := time.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, isReq := peer.Pointer(v, "/method"); isReq {
		if tok, ok := peer.Pointer(v, "/params/_meta/progressToken"); ok {
			if _, hasID := peer.Pointer(v, "/id"); hasID {
				j.tokens[peer.Key(tok)] = true
			}
		}
		return
	}
	id, _ := peer.Pointer(v, "/id")
	res, isResult := peer.Pointer(v, "/result")
	if j.initKey == "" || peer.Key(id) != j.initKey || !j.answeredAt.IsZero() || !isResult {
		return
	}
	j.answeredAt = at
	r, _ := res.(map[string]any)
	j.serverCaps, _ = r["capabilities"].(map[string]any)
	j.capsKnown = true
	ver, _ := r["protocolVersion"].(string)
	j.unsupported = len(j.known) > 0 && !slices.Contains(j.known, ver)
}

// Received judges a frame of the client.
func (j *judge) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	j.mu.Lock()
	defer j.mu.Unlock()
	t := tallied{v, j}
	mv, hasM := in.Field("/method")
	name, _ := mv.(string)
	id, hasID := in.Field("/id")
	switch {
	case hasM && hasID:
		j.request(in, name, id, t)
	case hasM:
		j.notification(in, name, t)
	default:
		j.response(in, method, t)
	}
}

// before reports whether in was read before wirecheck's initialize
// result was written.
func (j *judge) before(in *peer.Inbound) bool {
	return j.answeredAt.IsZero() || !in.At.IsZero() && in.At.Before(j.answeredAt)
}

func (j *judge) request(in *peer.Inbound, method string, id any, t tallied) {
	key := peer.Key(id)
	if method == "initialize" && !j.answeredAt.IsZero() {
		// A new session (HTTP, after wirecheck ended the old one): ids
		// are unique within a session.
		j.ids = map[string]int{}
		j.answeredAt, j.initKey, j.capsKnown, j.initialized = time.Time{}, "", false, false
	}
	if first, ok := j.ids[key]; ok {
		t.Fail("MCP-CLIENT-JSONRPC-2", in.Seq, fmt.Sprintf("request id %s reused: the client's request on line %d had it", key, first), "a new id for every request of the session", key)
	} else {
		j.ids[key] = in.Seq
		t.Pass("MCP-CLIENT-JSONRPC-2", in.Seq)
	}
	for i, u := range j.unmatched {
		if u.key == key {
			t.Pass("MCP-CLIENT-CANCEL-1", u.seq)
			j.unmatched = slices.Delete(j.unmatched, i, i+1)
			break
		}
	}
	modern := !j.handshake && !j.legacy
	if method == "initialize" {
		j.initKey = key
		j.caps, _ = mapAt(in, "/params/capabilities")
		if modern {
			j.legacy, modern = true, false
		}
	}
	if j.handshake {
		j.lifecycle(in, method, t)
	}
	if modern {
		j.meta(in, method, t)
		if c, ok := mapAt(in, "/params/_meta/io.modelcontextprotocol~1clientCapabilities"); ok {
			j.caps = c
		}
	}
	if j.capsKnown && !modern {
		j.capabilities(in, method, t)
	}
}

// lifecycle judges a request of a session that opens with initialize.
func (j *judge) lifecycle(in *peer.Inbound, method string, t tallied) {
	if method == "server/discover" && !j.anyReq {
		// stdio's backward-compatibility probe of 2026-07-28: a client of
		// both eras asks it before anything else; no breach of
		// initialize-first.
		return
	}
	if !j.anyReq {
		j.anyReq = true
		if method == "initialize" {
			t.Pass("MCP-CLIENT-LIFECYCLE-1", in.Seq)
		} else {
			t.Fail("MCP-CLIENT-LIFECYCLE-1", in.Seq, "the client's first request is "+method+", not initialize", "initialize first", method)
		}
	}
	if method == "initialize" || method == "ping" || j.unsupported {
		return
	}
	if j.before(in) {
		t.Fail("MCP-CLIENT-LIFECYCLE-3", in.Seq, method+" sent before the server answered initialize", "only ping before the initialize result", method)
	} else {
		t.Pass("MCP-CLIENT-LIFECYCLE-3", in.Seq)
	}
}

// capabilities judges a request against the capabilities the server
// declared in its initialize result.
func (j *judge) capabilities(in *peer.Inbound, method string, t tallied) {
	feature := serverFeature(method)
	if feature == "" {
		return
	}
	for _, rule := range []string{"MCP-CLIENT-CAPS-1", "MCP-CLIENT-CAPS-2"} {
		if r := j.proto.Rule(rule); r == nil || !j.proto.Applies(r) {
			continue
		}
		if _, ok := j.serverCaps[feature]; ok {
			t.Pass(rule, in.Seq)
		} else {
			t.Fail(rule, in.Seq, fmt.Sprintf("the client sent %s, of the %s capability, which the server did not declare", method, feature), "requests of the capabilities the server declared (and ping)", method)
		}
	}
}

// meta judges the _meta of a request of a 2026-07-28 session: the
// required fields (META-1), clientInfo (META-2).
func (j *judge) meta(in *peer.Inbound, method string, t tallied) {
	meta, _ := mapAt(in, "/params/_meta")
	var missing []string
	for _, k := range metaRequired {
		if _, ok := meta[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Fail("MCP-CLIENT-META-1", in.Seq, method+" without "+strings.Join(missing, " and ")+" in its _meta", "_meta with "+strings.Join(metaRequired, " and "), strings.Join(missing, " and ")+" missing")
	} else {
		t.Pass("MCP-CLIENT-META-1", in.Seq)
	}
	if _, ok := meta[metaClientInfo]; ok {
		t.Pass("MCP-CLIENT-META-2", in.Seq)
	} else {
		t.Fail("MCP-CLIENT-META-2", in.Seq, method+" without "+metaClientInfo+" in its _meta", "_meta with "+metaClientInfo, "none")
	}
}

func (j *judge) notification(in *peer.Inbound, method string, t tallied) {
	switch method {
	case "notifications/initialized":
		if !j.handshake || j.unsupported || j.initialized {
			return
		}
		j.initialized = true
		if j.before(in) {
			t.Fail("MCP-CLIENT-LIFECYCLE-2", in.Seq, "notifications/initialized sent before the initialize result", "initialized after the server's initialize result", "initialized first")
		} else {
			t.Pass("MCP-CLIENT-LIFECYCLE-2", in.Seq)
		}
	case "notifications/progress":
		tok, _ := in.Field("/params/progressToken")
		if j.tokens[peer.Key(tok)] {
			t.Pass("MCP-CLIENT-PROGRESS-1", in.Seq)
		} else {
			t.Fail("MCP-CLIENT-PROGRESS-1", in.Seq, fmt.Sprintf("progress under token %v, which no request of wirecheck's carried", tok), "the progress token of a request of wirecheck's (its sampling/createMessage carries "+samplingToken+")", fmt.Sprint(tok))
		}
	case "notifications/cancelled":
		rid, _ := in.Field("/params/requestId")
		key := peer.Key(rid)
		if j.handshake && j.initKey != "" && key == j.initKey {
			t.Fail("MCP-CLIENT-CANCEL-2", in.Seq, "notifications/cancelled names the client's initialize request", "no cancellation of initialize", key)
		} else if j.handshake {
			t.Pass("MCP-CLIENT-CANCEL-2", in.Seq)
		}
		switch _, ok := j.ids[key]; {
		case ok:
			t.Pass("MCP-CLIENT-CANCEL-1", in.Seq)
		case j.apart:
			j.unmatched = append(j.unmatched, unmatchedCancel{key, in.Seq})
		default:
			t.Fail("MCP-CLIENT-CANCEL-1", in.Seq, fmt.Sprintf("cancellation of request %s, which the client never sent", key), "the id of a request the client sent", key)
		}
	}
}

// answered are wirecheck's requests whose answer a rule judges: ping's
// (an empty result), and those of a client capability (a result only
// with the capability declared; an error passes either way).
var answered = map[string]struct{ rule, feature string }{
	"ping":                   {"MCP-CLIENT-PING-1", ""},
	"roots/list":             {"MCP-CLIENT-ROOTS-1", "roots"},
	"sampling/createMessage": {"MCP-CLIENT-SAMPLING-1", "sampling"},
	"elicitation/create":     {"MCP-CLIENT-ELICIT-1", "elicitation"},
}

func (j *judge) response(in *peer.Inbound, method string, t tallied) {
	a, ok := answered[method]
	if !ok {
		return
	}
	res, isResult := in.Field("/result")
	if a.feature == "" {
		m, ok := res.(map[string]any)
		switch {
		case !isResult:
			t.Fail(a.rule, in.Seq, "ping answered with an error", "an empty result", string(in.Raw))
		case !ok || len(withoutMeta(m)) > 0:
			t.Fail(a.rule, in.Seq, "ping answered with a result that is not empty", "{}", string(in.Raw))
		default:
			t.Pass(a.rule, in.Seq)
		}
		return
	}
	_, declared := j.caps[a.feature]
	if isResult && !declared && a.feature == "roots" && noRoots(res) {
		// client/roots binds "Clients that support roots": an empty list
		// exposes no root, so it is no support of roots but a courtesy
		// to a server asking what was never offered (the Go SDK's client
		// answers so when it declares none). Roots listed undeclared are
		// support, and fail.
		t.Pass(a.rule, in.Seq)
		return
	}
	if isResult && !declared {
		t.Fail(a.rule, in.Seq, fmt.Sprintf("%s answered with a result, but the client declared no %s capability", method, a.feature), "an error (or no answer) without the capability", "a result")
		return
	}
	t.Pass(a.rule, in.Seq)
}

// serverFeature is the server capability a client request of method
// belongs to ("" for one of no capability wirecheck may leave out).
func serverFeature(method string) string {
	for _, f := range []struct{ prefix, feature string }{{"resources/", "resources"}, {"prompts/", "prompts"}, {"logging/", "logging"}, {"completion/", "completions"}} {
		if strings.HasPrefix(method, f.prefix) {
			return f.feature
		}
	}
	return ""
}

// noRoots reports whether a roots/list result lists no root.
func noRoots(res any) bool {
	m, _ := res.(map[string]any)
	roots, ok := m["roots"].([]any)
	return ok && len(roots) == 0
}
