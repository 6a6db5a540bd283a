// Package sophon holds the scenarios of the sophon profile: the promises
// Sophon's MCP API reference (shared/seeds/004_a446729fb706fc8c.txt) makes
// beyond MCP. They ride on the MCP suite's session (its handshake and its
// judging of every frame); the MCP scenarios run before them.
package sophon

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
)

const file = "internal/suite/sophon"

// RateParam turns the rate limit check on (--param rate_limit=check): it
// spends the token's budget of the minute, so a default run leaves it.
const RateParam = "rate_limit"

// Scenarios returns the sophon scenarios, run after MCP's.
func Scenarios() []*scenario.Scenario {
	out := []*scenario.Scenario{{
		Name:  "sophon-auth",
		Title: "over HTTP, a request without a token and one with a token no one issued are refused 401 with JSON-RPC error -32600",
		Rules: []string{"SOPHON-AUTH-1", "SOPHON-AUTH-2"},
		Run:   auth,
	}, {
		Name:  "sophon-initialize",
		Title: "initialize 2024-11-05 is answered 2024-11-05 with the documented capabilities; notifications/initialized gets no response",
		Rules: []string{"SOPHON-INIT-1", "SOPHON-INIT-2", "SOPHON-INIT-3"},
		Run:   initialize,
	}, {
		Name:  "sophon-tools",
		Title: "memory.search is listed with its documented schema and called; a call without query is -32602 naming it",
		Rules: []string{"SOPHON-TOOLS-1", "SOPHON-TOOLS-2", "SOPHON-ERROR-32602", "SOPHON-PARAMS-1"},
		Run:   tools,
	}, {
		Name:  "sophon-errors",
		Title: "the error code table: -32700, -32600 and -32601 provoked; the codes no client can provoke skipped with the reason",
		Rules: []string{"SOPHON-ERROR-32700", "SOPHON-ERROR-32600", "SOPHON-ERROR-32601", "SOPHON-ERROR-32603",
			"SOPHON-ERROR-32000", "SOPHON-ERROR-32001", "SOPHON-ERROR-32002", "SOPHON-ERROR-32003"},
		Run: errorCodes,
	}, {
		Name:  "sophon-resources",
		Title: "resources have sophon:// URIs, read as text or base64 blob of the listed mimeType; subscribe, updates and unsubscribe",
		Rules: []string{"SOPHON-RES-1", "SOPHON-RES-2", "SOPHON-RES-3", "SOPHON-RES-4", "SOPHON-RES-5"},
		Run:   resources,
	}, {
		Name:  "sophon-prompts",
		Title: "prompts/list holds the four curated prompts; summarize-document renders a listed document's text",
		Rules: []string{"SOPHON-PROMPTS-1", "SOPHON-PROMPTS-2"},
		Run:   prompts,
	}, {
		// Last: it spends the token's budget of the minute.
		Name:  "sophon-rate-limit",
		Title: "with --param rate_limit=check: over HTTP the 61st request of a token within a minute is -32004 with Retry-After",
		Rules: []string{"SOPHON-RATE-1"},
		Run:   rateLimit,
	}}
	for _, s := range out {
		s.File = file
	}
	return out
}

func skipAll(e *scenario.Env, why string, rules ...string) {
	for _, r := range rules {
		e.Skip(r, why)
	}
}

func jsonBytes(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func show(v any) string { return scenario.Show(v, 300) }

func field(in *peer.Inbound, ptr string) any {
	if in == nil {
		return nil
	}
	v, _ := in.Field(ptr)
	return v
}

func isResult(in *peer.Inbound) bool {
	_, ok := field(in, "/result").(map[string]any)
	return ok
}

func raw(in *peer.Inbound) string {
	if in == nil {
		return "nothing"
	}
	return string(in.Raw)
}

// auth probes the endpoint without credentials and with a token no one
// issued: the first request of a session over Streamable HTTP, the stream's
// GET over the legacy transport (a POST's answer would come on the stream).
func auth(e *scenario.Env) error {
	x, _ := mcpsuite.Exchanger(e, "", "SOPHON-AUTH-1", "SOPHON-AUTH-2")
	if x == nil {
		return nil
	}
	base := httpmcp.Exchange{Method: http.MethodPost, Body: jsonBytes(mcpsuite.InitRequest(e.Protocol.Version))}
	if x.Kind() == "sse" {
		base = httpmcp.Exchange{Method: http.MethodGet, Until: func(sse.Event) bool { return true }}
	}
	for _, try := range []struct {
		what string
		set  map[string]string
	}{{"without Authorization", nil}, {"with a token no one issued", map[string]string{"Authorization": "Bearer wirecheck-never-issued"}}} {
		ex := base
		ex.Set, ex.Drop = try.set, []string{"Mcp-Session-Id"}
		if try.set == nil {
			ex.Drop = append(ex.Drop, "Authorization")
		}
		res, seq := mcpsuite.Probe(e, x, "the first request of a session (over sse: the stream) "+try.what, ex)
		switch {
		case res == nil:
			e.Fail("SOPHON-AUTH-1", seq, "a request "+try.what+" got no answer", "HTTP status 401", "nothing")
			e.Fail("SOPHON-AUTH-2", seq, "a request "+try.what+" got no answer", "JSON-RPC error -32600", "nothing")
			continue
		case res.Status == http.StatusUnauthorized:
			e.Pass("SOPHON-AUTH-1", seq)
		default:
			e.Fail("SOPHON-AUTH-1", seq, "a request "+try.what+" was not answered 401", "HTTP status 401", mcpsuite.Answered(res))
		}
		if c, ok := refusalCode(res, seq); ok && c == -32600 {
			e.Pass("SOPHON-AUTH-2", seq)
		} else {
			e.Fail("SOPHON-AUTH-2", seq, "a request "+try.what+" was not answered with JSON-RPC error -32600", "a JSON-RPC error with code -32600", mcpsuite.Answered(res)+" "+show(string(res.Body)))
		}
	}
	return nil
}

// refusalCode is the code of the JSON-RPC error a refusal carried.
func refusalCode(res *httpmcp.Result, seq int) (int64, bool) {
	for _, in := range mcpsuite.Messages(res, seq) {
		if c, ok := mcpsuite.ErrorCode(in); ok {
			return c, true
		}
	}
	return 0, false
}

func initialize(e *scenario.Env) error {
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return err
	}
	seq := s.InitSeq()
	// SOPHON-INIT-1 is a rule of the revision the document shows (its
	// versions:), which this run's initialize asked for; in another run the
	// runner skips it.
	if r := e.Protocol.Rule("SOPHON-INIT-1"); r != nil && e.Protocol.Applies(r) {
		if asked := e.Protocol.Version; s.Answered() == asked {
			e.Pass("SOPHON-INIT-1", seq)
		} else {
			e.Fail("SOPHON-INIT-1", seq, "initialize asking for "+asked+" was answered with another revision", `"protocolVersion": "`+asked+`"`, show(s.Answered()))
		}
	}
	caps := s.Caps()
	var missing []string
	for _, c := range []struct{ cap, flag string }{{"tools", "listChanged"}, {"resources", "listChanged"}, {"resources", "subscribe"}, {"prompts", "listChanged"}} {
		m, _ := caps[c.cap].(map[string]any)
		if m[c.flag] != true {
			missing = append(missing, c.cap+"."+c.flag)
		}
	}
	if len(missing) == 0 {
		e.Pass("SOPHON-INIT-2", seq)
	} else {
		e.Fail("SOPHON-INIT-2", seq, "the initialize result does not declare "+strings.Join(missing, ", "),
			`"tools": { "listChanged": true }, "resources": { "listChanged": true, "subscribe": true }, "prompts": { "listChanged": true }`, show(caps))
	}
	if in := s.Unanswered("notifications/initialized", nil); in != nil {
		e.Fail("SOPHON-INIT-3", in.Seq, "notifications/initialized was answered", "no response", raw(in))
	} else {
		e.Pass("SOPHON-INIT-3", -1)
	}
	return nil
}

const search = "memory.search"

func tools(e *scenario.Env) error {
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return err
	}
	items, listed, err := listAll(s, "tools/list", "tools")
	if err != nil {
		return err
	}
	var def map[string]any
	for _, it := range items {
		if m, _ := it.(map[string]any); m != nil && m["name"] == search {
			def = m
		}
	}
	if def == nil {
		skipAll(e, "tools/list does not list memory.search: the expose.tools allowlist may leave it out ("+show(field(listed, "/result"))+")",
			"SOPHON-TOOLS-1", "SOPHON-TOOLS-2", "SOPHON-ERROR-32602", "SOPHON-PARAMS-1")
		return nil
	}
	if why := schemaMismatch(def["inputSchema"]); why != "" {
		e.Fail("SOPHON-TOOLS-1", listed.Seq, "memory.search's inputSchema "+why, `{"type":"object","properties":{"query":{"type":"string"},"scope":{"type":"string","enum":["user","agent","all"]},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}`, show(def["inputSchema"]))
	} else {
		e.Pass("SOPHON-TOOLS-1", listed.Seq)
	}
	in, err := s.Call("tools/call", map[string]any{"name": search, "arguments": map[string]any{"query": "project deadline", "limit": 5}})
	if err != nil {
		return err
	}
	if _, ok := field(in, "/result/content").([]any); ok {
		e.Pass("SOPHON-TOOLS-2", in.Seq)
	} else {
		e.Fail("SOPHON-TOOLS-2", in.Seq, "tools/call memory.search with a query and a limit was not answered with content", `a result with "content": [...]`, raw(in))
	}
	in, err = s.Call("tools/call", map[string]any{"name": search, "arguments": map[string]any{"limit": 5}})
	if err != nil {
		return err
	}
	c, isErr := mcpsuite.ErrorCode(in)
	if !isErr || c != -32602 {
		e.Fail("SOPHON-ERROR-32602", in.Seq, "tools/call memory.search without its required query was not answered with error -32602", "a JSON-RPC error with code -32602", raw(in))
		e.Skip("SOPHON-PARAMS-1", "no -32602 answer to read a message from (SOPHON-ERROR-32602)")
		return nil
	}
	e.Pass("SOPHON-ERROR-32602", in.Seq)
	if msg, _ := field(in, "/error/message").(string); strings.Contains(msg, "query") {
		e.Pass("SOPHON-PARAMS-1", in.Seq)
	} else {
		e.Fail("SOPHON-PARAMS-1", in.Seq, "the -32602 message does not name the missing parameter query", "a message naming 'query' (\"Invalid params: 'query' is required\")", show(msg))
	}
	return nil
}

// schemaMismatch says how memory.search's inputSchema departs from the
// documented one ("" when it does not). More properties are allowed: the
// document shows the ones it has.
func schemaMismatch(v any) string {
	sch, _ := v.(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	prop := func(name string) map[string]any { m, _ := props[name].(map[string]any); return m }
	req, _ := sch["required"].([]any)
	switch q, sc, l := prop("query"), prop("scope"), prop("limit"); {
	case sch["type"] != "object":
		return "is not of type object"
	case q == nil || q["type"] != "string":
		return "has no string property query"
	case !slices.Contains(req, any("query")):
		return "does not require query"
	case slices.Contains(req, any("scope")) || slices.Contains(req, any("limit")):
		return "requires scope or limit, which the document leaves optional"
	case sc == nil || sc["type"] != "string" || !sameSet(sc["enum"], "user", "agent", "all"):
		return "has no scope string of user, agent, all"
	case l == nil || l["type"] != "integer" || !num(l["minimum"], 1) || !num(l["maximum"], 100):
		return "has no limit integer from 1 to 100"
	}
	return ""
}

func sameSet(v any, want ...string) bool {
	got, _ := v.([]any)
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !slices.Contains(got, any(w)) {
			return false
		}
	}
	return true
}

func num(v any, want float64) bool {
	n, ok := v.(interface{ Float64() (float64, error) })
	if ok {
		f, err := n.Float64()
		return err == nil && f == want
	}
	f, ok := v.(float64)
	return ok && f == want
}

// unprovoked are the error codes whose condition no client can bring
// about, each with the reason.
var unprovoked = []struct{ rule, why string }{
	{"SOPHON-ERROR-32603", "no request a client can send is sure to make a correct server fail inside"},
	{"SOPHON-ERROR-32000", "which tools the expose.tools allowlist leaves out is the server's configuration: a client sees only the allowed ones, and calling an unlisted name is an unknown tool (MCP)"},
	{"SOPHON-ERROR-32001", "an approval is rejected by a person on the Dashboard or mobile"},
	{"SOPHON-ERROR-32002", "an approval times out after a wait the document does not bound, and only for tools of High risk, which it does not name"},
	{"SOPHON-ERROR-32003", "the budget is the server's configuration; the document gives no way to spend it"},
}

func errorCodes(e *scenario.Env) error {
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return err
	}
	for _, u := range unprovoked {
		e.Skip(u.rule, "not provoked: "+u.why)
	}
	for _, b := range []struct {
		rule, line string
		code       int64
	}{
		{"SOPHON-ERROR-32700", `{"jsonrpc": "2.0", "id": "wc-sophon-parse", "method": "ping",}`, -32700},
		{"SOPHON-ERROR-32600", `{"jsonrpc": "2.0", "id": "wc-sophon-invalid"}`, -32600},
		{"SOPHON-ERROR-32601", `{"jsonrpc": "2.0", "id": "wc-sophon-unknown", "method": "sophon/no-such-method"}`, -32601},
	} {
		in := s.AnswerBad(b.line)
		if c, ok := mcpsuite.ErrorCode(in); ok && c == b.code {
			e.Pass(b.rule, in.Seq)
			continue
		}
		seq := -1
		if in != nil {
			seq = in.Seq
		}
		e.Fail(b.rule, seq, "the answer to "+b.line+" is not error "+fmt.Sprint(b.code), fmt.Sprintf("a JSON-RPC error with code %d", b.code), raw(in))
	}
	return nil
}

// schemes are the documented URI schemes.
var schemes = regexp.MustCompile(`^sophon://(documents/([^/]+)?|memory/([^/]+)?|agents/[^/]+/(SOUL\.md|config)|workflows/[^/]+)$`)

func resources(e *scenario.Env) error {
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return err
	}
	items, in, err := listAll(s, "resources/list", "resources")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		skipAll(e, "resources/list lists no resource: "+raw(in), "SOPHON-RES-1", "SOPHON-RES-2", "SOPHON-RES-3", "SOPHON-RES-4", "SOPHON-RES-5")
		return nil
	}
	var foreign []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		if uri, _ := m["uri"].(string); !schemes.MatchString(uri) {
			foreign = append(foreign, show(m["uri"]))
		}
	}
	if len(foreign) > 0 {
		e.Fail("SOPHON-RES-1", in.Seq, "listed resources have URIs outside the documented sophon:// schemes: "+strings.Join(foreign, ", "),
			"sophon://documents/{id}, documents/, memory/{id}, memory/, agents/{id}/SOUL.md, agents/{id}/config, workflows/{id}", strings.Join(foreign, ", "))
	} else {
		e.Pass("SOPHON-RES-1", in.Seq)
	}
	blobs := 0
	for i, it := range items {
		if i >= 8 {
			break
		}
		m, _ := it.(map[string]any)
		uri, _ := m["uri"].(string)
		if uri == "" {
			continue
		}
		r, err := s.Call("resources/read", map[string]any{"uri": uri})
		if err != nil {
			return err
		}
		blobs += judgeRead(e, uri, m["mimeType"], r)
	}
	if blobs == 0 {
		e.Skip("SOPHON-RES-3", "no resource read came as a base64 blob")
	}
	return subscribe(e, s, items)
}

// judgeRead judges one read (SOPHON-RES-2, and RES-3 on a blob); it
// returns the number of blobs read.
func judgeRead(e *scenario.Env, uri string, listedMime any, r *peer.Inbound) int {
	contents, _ := field(r, "/result/contents").([]any)
	if len(contents) == 0 {
		e.Fail("SOPHON-RES-2", r.Seq, "resources/read of the listed "+uri+" returned no contents", "contents with text or a base64 blob", raw(r))
		return 0
	}
	blobs := 0
	for _, c := range contents {
		m, _ := c.(map[string]any)
		_, isText := m["text"].(string)
		blob, isBlob := m["blob"].(string)
		switch {
		case isBlob:
			if _, err := base64.StdEncoding.DecodeString(blob); err != nil {
				e.Fail("SOPHON-RES-2", r.Seq, "the blob of "+uri+" is not base64: "+err.Error(), "a base64-encoded blob", show(blob))
				continue
			}
			e.Pass("SOPHON-RES-2", r.Seq)
			blobs++
			if listedMime == nil || m["mimeType"] == listedMime {
				e.Pass("SOPHON-RES-3", r.Seq)
			} else {
				e.Fail("SOPHON-RES-3", r.Seq, "the blob of "+uri+" does not carry the listed mimeType", "mimeType "+show(listedMime), "mimeType "+show(m["mimeType"]))
			}
		case isText:
			e.Pass("SOPHON-RES-2", r.Seq)
		default:
			e.Fail("SOPHON-RES-2", r.Seq, "the contents of "+uri+" carry neither text nor blob", "text, or a base64 blob", show(m))
		}
	}
	return blobs
}

// subscribe subscribes to the first listed resource, gives the server a
// round trip to send an update, and unsubscribes. The frames are read
// here, not by the MCP session's drain, to see which URIs updates name.
func subscribe(e *scenario.Env, s *mcpsuite.Session, items []any) error {
	m, _ := items[0].(map[string]any)
	uri, _ := m["uri"].(string)
	caps, _ := s.Caps()["resources"].(map[string]any)
	if caps["subscribe"] != true {
		skipAll(e, "the server does not declare resources.subscribe", "SOPHON-RES-4", "SOPHON-RES-5")
		return nil
	}
	subscribed := map[string]bool{}
	updates := 0
	for _, step := range []string{"resources/subscribe", "ping", "resources/unsubscribe"} {
		params := map[string]any{"uri": uri}
		if step == "ping" {
			params = nil
		}
		in, _, err := e.Call(mcpsuite.Request(step, params))
		if err != nil {
			return err
		}
		if step == "resources/subscribe" {
			subscribed[uri] = true
		}
		switch {
		case step == "ping":
		case isResult(in):
			e.Pass("SOPHON-RES-4", in.Seq)
		default:
			e.Fail("SOPHON-RES-4", in.Seq, step+" "+uri+" was not answered with a result", "an empty result", raw(in))
		}
		// Over HTTP an update may come on the GET stream, which the ping's
		// answer does not follow in order: before the unsubscribe, give a
		// late one a moment (one wait per run, only while none came).
		until := time.Now()
		if step == "ping" && updates == 0 && e.Protocol.Transport != "stdio" {
			until = until.Add(min(e.Timeout, time.Second))
		}
		for {
			wait := time.Duration(0)
			if updates == 0 {
				wait = max(0, time.Until(until))
			}
			n, err := e.NextFrame(wait, nil)
			if err != nil {
				break
			}
			if field(n, "/method") != "notifications/resources/updated" {
				continue
			}
			updates++
			if u, _ := field(n, "/params/uri").(string); subscribed[u] {
				e.Pass("SOPHON-RES-5", n.Seq)
			} else {
				e.Fail("SOPHON-RES-5", n.Seq, "notifications/resources/updated names a resource wirecheck did not subscribe to", "the URI of a subscribed resource ("+uri+")", raw(n))
			}
		}
	}
	if updates == 0 {
		e.Skip("SOPHON-RES-5", "no notifications/resources/updated arrived: the document gives a client no way to modify a resource, so none could be provoked")
	}
	return nil
}

func listAll(s *mcpsuite.Session, method, key string) ([]any, *peer.Inbound, error) {
	var all []any
	var last *peer.Inbound
	params := map[string]any{}
	for page := 0; page < 20; page++ {
		in, err := s.Call(method, params)
		if err != nil {
			return nil, nil, err
		}
		last = in
		items, _ := field(in, "/result/"+key).([]any)
		all = append(all, items...)
		cur, _ := field(in, "/result/nextCursor").(string)
		if cur == "" {
			break
		}
		params = map[string]any{"cursor": cur}
	}
	return all, last, nil
}

var curated = []string{"summarize-document", "draft-email", "extract-action-items", "research-topic"}

func prompts(e *scenario.Env) error {
	s, err := mcpsuite.Ensure(e)
	if err != nil {
		return err
	}
	items, in, err := listAll(s, "prompts/list", "prompts")
	if err != nil {
		return err
	}
	var names []string
	for _, it := range items {
		if m, _ := it.(map[string]any); m != nil {
			if n, _ := m["name"].(string); n != "" {
				names = append(names, n)
			}
		}
	}
	var missing []string
	for _, c := range curated {
		if !slices.Contains(names, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		e.Fail("SOPHON-PROMPTS-1", in.Seq, "prompts/list lacks "+strings.Join(missing, ", "), strings.Join(curated, ", "), strings.Join(names, ", "))
	} else {
		e.Pass("SOPHON-PROMPTS-1", in.Seq)
	}
	if !slices.Contains(names, "summarize-document") {
		e.Skip("SOPHON-PROMPTS-2", "summarize-document is not listed (SOPHON-PROMPTS-1)")
		return nil
	}
	// The document's text, read as a client would, to look for in the
	// rendered prompt.
	docs, _, err := listAll(s, "resources/list", "resources")
	if err != nil {
		return err
	}
	for _, d := range docs {
		m, _ := d.(map[string]any)
		uri, _ := m["uri"].(string)
		if !strings.HasPrefix(uri, "sophon://documents/") || strings.HasSuffix(uri, "/") {
			continue
		}
		r, err := s.Call("resources/read", map[string]any{"uri": uri})
		if err != nil {
			return err
		}
		text, _ := field(r, "/result/contents/0/text").(string)
		if strings.TrimSpace(text) == "" {
			continue
		}
		g, err := s.Call("prompts/get", map[string]any{"name": "summarize-document", "arguments": map[string]any{"documentUri": uri}})
		if err != nil {
			return err
		}
		if strings.Contains(promptText(g), strings.TrimSpace(text)) {
			e.Pass("SOPHON-PROMPTS-2", g.Seq)
		} else {
			e.Fail("SOPHON-PROMPTS-2", g.Seq, "the rendered summarize-document of "+uri+" does not hold the document's text", "messages holding "+show(text), raw(g))
		}
		return nil
	}
	e.Skip("SOPHON-PROMPTS-2", "no listed sophon://documents/{id} reads as text to substitute")
	return nil
}

// promptText is the text of a GetPromptResult's messages, joined.
func promptText(in *peer.Inbound) string {
	msgs, _ := field(in, "/result/messages").([]any)
	var b strings.Builder
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(map[string]any)
		if t, _ := c["text"].(string); t != "" {
			b.WriteString(t + "\n")
		}
		if r, _ := c["resource"].(map[string]any); r != nil {
			t, _ := r["text"].(string)
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

// limit is the documented budget of a token: 60 requests a minute.
const limit = 60

// rateLimit sends pings as probes until one is refused -32004: the
// requests of this run before them count too, so the refusal may come
// sooner than the 61st; it must come by then, within the minute.
func rateLimit(e *scenario.Env) error {
	if e.Params[RateParam] != "check" {
		e.Skip("SOPHON-RATE-1", "not checked: it spends the token's 60 requests of a minute (--param "+RateParam+"=check)")
		return nil
	}
	// Over the legacy transport a POST's answer comes on the session's
	// stream, where a burst of probes would be answers to requests the
	// session never sent; the limit is checked over Streamable HTTP.
	x, err := mcpsuite.Exchanger(e, "http", "SOPHON-RATE-1")
	if x == nil {
		return err
	}
	start := time.Now()
	for i := 1; i <= limit+1; i++ {
		res, seq := mcpsuite.Probe(e, x, fmt.Sprintf("ping %d of a burst", i), httpmcp.Exchange{Method: http.MethodPost, Body: jsonBytes(mcpsuite.Request("ping", nil))})
		c, refusedCode := refusalCode(res, seq)
		if !refusedCode || c != -32004 {
			continue
		}
		after := res.Header.Get("Retry-After")
		if after == "" {
			e.Fail("SOPHON-RATE-1", seq, "the -32004 answer has no Retry-After header", "a Retry-After header", mcpsuite.Answered(res))
		} else {
			e.Pass("SOPHON-RATE-1", seq)
		}
		return nil
	}
	if time.Since(start) > time.Minute {
		e.Skip("SOPHON-RATE-1", fmt.Sprintf("%d requests took %s: more than the minute the limit counts", limit+1, time.Since(start).Round(time.Second)))
		return nil
	}
	e.Fail("SOPHON-RATE-1", -1, fmt.Sprintf("%d requests of one token within %s, none refused -32004", limit+1, time.Since(start).Round(time.Millisecond)),
		"error -32004 with Retry-After by the 61st request of a minute", "every one answered")
	return nil
}
