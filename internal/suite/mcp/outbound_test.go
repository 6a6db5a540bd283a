package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/schemas"
)

// sentOnPurpose is every message the suite sends invalid for the revision
// it claims, knowingly: each names the scenario, what it sends, and why.
// A message of the suite that no entry names must be valid for the
// revision the run asks for: the schema of its method in that revision
// (ClientRequest, ClientNotification), or, for a method the revision does
// not define, the revision's JSONRPCRequest or JSONRPCNotification with
// its common params (in 2026-07-28 every request carries _meta). A
// server that refuses an invalid request does right, and a rule that
// fails it for that is a false alarm of wirecheck's.
var sentOnPurpose = []purpose{
	{scenario: "parse-error", what: "a line that is not JSON (a trailing comma)",
		why:   "MCP-JSONRPC-7 and MCP-HTTP-BADBODY-1: a line (a body) that is not JSON is answered -32700",
		match: func(m outMsg) bool { return m.value == nil }},
	{scenario: "invalid-request", what: `a request whose method is 42`,
		why:   "MCP-JSONRPC-8: JSON that is not a valid request object is answered -32600",
		match: func(m outMsg) bool { return m.field("method") == float64(42) }},
	{scenario: "batch", revision: "2025-03-26", what: "a batch [ping, {}] whose second element is an empty object",
		why: "MCP-JSONRPC-10: an element of a batch that is no request is answered Invalid Request (JSON-RPC 2.0 §6)",
		match: func(m outMsg) bool {
			o, ok := m.value.(map[string]any)
			return ok && len(o) == 0
		}},
	{scenario: "logging", what: `logging/setLevel to the level "loudest"`,
		why: "MCP-LOGGING-2: an invalid log level is refused -32602",
		match: func(m outMsg) bool {
			return m.method() == "logging/setLevel" && m.field("params", "level") == "loudest"
		}},
	{scenario: "log-level", revision: "2026-07-28", what: `a request whose _meta asks for the log level "loudest"`,
		why: "MCP-LOGGING-4: an invalid io.modelcontextprotocol/logLevel is refused -32602",
		match: func(m outMsg) bool {
			return m.field("params", "_meta", "io.modelcontextprotocol/logLevel") == "loudest"
		}},
	{scenario: "version-negotiation", revision: "2026-07-28", what: "tools/list whose _meta lacks io.modelcontextprotocol/clientCapabilities",
		why: "MCP-META-1 and MCP-META-3: a request missing a required _meta field is refused -32602 (HTTP 400)",
		match: func(m outMsg) bool {
			meta, _ := m.field("params", "_meta").(map[string]any)
			_, caps := meta["io.modelcontextprotocol/clientCapabilities"]
			return m.method() == "tools/list" && meta != nil && !caps
		}},
	{scenario: "mrtr", revision: "2026-07-28", what: "a retry whose inputResponses is a string",
		why: "MCP-MRTR-7: inputResponses that are no InputResponses object are answered with a JSON-RPC error",
		match: func(m outMsg) bool {
			_, isString := m.field("params", "inputResponses").(string)
			return isString
		}},
	{scenario: "http-era", revision: "2026-07-28", what: "an older client's initialize (protocolVersion 2025-11-25, no _meta)",
		why: "MCP-HTTP-LEGACY-1..3 bind only a server that supports 2026-07-28 alone: the probe is what a 2025-11-25 client sends, valid for the revision it names, and a result shows the server dual-era (basic/versioning)",
		match: func(m outMsg) bool {
			return m.method() == "initialize" && m.field("params", "protocolVersion") == "2025-11-25"
		}},
}

// purpose is one entry of sentOnPurpose: a message of a scenario (in a
// revision, "" for every one) that match picks out.
type purpose struct {
	scenario, revision, what, why string
	match                         func(outMsg) bool
}

// outMsg is one message the suite sent: its bytes and, when they are
// JSON, their value.
type outMsg struct {
	raw   []byte
	value any
}

func (m outMsg) method() string {
	o, _ := m.value.(map[string]any)
	s, _ := o["method"].(string)
	return s
}

// field is the value at a path of object keys, nil when there is none.
func (m outMsg) field(path ...string) any {
	v := m.value
	for _, k := range path {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

func (m outMsg) has(key string) bool {
	o, _ := m.value.(map[string]any)
	_, ok := o[key]
	return ok
}

// outbox gathers what the suite wrote to the servers of one run, frame
// by frame (a stdio line, an HTTP body).
type outbox struct {
	mu     sync.Mutex
	frames [][]byte
}

func (o *outbox) add(b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.frames = append(o.frames, bytes.Clone(b))
}

// lines is an io.Writer that hands the outbox each complete line.
type lines struct {
	o   *outbox
	buf []byte
}

func (l *lines) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimRight(l.buf[:i], "\r"); len(bytes.TrimSpace(line)) > 0 {
			l.o.add(line)
		}
		l.buf = l.buf[i+1:]
	}
}

// messages splits the frames into messages: a JSON array (a batch) into
// its members.
func (o *outbox) messages() []outMsg {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []outMsg
	for _, f := range o.frames {
		var v any
		if err := json.Unmarshal(f, &v); err != nil {
			out = append(out, outMsg{raw: f})
			continue
		}
		if arr, ok := v.([]any); ok {
			for _, x := range arr {
				b, _ := json.Marshal(x)
				out = append(out, outMsg{raw: b, value: x})
			}
			continue
		}
		out = append(out, outMsg{raw: f, value: v})
	}
	return out
}

// revisionSchemas judges a message by one revision's schema.
type revisionSchemas struct {
	reg                   *schema.Registry
	defs                  string
	requests, notifs      map[string]string
	hasRequestParams      bool
	hasNotificationParams bool
}

// newRevisionSchemas reads which definition is each client method's in
// the revision's schema (ClientRequest and ClientNotification).
func newRevisionSchemas(reg *schema.Registry, version, defs string) *revisionSchemas {
	file, frag, _ := strings.Cut(defs, "#")
	raw, err := schemas.FS.ReadFile("mcp/" + file)
	Expect(err).NotTo(HaveOccurred())
	var doc map[string]any
	Expect(json.Unmarshal(raw, &doc)).To(Succeed())
	all, _ := doc[strings.TrimPrefix(frag, "/")].(map[string]any)
	Expect(all).NotTo(BeEmpty(), version)
	methods := func(union string) map[string]string {
		out := map[string]string{}
		u, _ := all[union].(map[string]any)
		refs := []any{u}
		if alts, ok := u["anyOf"].([]any); ok {
			refs = alts
		}
		for _, r := range refs {
			name := union
			if ref, ok := r.(map[string]any)["$ref"].(string); ok {
				name = ref[strings.LastIndex(ref, "/")+1:]
			}
			d, _ := all[name].(map[string]any)
			props, _ := d["properties"].(map[string]any)
			m, _ := props["method"].(map[string]any)
			if c, ok := m["const"].(string); ok {
				out[c] = name
			}
		}
		return out
	}
	_, rp := all["RequestParams"]
	_, np := all["NotificationParams"]
	return &revisionSchemas{reg: reg, defs: defs, requests: methods("ClientRequest"), notifs: methods("ClientNotification"),
		hasRequestParams: rp, hasNotificationParams: np}
}

// problem says what is wrong with a message for the revision ("" when
// nothing is): a request or notification against its method's schema, or
// the revision's envelope for a method it does not define.
func (rs *revisionSchemas) problem(m outMsg) string {
	if m.value == nil {
		return "not JSON"
	}
	if _, ok := m.value.(map[string]any); !ok {
		return "not a JSON object"
	}
	method := m.method()
	var defs []string
	switch {
	case !m.has("method"):
		// An answer to a server request (wirecheck's handler's): the
		// request's method is the server's to know, the envelope is
		// the revision's.
		defs = append(defs, "JSONRPCMessage")
	case m.has("id"):
		defs = append(defs, "JSONRPCRequest")
		if d := rs.requests[method]; d != "" {
			defs = append(defs, d)
		} else if rs.hasRequestParams {
			defs = append(defs, "RequestParams@/params")
		}
	default:
		defs = append(defs, "JSONRPCNotification")
		if d := rs.notifs[method]; d != "" {
			defs = append(defs, d)
		} else if rs.hasNotificationParams {
			defs = append(defs, "NotificationParams@/params")
		}
	}
	for _, d := range defs {
		name, at, _ := strings.Cut(d, "@")
		v := m.value
		if at != "" {
			p, ok := m.value.(map[string]any)["params"]
			if !ok {
				// No params where the revision requires some: the
				// method's schema or RequestParams' required says it.
				p = map[string]any{}
			}
			v = p
		}
		s := rs.reg.Get(rs.defs + "/" + name)
		Expect(s).NotTo(BeNil(), rs.defs+"/"+name)
		if err := s.Validate(v); err != nil {
			return fmt.Sprintf("not a valid %s: %v", name, err)
		}
	}
	return ""
}

// captured runs one scenario against the reference server and returns
// every message the suite sent it.
func captured(b *protocols.Bundle, s *scenario.Scenario, version, transport string) []outMsg {
	box := &outbox{}
	var t target.Target
	switch transport {
	case "stdio":
		t = target.Target{Serve: func(in io.Reader, out io.Writer) error {
			if code := refmcp.Serve(refserver.Options{In: io.TeeReader(in, &lines{o: box}), Out: out, Log: io.Discard}); code != 0 {
				return fmt.Errorf("exit %d", code)
			}
			return nil
		}}
	case "http":
		var stop func()
		t, stop = testrun.Front(refserver.Options{}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if body := testrun.Body(r); len(bytes.TrimSpace(body)) > 0 {
				box.add(body)
			}
			return w
		})
		defer stop()
	}
	t.Paths = b.Protocol.Endpoints
	_, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Handler: b.Handler, Target: t,
		Scenarios: []*scenario.Scenario{s}, Partial: true, Timeout: 5 * time.Second,
		Params: map[string]string{b.Protocol.Versions.Param: version},
	})
	Expect(err).NotTo(HaveOccurred(), "%s @ %s over %s", s.Name, version, transport)
	return box.messages()
}

var _ = Describe("every message the suite sends", Ordered, func() {
	b, err := protocols.Load("mcp")

	It("is valid for the revision it claims, but those sent invalid on purpose (sentOnPurpose)", func() {
		Expect(err).NotTo(HaveOccurred())
		type run struct {
			s                  *scenario.Scenario
			version, transport string
		}
		var runs []run
		for _, v := range b.Protocol.Versions.List {
			for _, tr := range []string{"stdio", "http"} {
				for _, s := range b.Scenarios {
					runs = append(runs, run{s, v.ID, tr})
				}
			}
		}
		got := make([][]outMsg, len(runs))
		sem := make(chan struct{}, 4)
		var wg sync.WaitGroup
		for i, r := range runs {
			wg.Go(func() {
				defer GinkgoRecover()
				sem <- struct{}{}
				defer func() { <-sem }()
				got[i] = captured(b, r.s, r.version, r.transport)
			})
		}
		wg.Wait()

		n := 0
		for _, g := range got {
			n += len(g)
		}
		GinkgoWriter.Printf("%d runs, %d messages sent\n", len(runs), n)
		judge := map[string]*revisionSchemas{}
		for _, v := range b.Protocol.Versions.List {
			judge[v.ID] = newRevisionSchemas(b.Schemas, v.ID, v.Vars["defs"])
		}
		used := make([]bool, len(sentOnPurpose))
		var bad []string
		for i, r := range runs {
		msgs:
			for _, m := range got[i] {
				why := judge[r.version].problem(m)
				if why == "" {
					continue
				}
				for j, p := range sentOnPurpose {
					if p.scenario == r.s.Name && (p.revision == "" || p.revision == r.version) && p.match(m) {
						used[j] = true
						continue msgs
					}
				}
				bad = append(bad, fmt.Sprintf("%s @ %s over %s: %s: %s", r.s.Name, r.version, r.transport, why, show(m.raw)))
			}
		}
		slices.Sort(bad)
		bad = slices.Compact(bad)
		Expect(bad).To(BeEmpty(), "messages invalid for their revision that sentOnPurpose does not name:\n%s", strings.Join(bad, "\n"))
		for j, p := range sentOnPurpose {
			Expect(used[j]).To(BeTrue(), "sentOnPurpose entry %q of %s matched nothing: the scenario no longer sends it, remove the entry", p.what, p.scenario)
		}
	})
})

func show(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
