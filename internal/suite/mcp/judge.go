package mcp

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// judge is MCP's frame judge (peer.Judge) for one server process: the
// rules that depend on what the process was told and declared before a
// frame (the capabilities of its handshake, the progress tokens
// wirecheck sent, the requests cancelled). It learns all of it from the
// frames themselves, so run, replay and fuzz judge alike; a scenario
// asks it what it judged (judged) instead of counting by hand.
type judge struct {
	mu sync.Mutex
	// shook: an initialize or server/discover result was read; caps are
	// its capabilities, modern says it was server/discover's (2026-07-28).
	shook  bool
	modern bool
	caps   map[string]any
	// known lists the revisions wirecheck judges; requested is the
	// revision the last initialize sent asked for, declared the client
	// capabilities it declared, version the revision negotiated (the one
	// asked for when the server named none wirecheck knows).
	known              []string
	requested, version string
	// discover is the revision without a handshake, for messages.
	discover string
	declared map[string]any
	// progress maps a progress token wirecheck sent (canonical JSON) to
	// its request; tokens maps a request's id key to its token.
	progress map[string]*tracked
	tokens   map[string]string
	// sends counts the frames wirecheck sent, in order; calls are the
	// requests whose answers or lifetime the judge follows, by id key.
	sends int
	calls map[string]*followed
	// 2026-07-28: the subscriptions/listen requests wirecheck sent, by
	// id key (subscriptions.go), and the requests that set a log level
	// (logging.go).
	subs    map[string]*subscription
	leveled []*peer.Call
	// resSubs are the resources wirecheck subscribed to, by URI
	// (resources.go, before 2026-07-28).
	resSubs map[string]*resSub
	// record is what was judged: a scenario asks it (judged, seen)
	// instead of counting by hand.
	record record
}

// followed is a request of wirecheck's the judge follows: its method
// and the resource it names.
type followed struct {
	method string
	uri    string
}

// record is what the judge saw and judged in one process: the frames of
// the server by method, and each rule's verdicts.
type record struct {
	seen  map[string]int
	rules map[string]*tally
}

// tally counts one rule's verdicts.
type tally struct{ pass, fail, skip int }

func (r *record) rule(id string) *tally {
	if r.rules == nil {
		r.rules = map[string]*tally{}
	}
	t := r.rules[id]
	if t == nil {
		t = &tally{}
		r.rules[id] = t
	}
	return t
}

// counted passes a judge's verdicts on to the peer and records them; j.mu
// is held whenever it is called.
type counted struct {
	v peer.Verdicts
	r *record
}

func (c counted) Pass(rule string, seq int) { c.r.rule(rule).pass++; c.v.Pass(rule, seq) }
func (c counted) Fail(rule string, seq int, msg, expected, actual string) {
	c.r.rule(rule).fail++
	c.v.Fail(rule, seq, msg, expected, actual)
}
func (c counted) Skip(rule, why string) { c.r.rule(rule).skip++; c.v.Skip(rule, why) }

// JudgeRules are the rules the frame judge decides (a test checks that it
// decides no other): a scenario deciding none of them shows the judge
// nothing it does not see in the others'.
var JudgeRules = []string{
	"MCP-LOGGING-1", "MCP-LOGGING-3", "MCP-PROGRESS-1", "MCP-PROGRESS-2", "MCP-LISTCHANGED-1", "MCP-CLIENT-1", "MCP-STDIO-5",
	"MCP-HTTP-STREAM-4", "MCP-HTTP-STREAM-5", "MCP-HTTP-GET-2", "MCP-SUBS-1", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4",
	"MCP-RESOURCES-7", "MCP-RESOURCES-8",
}

// NewJudge makes the frame judge of one MCP server process.
func NewJudge(p *spec.Protocol) peer.Judge {
	j := &judge{progress: map[string]*tracked{}, tokens: map[string]string{}, calls: map[string]*followed{},
		subs: map[string]*subscription{}, resSubs: map[string]*resSub{}}
	if p != nil && p.Versions != nil {
		j.known = p.Versions.IDs()
		j.discover = newestWith(p, revtable.Discover)
	}
	return j
}

// judgeOf is the judge of the current process (a bare one when the peer
// has none, as in a test that wires no judge).
func judgeOf(e *scenario.Env) *judge {
	if j, ok := e.Judge().(*judge); ok {
		return j
	}
	return e.State(judgeKey{}, func() any { return NewJudge(e.Protocol) }).(*judge)
}

type judgeKey struct{}

// counts is what the judge has judged so far in this process.
type counts struct{ logs, progresses, ordered, listChanged, requests int }

func (j *judge) counts() counts {
	j.mu.Lock()
	defer j.mu.Unlock()
	seen := j.record.seen
	return counts{
		logs:       seen["notifications/message"],
		progresses: seen["notifications/progress"],
		// Every progress notification of a request in flight gets one
		// MCP-PROGRESS-2 verdict.
		ordered:     j.record.rule("MCP-PROGRESS-2").total(),
		listChanged: seen["notifications/tools/list_changed"] + seen["notifications/prompts/list_changed"] + seen["notifications/resources/list_changed"],
		requests:    j.record.rule("MCP-STDIO-5").fail,
	}
}

func (t tally) total() int { return t.pass + t.fail + t.skip }

// judged is how rule was judged in this process so far.
func (j *judge) judged(rule string) tally {
	j.mu.Lock()
	defer j.mu.Unlock()
	return *j.record.rule(rule)
}

// seen is how many frames of the server of method the judge saw.
func (j *judge) seen(method string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.record.seen[method]
}

// cancel stops judging the progress of the request that carried tok:
// wirecheck cancelled it in a way no frame shows (a closed stream).
func (j *judge) cancel(tok string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if t := j.progress[peer.Key(tok)]; t != nil {
		t.cancelled = true
	}
}

// Sent learns the progress tokens of the requests wirecheck sends, the
// requests it cancels, what its initialize asks for and declares, the
// subscriptions it opens and the requests that set a log level.
func (j *judge) Sent(raw []byte, c *peer.Call) {
	j.mu.Lock()
	j.sends++
	if c != nil {
		j.following(c.Key)
	}
	j.mu.Unlock()
	method := ""
	if c != nil {
		method = c.Method
	}
	hasTok := c != nil && bytes.Contains(raw, []byte("progressToken"))
	cancels := bytes.Contains(raw, []byte("notifications/cancelled"))
	leveled := c != nil && bytes.Contains(raw, []byte(metaLogLevel))
	follows := method == "initialize" || method == "subscriptions/listen" || method == "resources/subscribe" || method == "resources/unsubscribe"
	if !hasTok && !cancels && !leveled && !follows {
		return
	}
	v, err := schema.Decode(raw)
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if tok, ok := peer.Pointer(v, "/params/_meta/progressToken"); ok && c != nil {
		k := peer.Key(tok)
		j.progress[k] = &tracked{call: c}
		j.tokens[c.Key] = k
	}
	if leveled {
		if _, ok := peer.Pointer(v, "/params/_meta/"+escape(metaLogLevel)); ok {
			j.leveled = append(j.leveled, c)
		}
	}
	switch method {
	case "initialize":
		j.requested, _ = field(&peer.Inbound{Value: v}, "/params/protocolVersion").(string)
		j.declared, _ = field(&peer.Inbound{Value: v}, "/params/capabilities").(map[string]any)
	case "subscriptions/listen":
		filter, _ := field(&peer.Inbound{Value: v}, "/params/notifications").(map[string]any)
		j.subs[c.Key] = &subscription{filter: filter}
	case "resources/subscribe", "resources/unsubscribe":
		uri, _ := field(&peer.Inbound{Value: v}, "/params/uri").(string)
		j.calls[c.Key] = &followed{method: method, uri: uri}
		if method == "resources/subscribe" {
			j.resSubs[uri] = &resSub{}
		}
	}
	if m, _ := peer.Pointer(v, "/method"); m == "notifications/cancelled" {
		id, _ := peer.Pointer(v, "/params/requestId")
		if t := j.progress[j.tokens[peer.Key(id)]]; t != nil {
			t.cancelled = true
		}
		if sub := j.subs[peer.Key(id)]; sub != nil {
			sub.closed, sub.closedAt = true, j.sends
		}
	}
}

// Received learns the capabilities of a handshake's result and judges
// log, progress and list_changed notifications against what the process
// declared and was sent.
func (j *judge) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	switch in.Kind.Role {
	case spec.RoleResponse:
		j.answered(in, method)
		if method != "initialize" && method != "server/discover" {
			return
		}
		r, ok := in.Field("/result")
		if !ok {
			return
		}
		caps, _ := peer.Pointer(r, "/capabilities")
		answered, _ := field(in, "/result/protocolVersion").(string)
		j.mu.Lock()
		j.shook, j.modern = true, method == "server/discover"
		j.caps, _ = caps.(map[string]any)
		j.version = j.requested
		if slices.Contains(j.known, answered) {
			j.version = answered
		}
		j.mu.Unlock()
	case spec.RoleRequest:
		m, _ := field(in, "/method").(string)
		j.request(in, m, counted{v, &j.record})
	case spec.RoleNotification:
		m, _ := field(in, "/method").(string)
		j.notification(in, m, counted{v, &j.record})
	}
}

// request judges a request the server sent: none in 2026-07-28
// (MCP-STDIO-5), else only for a capability wirecheck declared in its
// initialize and the negotiated revision has (MCP-CLIENT-1).
func (j *judge) request(in *peer.Inbound, method string, v peer.Verdicts) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.shook {
		return
	}
	if j.modern {
		v.Fail("MCP-STDIO-5", in.Seq, "the server wrote a request ("+method+") to stdout in revision "+j.discover,
			"no JSON-RPC request from the server (2026-07-28 uses multi round-trip results)", string(in.Raw))
		return
	}
	capability := map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}[method]
	if capability == "" {
		return
	}
	_, declared := j.declared[capability]
	_, inRevision := clientCaps(j.version)[capability]
	if !declared || !inRevision {
		v.Fail("MCP-CLIENT-1", in.Seq, "the server sent "+method+" although wirecheck did not declare the "+capability+" capability (it asked for revision "+j.requested+", the server negotiated "+j.version+")",
			"only requests for capabilities wirecheck declared", string(in.Raw))
		return
	}
	v.Pass("MCP-CLIENT-1", in.Seq)
}

func (j *judge) notification(in *peer.Inbound, method string, v peer.Verdicts) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.shook {
		// Before a handshake's result nothing was declared to judge by.
		return
	}
	if j.record.seen == nil {
		j.record.seen = map[string]int{}
	}
	j.record.seen[method]++
	if j.modern {
		j.judgeUnrelated(in, method, v)
	}
	switch method {
	case "notifications/message":
		if j.modern {
			// 2026-07-28 has no logging capability to declare: a log
			// belongs to a request that set a level (MCP-LOGGING-3).
			j.judgeModernLog(in, v)
			return
		}
		if _, ok := j.caps["logging"]; ok {
			v.Pass("MCP-LOGGING-1", in.Seq)
		} else {
			v.Fail("MCP-LOGGING-1", in.Seq, "the server sent a log notification but did not declare the logging capability",
				"capabilities.logging in the initialize result", "capabilities "+show(j.caps))
		}
	case "notifications/progress":
		j.judgeProgress(in, v)
	case "notifications/subscriptions/acknowledged":
		if j.modern {
			j.judgeAck(in, v)
		}
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		if j.modern {
			// 2026-07-28 sends them on subscriptions/listen streams.
			j.judgeStream(in, method, v)
			return
		}
		capability := strings.Split(method, "/")[1]
		if m, _ := j.caps[capability].(map[string]any); m["listChanged"] == true {
			v.Pass("MCP-LISTCHANGED-1", in.Seq)
			return
		}
		v.Fail("MCP-LISTCHANGED-1", in.Seq, "the server sent "+method+" but did not declare "+capability+".listChanged",
			"capabilities."+capability+".listChanged: true in the initialize result", "capabilities "+show(j.caps))
	case "notifications/resources/updated":
		if j.modern {
			j.judgeStream(in, method, v)
			return
		}
		j.judgeUpdated(in, v)
	}
}

// answered learns from the answer to a request the judge follows: a
// subscription a refusal did not open, the end of one an unsubscribe's
// answer marks, and, once a request sent after a subscriptions/listen was
// cancelled is answered, that the server has read the cancellation.
func (j *judge) answered(in *peer.Inbound, method string) {
	id, _ := in.Field("/id")
	key := peer.Key(id)
	_, ok := in.Field("/result")
	j.mu.Lock()
	defer j.mu.Unlock()
	if f := j.calls[key]; f != nil && id != nil {
		delete(j.calls, key)
		switch {
		case f.method == "resources/subscribe" && !ok:
			delete(j.resSubs, f.uri)
		case f.method == "resources/unsubscribe" && ok:
			if sub := j.resSubs[f.uri]; sub != nil {
				sub.until, sub.untilStream = in.Seq, orderedStream(in)
			}
		}
	}
	j.settle(in, key)
}

// judgeProgress judges a progress notification against the tokens
// wirecheck sent (MCP-PROGRESS-1), the order of its values and its
// request's response (MCP-PROGRESS-2), and the stream it came on; j.mu
// is held.
func (j *judge) judgeProgress(in *peer.Inbound, v peer.Verdicts) {
	tok := peer.Key(field(in, "/params/progressToken"))
	t := j.progress[tok]
	if t != nil && t.cancelled {
		return
	}
	if t == nil {
		v.Fail("MCP-PROGRESS-1", in.Seq, "progress notification for token "+tok+", which wirecheck never sent",
			"a progressToken of a request in flight", show(field(in, "/params")))
		return
	}
	v.Pass("MCP-PROGRESS-1", in.Seq)
	j.judgeHTTPStream(in, t, v)
	val, _ := number(field(in, "/params/progress"))
	stream := orderedStream(in)
	if r := t.call.Answer(); r != nil && r.Seq < in.Seq {
		if orderedStream(r) != stream {
			v.Skip("MCP-PROGRESS-2", fmt.Sprintf("a progress notification was read after its request's response (transcript line %d), but on another stream: over Streamable HTTP it may have been written before it", r.Seq))
			return
		}
		v.Fail("MCP-PROGRESS-2", in.Seq, "progress notification after the response to its request (transcript line "+fmt.Sprint(r.Seq)+")",
			"no progress after completion", show(field(in, "/params")))
		return
	}
	if t.last == nil {
		t.last = map[string]float64{}
	}
	if last, seen := t.last[stream]; seen && val <= last {
		v.Fail("MCP-PROGRESS-2", in.Seq, fmt.Sprintf("progress went from %v to %v", last, val),
			"a progress value greater than the one before", show(field(in, "/params")))
	} else {
		v.Pass("MCP-PROGRESS-2", in.Seq)
	}
	t.last[stream] = val
}

// judgeHTTPStream judges the HTTP stream a progress notification came on: a
// POST's stream carries the progress of the request it carried
// (MCP-HTTP-STREAM-4, SHOULD; 2026-07-28 MCP-HTTP-STREAM-5, MUST), the GET
// stream none of a request in flight (MCP-HTTP-GET-2). A progress token is
// the only evidence of what a message relates to. j.mu is held.
func (j *judge) judgeHTTPStream(in *peer.Inbound, t *tracked, v peer.Verdicts) {
	via := in.HTTP
	if via == nil {
		return
	}
	rule := "MCP-HTTP-STREAM-4"
	if j.modern {
		rule = "MCP-HTTP-STREAM-5"
	}
	// A GET that resumes a POST's stream (Last-Event-ID) carries that
	// request's key: it is the POST's stream, not the standalone one.
	standalone := via.Verb == http.MethodGet && via.For == ""
	if standalone {
		rule = "MCP-HTTP-GET-2"
	}
	if standalone {
		if r := t.call.Answer(); r == nil || r.Seq > in.Seq {
			v.Fail("MCP-HTTP-GET-2", in.Seq, "the GET stream carried the progress of a request in flight ("+t.call.Method+")",
				"on the GET stream, messages unrelated to any running request", string(in.Raw))
			return
		}
		v.Pass("MCP-HTTP-GET-2", in.Seq)
		return
	}
	if via.For == "" || via.For == t.call.Key {
		v.Pass(rule, in.Seq)
		return
	}
	v.Fail(rule, in.Seq, "the stream of request "+via.For+" carried the progress of another request ("+t.call.Method+", "+t.call.Key+")",
		"messages related to the request the POST carried", string(in.Raw))
}
