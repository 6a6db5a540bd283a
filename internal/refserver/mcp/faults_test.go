package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A probe does one thing to a server and says what it saw, so a fault
// row compares what the correct server and the faulty one show.
type probe func(s *server) string

// ready is a client with an initialized session at revision v.
func ready(s *server, v string) *client {
	GinkgoHelper()
	c := s.client()
	c.initialize(v)
	return c
}

func status(r reply) string { return strconv.Itoa(r.status) }

func statusBody(r reply) string {
	return strings.TrimSpace(status(r) + " " + string(bytes.TrimSpace(r.body)))
}

// jsonValues counts the JSON values of a body.
func jsonValues(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	n := 0
	for {
		var v any
		if dec.Decode(&v) != nil {
			return strconv.Itoa(n)
		}
		n++
	}
}

// firstOnGet opens the GET stream, does what, then makes a list_changed
// (the grow tool): the GET stream's first message shows whether what put
// anything on it.
func firstOnGet(s *server, what func(c *client)) string {
	GinkgoHelper()
	c := ready(s, "2025-06-18")
	st := c.open(http.MethodGet, "")
	what(c)
	c.post(call(90, "tools/call", `{"name":"grow"}`))
	m := st.next(func(map[string]any) bool { return true })
	if m["method"] != nil {
		return m["method"].(string)
	}
	return "a response"
}

// rawLines opens a request's SSE answer and reads its body line by line
// until stop.
func rawLines(resp *http.Response, stop func(string) bool) []string {
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		out = append(out, sc.Text())
		if stop(sc.Text()) {
			break
		}
	}
	return out
}

func legacyFirstLine(s *server) string {
	c := s.client()
	c.url = s.ts.URL + "/sse"
	resp := c.send(http.MethodGet, "", "Accept: text/event-stream")
	lines := rawLines(resp, func(string) bool { return true })
	return strings.Join(lines, "")
}

func noAuth(s *server) string {
	c := s.client()
	r := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return status(r)
}

func initWith(set ...string) probe {
	return func(s *server) string {
		c := s.client()
		r := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, set...)
		return status(r)
	}
}

func get(s *server, path string) reply {
	GinkgoHelper()
	c := s.client()
	c.url = s.ts.URL + path
	return c.do(http.MethodGet, "")
}

var _ = Describe("the HTTP faults of the reference server", func() {
	DescribeTable("each changes what it names, and the server without it does what is right",
		func(fault string, legacy bool, variants []string, p probe, right, wrong string) {
			Expect(p(serve(legacy, nil, variants))).To(Equal(right), "without the fault")
			Expect(p(serve(legacy, []string{fault}, variants))).To(Equal(wrong), "with the fault")
		},
		Entry(nil, "body-two-objects", false, nil, func(s *server) string {
			return jsonValues(ready(s, "2025-06-18").post(call(1, "tools/list", "")).body)
		}, "1", "2"),
		Entry(nil, "sse-data-not-json", false, []string{"sse-answers"}, func(s *server) string {
			r := ready(s, "2025-06-18").post(call(1, "ping", ""))
			for _, e := range r.events {
				if !json.Valid([]byte(e.data)) {
					return "not JSON: " + e.data
				}
			}
			return "JSON"
		}, "JSON", "not JSON: ok"),
		Entry(nil, "endpoint-moves", false, nil, func(s *server) string {
			return status(ready(s, "2025-06-18").post(call(1, "tools/list", "")))
		}, "200", "404"),
		Entry(nil, "notification-200", false, nil, func(s *server) string {
			return statusBody(ready(s, "2025-06-18").post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
		}, "202", "200 {}"),
		Entry(nil, "notification-202-body", false, nil, func(s *server) string {
			return statusBody(ready(s, "2025-06-18").post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
		}, "202", `202 {"ok":true}`),
		Entry(nil, "stray-response-200-error", false, nil, func(s *server) string {
			r := ready(s, "2025-06-18").post(`{"jsonrpc":"2.0","id":999,"result":{}}`)
			if strings.Contains(string(r.body), `"error"`) {
				return status(r) + " error"
			}
			return status(r)
		}, "202", "200 error"),
		Entry(nil, "json-as-text", false, nil, func(s *server) string {
			return ready(s, "2025-06-18").post(call(1, "tools/list", "")).header.Get("Content-Type")
		}, "application/json", "text/plain"),
		Entry(nil, "get-json", false, nil, func(s *server) string {
			resp := ready(s, "2025-06-18").send(http.MethodGet, "")
			defer resp.Body.Close()
			return resp.Header.Get("Content-Type")
		}, "text/event-stream", "application/json"),
		Entry(nil, "get-response", false, nil, func(s *server) string {
			return firstOnGet(s, func(c *client) { c.post(call(1, "ping", "")) })
		}, "notifications/tools/list_changed", "a response"),
		Entry(nil, "broadcast-requests", false, nil, func(s *server) string {
			return firstOnGet(s, func(c *client) {
				c.answerAll(c.open(http.MethodPost, call(1, "tools/call", `{"name":"ask-client"}`)))
			})
		}, "notifications/tools/list_changed", "sampling/createMessage"),
		Entry(nil, "event-id-per-stream", false, []string{"sse-answers", "resumable"}, func(s *server) string {
			c := ready(s, "2025-06-18")
			a, b := c.post(call(1, "ping", "")).events, c.post(call(2, "ping", "")).events
			if a[0].id == b[0].id {
				return "repeated"
			}
			return "distinct"
		}, "distinct", "repeated"),
		Entry(nil, "resume-all-streams", false, []string{"sse-answers", "resumable"}, func(s *server) string {
			c := ready(s, "2025-06-18")
			c.post(call(1, "ping", ""))
			b := c.post(call(2, "ping", ""))
			resp := c.send(http.MethodGet, "", "Last-Event-ID: "+b.events[0].id)
			defer resp.Body.Close()
			var ids []string
			for _, e := range readEvents(resp.Body, nil) {
				var m map[string]any
				json.Unmarshal([]byte(e.data), &m)
				ids = append(ids, show(m["id"]))
			}
			return strings.Join(ids, ",")
		}, "", "0,1"),
		Entry(nil, "session-id-space", false, nil, func(s *server) string {
			if strings.Contains(ready(s, "2025-06-18").sid, " ") {
				return "a space"
			}
			return "visible ASCII"
		}, "visible ASCII", "a space"),
		Entry(nil, "deleted-session-served", false, nil, func(s *server) string {
			c := ready(s, "2025-06-18")
			d := c.do(http.MethodDelete, "")
			return status(d) + " " + status(c.post(call(1, "tools/list", "")))
		}, "204 404", "204 200"),
		Entry(nil, "version-header-ignored", false, nil, func(s *server) string {
			return status(ready(s, "2025-06-18").post(call(1, "ping", ""), "MCP-Protocol-Version: 1999-01-01"))
		}, "400", "200"),
		Entry(nil, "origin-ignored", false, nil, func(s *server) string {
			return status(ready(s, "2025-06-18").post(call(1, "ping", ""), "Origin: http://dns-rebinding.wirecheck.invalid"))
		}, "403", "200"),
		Entry(nil, "origin-400", false, nil, func(s *server) string {
			return status(ready(s, "2025-06-18").post(call(1, "ping", ""), "Origin: http://dns-rebinding.wirecheck.invalid"))
		}, "403", "400"),
		Entry(nil, "auth-no-token-403", false, []string{"auth"}, probe(noAuth), "401", "403"),
		Entry(nil, "auth-optional", false, []string{"auth"}, probe(noAuth), "401", "200"),
		Entry(nil, "auth-any-token", false, []string{"auth"}, initWith("Authorization: Bearer wirecheck-invalid-token"), "401", "200"),
		Entry(nil, "auth-malformed-served", false, []string{"auth"}, initWith("Authorization: Bearer"), "400", "200"),
		Entry(nil, "auth-no-challenge", false, []string{"auth"}, func(s *server) string {
			r := s.client().post(call(0, "ping", ""))
			return status(r) + " " + strings.Fields(r.header.Get("WWW-Authenticate") + " none")[0] + " " + status(get(s, "/.well-known/oauth-protected-resource/mcp"))
		}, "401 Bearer 200", "401 none 200"),
		Entry(nil, "auth-no-discovery", false, []string{"auth"}, func(s *server) string {
			r := s.client().post(call(0, "ping", ""))
			return status(r) + " " + strings.Fields(r.header.Get("WWW-Authenticate") + " none")[0] + " " +
				status(get(s, "/.well-known/oauth-protected-resource/mcp")) + " " + status(get(s, "/.well-known/oauth-protected-resource")) + " " +
				// Its authorization server metadata still says it is OAuth's.
				status(get(s, "/.well-known/oauth-authorization-server"))
		}, "401 Bearer 200 200 200", "401 none 404 404 200"),
		Entry(nil, "sse-notification-unrelated", false, nil, func(s *server) string {
			r := s.client().post(call(1, "tools/call", `{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), "MCP-Protocol-Version: 2026-07-28")
			var methods []string
			for _, m := range r.msgs() {
				if m["method"] != nil {
					methods = append(methods, m["method"].(string))
				}
			}
			return r.header.Get("Content-Type") + " " + strings.Join(methods, ",")
		}, "application/json ", "text/event-stream notifications/tools/list_changed"),
		Entry(nil, "prm-no-servers", false, []string{"auth"}, func(s *server) string {
			r := get(s, "/.well-known/oauth-protected-resource/mcp")
			return status(r) + " " + jsonField(r.body, "authorization_servers")
		}, "200 authorization_servers", "200 "),
		Entry(nil, "no-as-fallback", false, []string{"auth"}, func(s *server) string {
			return status(get(s, "/.well-known/oauth-authorization-server")) + " " + status(s.client().post2("/token", "grant_type=x"))
		}, "200 400", "404 404"),
		Entry(nil, "sse-get-json", true, nil, func(s *server) string {
			resp := s.client().sendTo(s.ts.URL+"/sse", http.MethodGet)
			defer resp.Body.Close()
			return resp.Header.Get("Content-Type")
		}, "text/event-stream", "application/json"),
		Entry(nil, "sse-no-endpoint", true, []string{"keepalive-comments"}, probe(legacyFirstLine), "event: endpoint", ": keepalive"),
		// The SHOULD faults.
		Entry(nil, "bad-json-500", false, nil, func(s *server) string {
			return status(ready(s, "2025-06-18").post("{"))
		}, "400", "500"),
		Entry(nil, "sse-stays-open", false, []string{"sse-answers", "keepalive-comments"}, func(s *server) string {
			resp := ready(s, "2025-06-18").send(http.MethodPost, call(1, "ping", ""))
			answered := false
			lines := rawLines(resp, func(l string) bool {
				answered = answered || strings.Contains(l, `"result"`)
				return answered && strings.HasPrefix(l, ":")
			})
			return lines[len(lines)-1]
		}, "", ": keepalive"),
		Entry(nil, "sse-closes-early", false, nil, func(s *server) string {
			r := ready(s, "2025-06-18").post(call(1, "tools/call", `{"name":"countdown","_meta":{"progressToken":1}}`))
			return strconv.Itoa(len(r.msgs())) + " messages"
		}, "3 messages", "1 messages"),
		Entry(nil, "missing-session-404", false, nil, func(s *server) string {
			return status(s.client().post(call(1, "ping", "")))
		}, "400", "404"),
		Entry(nil, "sse-no-priming", false, []string{"sse-answers"}, func(s *server) string {
			e := ready(s, "2025-11-25").post(call(1, "ping", "")).events[0]
			return strconv.FormatBool(e.hasID && e.data == "")
		}, "true", "false"),
		Entry(nil, "no-xaccel", false, []string{"sse-answers"}, func(s *server) string {
			return ready(s, "2025-06-18").post(call(1, "ping", "")).header.Get("X-Accel-Buffering")
		}, "no", ""),
		Entry(nil, "endpoint-foreign-origin", true, nil, func(s *server) string {
			u, err := url.Parse(s.connect().endpoint)
			Expect(err).NotTo(HaveOccurred())
			return u.Hostname()
		}, "", "127.0.0.2"),
		Entry(nil, "response-in-post-body", true, nil, func(s *server) string {
			l := s.connect()
			return statusBody(l.post(call(1, "ping", "")))
		}, "202", `200 {"id":1,"jsonrpc":"2.0","result":{}}`),
		Entry(nil, "sse-post-500", true, nil, func(s *server) string {
			return status(s.connect().post(call(1, "ping", "")))
		}, "202", "500"),
		// A fault of the core works over HTTP unchanged.
		Entry(nil, "ping-not-empty", false, nil, func(s *server) string {
			return jsonField(ready(s, "2025-06-18").post(call(1, "ping", "")).body, "result")
		}, "result", "result pong"),
	)
})

// jsonField names a body's field and the keys of its object value.
func jsonField(b []byte, name string) string {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	v, has := m[name]
	if !has {
		return ""
	}
	out := name
	if o, isObj := v.(map[string]any); isObj {
		for k := range o {
			out += " " + k
		}
	}
	return out
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sendTo sends a bodiless request to another URL of the server.
func (c *client) sendTo(u, method string) *http.Response {
	GinkgoHelper()
	d := *c
	d.url = u
	return d.send(method, "")
}

// post2 posts a form to a path of the server's origin.
func (c *client) post2(path, form string) reply {
	GinkgoHelper()
	u := strings.TrimSuffix(c.url, "/mcp") + path
	resp, err := c.hc.Post(u, "application/x-www-form-urlencoded", strings.NewReader(form))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

var _ = Describe("fault resume-all-streams on its own", func() {
	It("answers on event streams with ids, leaks another stream's answer on a resumption and still ends with the resumed call's answer", func() {
		c := ready(serve(false, []string{"resume-all-streams"}, nil), "2025-06-18")
		Expect(c.post(call(1, "ping", "")).header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		st := c.open(http.MethodPost, call(8, "tools/call", `{"name":"slow","arguments":{"durationMs":300},"_meta":{"progressToken":"r"}}`))
		var first ev
		Eventually(st.evs, wait).Should(Receive(&first))
		Expect(first.id).NotTo(BeEmpty())
		st.resp.Body.Close()
		var evs []ev
		Eventually(func() int {
			resp := c.send(http.MethodGet, "", "Last-Event-ID: "+first.id)
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				evs = readEvents(resp.Body, nil)
			}
			return resp.StatusCode
		}, wait).Should(Equal(http.StatusOK))
		var answers []string
		for _, e := range evs {
			if isAnswer(e.data) {
				var m map[string]any
				Expect(json.Unmarshal([]byte(e.data), &m)).To(Succeed())
				answers = append(answers, show(m["id"]))
			}
		}
		Expect(answers).To(ContainElement("1"))
		Expect(answers[len(answers)-1]).To(Equal("8"))
	})
})
