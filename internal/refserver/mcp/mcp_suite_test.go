package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

func TestMCPServer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reference MCP server Suite")
}

// wait bounds every wait for the server: generous, the machine is loaded.
const wait = 20 * time.Second

// server is one reference server over HTTP in the test process.
type server struct {
	front *mcp.Front
	ts    *httptest.Server
	log   *gbytes.Buffer
}

// serve starts the Streamable HTTP front (or the legacy one) with faults
// and variants; the test's cleanup stops it.
func serve(legacy bool, faults, variants []string) *server {
	log := gbytes.NewBuffer()
	f := mcp.NewFront(refserver.Options{Faults: faults, Variants: variants, Log: log, Out: log}, legacy)
	ts := httptest.NewServer(f)
	DeferCleanup(func() {
		f.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	return &server{front: f, ts: ts, log: log}
}

// client speaks Streamable HTTP to a server with a plain net/http client.
type client struct {
	url     string
	sid     string
	version string
	header  http.Header
	hc      *http.Client
}

func (s *server) client() *client {
	return &client{url: s.ts.URL + "/mcp", header: http.Header{}, hc: &http.Client{Timeout: wait,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// reply is one HTTP answer, its body read: the JSON body, or the SSE
// events up to the response.
type reply struct {
	status int
	header http.Header
	body   []byte
	events []ev
}

// ev is one SSE event.
type ev struct {
	id, typ, data string
	hasID         bool
	retry         int
}

// msgs are the JSON-RPC messages of a reply: its JSON body or its events'
// data.
func (r reply) msgs() []map[string]any {
	var out []map[string]any
	add := func(b []byte) {
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	if len(r.events) == 0 {
		add(r.body)
	}
	for _, e := range r.events {
		add([]byte(e.data))
	}
	return out
}

// last is the reply's last message.
func (r reply) last() map[string]any {
	ms := r.msgs()
	Expect(ms).NotTo(BeEmpty(), "no message in %d %s %q", r.status, r.header.Get("Content-Type"), r.body)
	return ms[len(ms)-1]
}

func (c *client) do(method, body string, set ...string) reply {
	GinkgoHelper()
	resp := c.send(method, body, set...)
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.events = readEvents(resp.Body, func(e ev) bool { return isAnswer(e.data) })
		return r
	}
	r.body, _ = io.ReadAll(resp.Body)
	return r
}

// send sends one request; set are "Name: value" headers, "Name:" drops one.
func (c *client) send(method, body string, set ...string) *http.Response {
	GinkgoHelper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	if c.version >= "2025-06-18" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if method == http.MethodPost {
		metadata(req.Header, body)
	}
	for _, h := range set {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	return resp
}

func (c *client) post(body string, set ...string) reply {
	GinkgoHelper()
	return c.do(http.MethodPost, body, set...)
}

// initialize opens a session at revision v and sends initialized.
func (c *client) initialize(v string) reply {
	GinkgoHelper()
	r := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"test","version":"1"}}}`)
	Expect(r.status).To(Equal(http.StatusOK), "%s", r.body)
	c.sid = r.header.Get("Mcp-Session-Id")
	c.version = v
	// Its answer is judged where it matters (faults answer it wrongly).
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// metadata sets the request metadata headers a 2026-07-28 client sends
// with body, as wirecheck's client does (httpmcp): the revision of its
// _meta, Mcp-Method, Mcp-Name and geo's Mcp-Param headers.
func metadata(h http.Header, body string) {
	r, ok := mcpheader.Read([]byte(body))
	if !ok || r.Revision == "" {
		return
	}
	h.Set("MCP-Protocol-Version", r.Revision)
	h.Set("Mcp-Method", r.Method)
	if r.NameRequired() && r.HasName {
		h.Set("Mcp-Name", mcpheader.Encode(r.Name))
	}
	if r.Method == "tools/call" && r.Name == "geo" {
		for _, p := range []mcpheader.Param{{Name: "Region", Path: []string{"region"}}, {Name: "Zone", Path: []string{"zone"}}, {Name: "Note", Path: []string{"note"}}} {
			if v, ok := p.Value(r.Arguments); ok {
				h.Set(p.Header(), v)
			}
		}
	}
}

func call(id int, method, params string) string {
	if params == "" {
		params = "{}"
	}
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`
}

// isAnswer reports whether an event's data is a JSON-RPC response.
func isAnswer(data string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(data), &m) != nil {
		return strings.HasPrefix(strings.TrimSpace(data), "[")
	}
	_, method := m["method"]
	_, id := m["id"]
	return id && !method
}

// readEvents parses an SSE body until stop says so or the body ends.
func readEvents(body io.Reader, stop func(ev) bool) []ev {
	var out []ev
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	var cur ev
	var data []string
	seen := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if seen {
				cur.data = strings.Join(data, "\n")
				out = append(out, cur)
				if stop != nil && stop(cur) {
					return out
				}
			}
			cur, data, seen = ev{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		seen = true
		switch k {
		case "id":
			cur.id, cur.hasID = v, true
		case "event":
			cur.typ = v
		case "retry":
			cur.retry, _ = strconv.Atoi(v)
		case "data":
			data = append(data, v)
		}
	}
	return out
}

// stream is an open SSE response read event by event.
type stream struct {
	resp *http.Response
	evs  chan ev
}

// open opens a GET stream (or another request whose answer streams).
func (c *client) open(method, body string, set ...string) *stream {
	GinkgoHelper()
	resp := c.send(method, body, set...)
	st := &stream{resp: resp, evs: make(chan ev, 256)}
	DeferCleanup(resp.Body.Close)
	go func() {
		defer GinkgoRecover()
		defer close(st.evs)
		readEvents(resp.Body, func(e ev) bool {
			st.evs <- e
			return false
		})
	}()
	return st
}

// next is the stream's next event whose data satisfies match.
func (st *stream) next(match func(map[string]any) bool) map[string]any {
	GinkgoHelper()
	timeout := time.After(wait)
	for {
		select {
		case e, ok := <-st.evs:
			Expect(ok).To(BeTrue(), "the stream ended")
			var m map[string]any
			if json.Unmarshal([]byte(e.data), &m) == nil && match(m) {
				return m
			}
		case <-timeout:
			Fail("no such event on the stream")
		}
	}
}

// answerAll answers the server's requests on a call's stream until the
// call's response, which it returns; asked are the methods it was asked.
func (c *client) answerAll(st *stream) (res map[string]any, asked []string) {
	GinkgoHelper()
	for {
		m := st.next(func(x map[string]any) bool { return x["id"] != nil })
		if m["method"] == nil {
			return m, asked
		}
		asked = append(asked, m["method"].(string))
		result := `{}`
		switch m["method"] {
		case "sampling/createMessage":
			result = `{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}`
		case "roots/list":
			result = `{"roots":[]}`
		}
		id, _ := json.Marshal(m["id"])
		r := c.post(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
		Expect(r.status).To(Equal(http.StatusAccepted))
		Expect(r.body).To(BeEmpty())
	}
}

func method(name string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["method"] == name }
}
