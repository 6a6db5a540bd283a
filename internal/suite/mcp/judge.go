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
	// requests counts the requests the server sent after a handshake.
	requests int
	// progress maps a progress token wirecheck sent (canonical JSON) to
	// its request; tokens maps a request's id key to its token.
	progress map[string]*tracked
	tokens   map[string]string
	// logs and progresses count the notifications judged; ordered the
	// progress notifications MCP-PROGRESS-2 judged (of a request
	// wirecheck sent, not cancelled); listChanged the list_changed ones.
	logs, progresses, ordered, listChanged int
	// streamed holds the stream rules judgeHTTPStream observed.
	streamed map[string]bool
}

// NewJudge makes the frame judge of one MCP server process.
func NewJudge(p *spec.Protocol) peer.Judge {
	j := &judge{progress: map[string]*tracked{}, tokens: map[string]string{}, streamed: map[string]bool{}}
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
	return counts{j.logs, j.progresses, j.ordered, j.listChanged, j.requests}
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
// requests it cancels, and what its initialize asks for and declares.
func (j *judge) Sent(raw []byte, c *peer.Call) {
	hasTok := c != nil && bytes.Contains(raw, []byte("progressToken"))
	cancels := bytes.Contains(raw, []byte("notifications/cancelled"))
	inits := c != nil && c.Method == "initialize"
	if !hasTok && !cancels && !inits {
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
	if inits {
		j.requested, _ = field(&peer.Inbound{Value: v}, "/params/protocolVersion").(string)
		j.declared, _ = field(&peer.Inbound{Value: v}, "/params/capabilities").(map[string]any)
	}
	if m, _ := peer.Pointer(v, "/method"); m == "notifications/cancelled" {
		id, _ := peer.Pointer(v, "/params/requestId")
		if t := j.progress[j.tokens[peer.Key(id)]]; t != nil {
			t.cancelled = true
		}
	}
}

// Received learns the capabilities of a handshake's result and judges
// log, progress and list_changed notifications against what the process
// declared and was sent.
func (j *judge) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	switch in.Kind.Role {
	case spec.RoleResponse:
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
		j.request(in, m, v)
	case spec.RoleNotification:
		m, _ := field(in, "/method").(string)
		j.notification(in, m, v)
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
		j.requests++
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
	switch method {
	case "notifications/message":
		j.logs++
		if _, ok := j.caps["logging"]; ok {
			v.Pass("MCP-LOGGING-1", in.Seq)
		} else {
			v.Fail("MCP-LOGGING-1", in.Seq, "the server sent a log notification but did not declare the logging capability",
				"capabilities.logging in the initialize result", "capabilities "+show(j.caps))
		}
	case "notifications/progress":
		j.progresses++
		j.judgeProgress(in, v)
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		j.listChanged++
		if j.modern {
			// 2026-07-28 sends them on subscriptions/listen streams
			// (judged by the suite, MCP-SUBS-*).
			return
		}
		capability := strings.Split(method, "/")[1]
		if m, _ := j.caps[capability].(map[string]any); m["listChanged"] == true {
			v.Pass("MCP-LISTCHANGED-1", in.Seq)
			return
		}
		v.Fail("MCP-LISTCHANGED-1", in.Seq, "the server sent "+method+" but did not declare "+capability+".listChanged",
			"capabilities."+capability+".listChanged: true in the initialize result", "capabilities "+show(j.caps))
	}
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
	j.ordered++
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
	j.streamed[rule] = true
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

// streamedRule reports whether a progress notification decided rule.
func (j *judge) streamedRule(rule string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.streamed[rule]
}
