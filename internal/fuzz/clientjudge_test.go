package fuzz_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/suite/mcpclient"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Issue 29: in the client role a frame is judged by one judge whichever
// command provoked it. A drawn conversation (the client's requests,
// notifications and answers; wirecheck's requests and answers) is fed
// to the peer run's path wires and to the one fuzz's path wires, and
// every observation (rule, verdict, transcript line, message) must be
// the same. On fuzz's path the step handler writes wirecheck's answers;
// on run's, as a scenario does, wirecheck replies with the same bytes
// right after the request.

// clientEvent is one frame of a drawn client conversation.
type clientEvent struct {
	fromClient bool
	raw        []byte
	// answer: a client request wirecheck's step handler answers.
	answer bool
}

var clientIDs = []any{1, 2, 3, "a", "b"}

func drawClientConversation(t *rapid.T, rev string, modern bool) []clientEvent {
	var out []clientEvent
	client := func(v map[string]any, answer bool) {
		b, _ := json.Marshal(v)
		out = append(out, clientEvent{fromClient: true, raw: b, answer: answer})
	}
	caps := map[string]any{}
	for _, f := range []string{"roots", "sampling", "elicitation"} {
		if rapid.Bool().Draw(t, "declares "+f) {
			caps[f] = map[string]any{}
		}
	}
	meta := func() map[string]any {
		m := map[string]any{"io.modelcontextprotocol/protocolVersion": rev}
		if rapid.IntRange(0, 4).Draw(t, "meta caps") > 0 {
			m["io.modelcontextprotocol/clientCapabilities"] = caps
		}
		if rapid.IntRange(0, 4).Draw(t, "meta info") > 0 {
			m["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "drawn", "version": "1"}
		}
		return m
	}
	request := func(method string, id any) {
		params := map[string]any{}
		if method == "initialize" {
			params = map[string]any{"protocolVersion": rev, "capabilities": caps, "clientInfo": map[string]any{"name": "drawn", "version": "1"}}
		} else if modern {
			params["_meta"] = meta()
		}
		client(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}, true)
	}
	if !modern && rapid.IntRange(0, 5).Draw(t, "opens with initialize") > 0 {
		request("initialize", rapid.SampledFrom(clientIDs).Draw(t, "init id"))
	}
	outID := 9001
	var asked []int
	n := rapid.IntRange(0, 14).Draw(t, "events")
	for range n {
		switch rapid.IntRange(0, 5).Draw(t, "event") {
		case 0, 1:
			m := rapid.SampledFrom([]string{"tools/list", "tools/call", "resources/list", "prompts/list", "ping", "logging/setLevel", "completion/complete", "initialize", "server/discover"}).Draw(t, "method")
			request(m, rapid.SampledFrom(clientIDs).Draw(t, "id"))
		case 2:
			switch rapid.IntRange(0, 2).Draw(t, "notification") {
			case 0:
				client(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, false)
			case 1:
				client(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": rapid.SampledFrom(clientIDs).Draw(t, "cancelled")}}, false)
			default:
				client(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": rapid.SampledFrom([]any{"wirecheck-sampling", "t1", 7}).Draw(t, "token"), "progress": 1}}, false)
			}
		case 3, 4:
			m := rapid.SampledFrom([]string{"ping", "roots/list", "sampling/createMessage", "elicitation/create"}).Draw(t, "wirecheck asks")
			req := map[string]any{"jsonrpc": "2.0", "id": outID, "method": m, "params": map[string]any{}}
			if m == "sampling/createMessage" && rapid.Bool().Draw(t, "with a token") {
				req["params"] = map[string]any{"_meta": map[string]any{"progressToken": rapid.SampledFrom([]any{"wirecheck-sampling", "t1"}).Draw(t, "its token")}}
			}
			b, _ := json.Marshal(req)
			out = append(out, clientEvent{raw: b})
			asked = append(asked, outID)
			outID++
		default:
			if len(asked) == 0 {
				continue
			}
			id := rapid.SampledFrom(asked).Draw(t, "answers")
			ans := rapid.SampledFrom([]map[string]any{
				{"result": map[string]any{}},
				{"result": map[string]any{"pong": true}},
				{"result": map[string]any{"roots": []any{}}},
				{"error": map[string]any{"code": -32601, "message": "no"}},
			}).Draw(t, "answer")
			v := map[string]any{"jsonrpc": "2.0", "id": id}
			for k, x := range ans {
				v[k] = x
			}
			client(v, false)
		}
	}
	return out
}

// observed collects a peer's observations in order.
type observed struct {
	mu  sync.Mutex
	obs []string
}

func (o *observed) add(ob verdict.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs = append(o.obs, fmt.Sprintf("%s %s line %d: %s", ob.Rule, ob.Verdict, ob.Seq, ob.Message))
}

// feedClient plays events through a peer made of o; reply, when set,
// writes wirecheck's answer to a client request as a scenario does.
func feedClient(o session.Options, events []clientEvent, reply peer.Handler) []string {
	var got observed
	o.Observe, o.Recorder = got.add, transcript.NewRecorder()
	tr := newReplayed()
	p := peer.New(o.PeerOptions(tr))
	defer func() { _ = p.Close() }()
	for _, e := range events {
		if !e.fromClient {
			_, err := p.Request(e.raw)
			Expect(err).NotTo(HaveOccurred())
			continue
		}
		tr.give(transport.Frame{Raw: e.raw, At: time.Now()})
		if e.answer && reply != nil {
			v, err := schema.Decode(e.raw)
			Expect(err).NotTo(HaveOccurred())
			if b := reply(&peer.Inbound{Raw: e.raw, Value: v}); b != nil {
				_, _ = p.Reply(b)
			}
		}
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	return slices.Clone(got.obs)
}

var _ = Describe("the client role's frame judge on run's path and fuzz's", func() {
	It("gives every drawn client conversation the same verdicts, frame by frame, on both", func() {
		b, err := protocols.Load("mcp-client")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Judge).NotTo(BeNil())
		revs := b.Protocol.Versions.IDs()
		protos := map[string]*spec.Protocol{}
		for _, r := range revs {
			protos[r], err = b.Protocol.ForVersion(r)
			Expect(err).NotTo(HaveOccurred())
		}
		campaigns := map[string]*fuzz.Campaign{}
		for _, r := range revs {
			campaigns[r], err = fuzz.New(fuzz.Config{Protocol: protos[r], Schemas: b.Schemas, Handler: b.StepHandler(protos[r]), Judge: b.Judge,
				Target: target.Target{Argv: []string{"replay"}, Client: true}, Runs: 1})
			Expect(err).NotTo(HaveOccurred())
		}
		// A campaign run earlier in this process set rapid's flags for
		// itself.
		Expect(flag.Set("rapid.checks", "200")).To(Succeed())
		Expect(flag.Set("rapid.seed", "29")).To(Succeed())
		judgeRulesSeen := map[string]bool{}
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			rev := rapid.SampledFrom(revs).Draw(t, "revision")
			p := protos[rev]
			modern := !p.Has(rev, revtable.Handshake) && rapid.Bool().Draw(t, "speaks the revision")
			events := drawClientConversation(t, rev, modern)
			// Run's path: the runner's session options (certify gives it
			// the bundle's handler, none here: scenarios answer).
			run := feedClient(session.Options{Protocol: p, Schemas: b.Schemas, Handler: b.Handler, Judge: b.Judge}, events, b.StepHandler(p))
			fz := feedClient(fuzz.SessionOptions(campaigns[rev], func(verdict.Observation) {}), events, nil)
			if !slices.Equal(run, fz) {
				t.Fatalf("run's path:\n%v\nfuzz's path:\n%v", run, fz)
			}
			for _, o := range run {
				if f := strings.Fields(o); slices.Contains(mcpclient.JudgeRules, f[0]) {
					judgeRulesSeen[f[0]+" "+f[1]] = true
				}
			}
		})
		// The conversations reached the judge's rules, failing and
		// passing: the equality is not that of two silent judges.
		for _, k := range []string{"MCP-CLIENT-JSONRPC-2 fail", "MCP-CLIENT-LIFECYCLE-1 fail", "MCP-CLIENT-LIFECYCLE-3 pass", "MCP-CLIENT-PING-1 fail", "MCP-CLIENT-ROOTS-1 fail", "MCP-CLIENT-CANCEL-1 fail", "MCP-CLIENT-PROGRESS-1 fail", "MCP-CLIENT-META-1 fail"} {
			Expect(judgeRulesSeen).To(HaveKey(k))
		}
	})
})
