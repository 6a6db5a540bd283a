package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

// profile is an extension as a profile's reference server builds one:
// a tool that answers and one that fails, a resource, a prompt, a REST
// route, a bearer token refused as the profile chooses, its own paths,
// and a hook that refuses every third message.
func profile(refuse mcp.Refusal) *mcp.Extension {
	n := 0
	return &mcp.Extension{
		Name:      "probe-hub",
		Revisions: []string{"2024-11-05", "2025-03-26"},
		OwnOnly:   true,
		Tools: []mcp.Tool{{
			Def: map[string]any{"name": "shout", "inputSchema": map[string]any{"type": "object"}},
			Run: func(c mcp.Call) (map[string]any, *mcp.Error) {
				t, _ := c.Args["text"].(string)
				c.Notify("notifications/message", map[string]any{"level": "info", "data": "shouting"})
				return map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.ToUpper(t)}}}, nil
			},
		}, {
			Def: map[string]any{"name": "refuse", "inputSchema": map[string]any{"type": "object"}},
			Run: func(mcp.Call) (map[string]any, *mcp.Error) {
				return nil, &mcp.Error{Code: -32000, Message: "not on the allowlist"}
			},
		}},
		Resources: []mcp.Resource{{
			Match: func(uri string) bool { return strings.HasPrefix(uri, "probe://") },
			Read: func(c mcp.Call) ([]any, *mcp.Error) {
				return []any{map[string]any{"uri": c.URI, "mimeType": "text/plain", "text": "read " + c.URI}}, nil
			},
		}},
		Templates: []map[string]any{{"uriTemplate": "probe://{x}", "name": "probe"}},
		Prompts: []mcp.Prompt{{
			Def: map[string]any{"name": "hello"},
			Get: func(c mcp.Call) (map[string]any, *mcp.Error) {
				return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello"}}}}, nil
			},
		}},
		Paths:  mcp.Paths{HTTP: "/mcp/http", SSE: "/mcp/sse", Message: "/mcp/sse/message"},
		Auth:   mcp.Bearer("sekrit", refuse),
		Routes: []mcp.Route{{Pattern: "GET /api/things", Handler: func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[]`)) }}, {Pattern: "GET /ping", Open: true, Handler: func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`pong`)) }}},
		Before: func(m mcp.Message) *mcp.Refusal {
			if m.Method != "tools/call" {
				return nil
			}
			if n++; n%3 == 0 {
				return &mcp.Refusal{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"60"}}, Code: -32004, Message: "Rate limit exceeded"}
			}
			return nil
		},
	}
}

func serveExt(ext *mcp.Extension, o refserver.Options) *httptest.Server {
	log := gbytes.NewBuffer()
	o.Log, o.Out = log, log
	h := mcp.NewHandler(o, ext)
	ts := httptest.NewServer(h)
	DeferCleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts
}

var _ = Describe("the extension API", func() {
	jsonRefusal := mcp.Refusal{Status: http.StatusUnauthorized, Code: -32600, Message: "Unauthorized"}
	var ts *httptest.Server
	var c *client
	BeforeEach(func() {
		ts = serveExt(profile(jsonRefusal), refserver.Options{})
		c = &client{url: ts.URL + "/mcp/http", header: http.Header{"Authorization": {"Bearer sekrit"}}, hc: &http.Client{Timeout: wait}}
	})

	It("serves its tools alone, runs them, and answers their errors", func() {
		r := c.initialize("2025-03-26")
		res := r.last()["result"].(map[string]any)
		Expect(res["serverInfo"]).To(HaveKeyWithValue("name", "probe-hub"))
		caps := res["capabilities"].(map[string]any)
		Expect(caps).To(HaveKey("resources"))
		Expect(caps).To(HaveKey("prompts"))
		tools := c.post(call(1, "tools/list", "")).last()["result"].(map[string]any)["tools"].([]any)
		Expect(tools).To(HaveLen(2))
		Expect(tools[0]).To(HaveKeyWithValue("name", "shout"))
		got := c.post(call(2, "tools/call", `{"name":"shout","arguments":{"text":"hi"}}`))
		Expect(got.msgs()).To(ContainElement(HaveKeyWithValue("method", "notifications/message")))
		Expect(got.last()["result"]).To(HaveKeyWithValue("content", ContainElement(HaveKeyWithValue("text", "HI"))))
		e := c.post(call(3, "tools/call", `{"name":"refuse"}`)).last()["error"].(map[string]any)
		Expect(e).To(HaveKeyWithValue("code", BeNumerically("==", -32000)))
		Expect(c.post(call(4, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)).last()).To(HaveKey("error"), "the reference server's tools are hidden")
	})

	It("reads its resources and prompts", func() {
		c.initialize("2025-03-26")
		rd := c.post(call(1, "resources/read", `{"uri":"probe://x"}`)).last()["result"].(map[string]any)
		Expect(rd["contents"]).To(ContainElement(HaveKeyWithValue("text", "read probe://x")))
		Expect(c.post(call(2, "resources/read", `{"uri":"wirecheck://docs/readme"}`)).last()).To(HaveKey("error"))
		tl := c.post(call(3, "resources/templates/list", "")).last()["result"].(map[string]any)
		Expect(tl["resourceTemplates"]).To(ConsistOf(HaveKeyWithValue("uriTemplate", "probe://{x}")))
		pg := c.post(call(4, "prompts/get", `{"name":"hello"}`)).last()["result"].(map[string]any)
		Expect(pg["messages"]).To(HaveLen(1))
		Expect(c.post(call(5, "prompts/get", `{"name":"greet","arguments":{"name":"a"}}`)).last()).To(HaveKey("error"))
	})

	It("lists what it has none of as an empty array, not null (the schemas require an array)", func() {
		c.initialize("2025-03-26")
		// Its resource is read by a URI pattern and listed by no entry.
		rl := c.post(call(1, "resources/list", "")).last()["result"].(map[string]any)
		Expect(rl).To(HaveKeyWithValue("resources", BeEmpty()))
		Expect(rl["resources"]).To(Equal([]any{}))
		ext := profile(jsonRefusal)
		ext.Tools, ext.Templates, ext.Prompts = nil, nil, nil
		bare := &client{url: serveExt(ext, refserver.Options{}).URL + "/mcp/http", header: c.header, hc: c.hc}
		bare.initialize("2025-03-26")
		Expect(bare.post(call(1, "tools/list", "")).last()["result"]).To(HaveKeyWithValue("tools", Equal([]any{})))
		Expect(bare.post(call(2, "resources/templates/list", "")).last()["result"]).To(HaveKeyWithValue("resourceTemplates", Equal([]any{})))
	})

	It("speaks only its revisions", func() {
		r := c.initialize("2025-11-25")
		Expect(r.last()["result"]).To(HaveKeyWithValue("protocolVersion", "2025-03-26"))
		bad := c.post(call(1, "ping", ""), "MCP-Protocol-Version: 2025-06-18")
		Expect(bad.status).To(Equal(http.StatusBadRequest))
	})

	It("refuses a request without the token as the profile chooses, with its id", func() {
		r := c.post(call(7, "ping", ""), "Authorization:")
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		var m map[string]any
		Expect(json.Unmarshal(r.body, &m)).To(Succeed())
		Expect(m["id"]).To(BeNumerically("==", 7))
		Expect(m["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32600)))
		Expect(c.post(call(8, "ping", ""), "Authorization: Bearer wrong").status).To(Equal(http.StatusUnauthorized))

		ts401 := serveExt(profile(mcp.Refusal{Status: http.StatusUnauthorized}), refserver.Options{})
		plain := &client{url: ts401.URL + "/mcp/http", header: http.Header{}, hc: &http.Client{Timeout: wait}}
		r = plain.post(call(1, "initialize", `{}`))
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		Expect(json.Valid(r.body)).To(BeFalse(), "a plain-text refusal: %s", r.body)
	})

	It("serves its routes, with the token unless open", func() {
		get := func(path string, auth bool) (int, string) {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
			if auth {
				req.Header.Set("Authorization", "Bearer sekrit")
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		code, body := get("/api/things", true)
		Expect(code).To(Equal(http.StatusOK))
		Expect(body).To(Equal("[]"))
		code, _ = get("/api/things", false)
		Expect(code).To(Equal(http.StatusUnauthorized))
		code, body = get("/ping", false)
		Expect(code).To(Equal(http.StatusOK))
		Expect(body).To(Equal("pong"))
		code, _ = get("/mcp", true)
		Expect(code).To(Equal(http.StatusNotFound), "the MCP endpoint moved to /mcp/http")
	})

	It("runs its hook on every message: a refusal with its headers answers the POST", func() {
		c.initialize("2025-03-26")
		var last reply
		for i := 1; i <= 3; i++ {
			last = c.post(call(i, "tools/call", `{"name":"shout","arguments":{"text":"x"}}`))
		}
		Expect(last.status).To(Equal(http.StatusTooManyRequests))
		Expect(last.header.Get("Retry-After")).To(Equal("60"))
		Expect(last.last()["error"]).To(HaveKeyWithValue("code", BeNumerically("==", -32004)))
	})

	It("refuses a foreign Origin before its token check, and answers an unknown session before its hook", func() {
		r := c.post(call(1, "ping", ""), "Authorization:", "Origin: http://evil.example")
		Expect(r.status).To(Equal(http.StatusForbidden), "%s", r.body)
		c.initialize("2025-03-26")
		c.sid = "no-such-session"
		for i := 1; i <= 3; i++ {
			Expect(c.post(call(i, "tools/call", `{"name":"shout"}`)).status).To(Equal(http.StatusNotFound))
		}
	})

	It("serves the legacy transport on its paths", func() {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp/sse", nil)
		req.Header.Set("Authorization", "Bearer sekrit")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		evs := readEvents(resp.Body, func(e ev) bool { return e.typ == "endpoint" })
		Expect(evs).NotTo(BeEmpty())
		Expect(evs[len(evs)-1].data).To(HavePrefix("/mcp/sse/message?sessionId="))
	})

	It("passes the profile's names to the core only where it translates them", func() {
		ext := profile(jsonRefusal)
		ext.CoreVariants = map[string]string{"streams": "sse-answers"}
		out := gbytes.NewBuffer()
		code := make(chan int, 1)
		stdin := strings.NewReader(call(1, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`) + "\n" + call(2, "tools/list", "") + "\n")
		go func() {
			code <- mcp.ServeWith(refserver.Options{In: stdin, Out: out, Log: io.Discard, Faults: []string{"tools-list-bad"}}, *ext)
		}()
		Eventually(code, wait).Should(Receive(Equal(0)))
		lines := bytes.Split(bytes.TrimSpace(out.Contents()), []byte("\n"))
		Expect(lines).To(HaveLen(2))
		Expect(string(lines[1])).To(ContainSubstring(`"inputSchema"`), "tools-list-bad is no profile name it translates")
	})
})

var _ = Describe("the extension API's authorization discovery", func() {
	It("challenges a refusal and publishes MCP's discovery documents, checking only the profile's token", func() {
		ext := profile(mcp.Refusal{Status: http.StatusUnauthorized, Challenge: true})
		ext.Discovery = true
		ts := serveExt(ext, refserver.Options{})
		c := &client{url: ts.URL + "/mcp/http", header: http.Header{}, hc: &http.Client{Timeout: wait}}
		r := c.post(call(1, "ping", ""))
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		Expect(r.header.Get("WWW-Authenticate")).To(ContainSubstring(`resource_metadata="` + ts.URL + "/.well-known/oauth-protected-resource/mcp/http"))
		resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp/http")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		c.header.Set("Authorization", "Bearer sekrit")
		Expect(c.initialize("2025-03-26").status).To(Equal(http.StatusOK), "the MCP server's own token is not asked")
	})

	It("switches an MCP variant on by a profile's fault name, both fronts on one listener", func() {
		ext := profile(mcp.Refusal{Status: http.StatusUnauthorized})
		ext.CoreVariants = map[string]string{"no-session-id": "no-sessions"}
		log := gbytes.NewBuffer()
		stop := make(chan struct{})
		code := make(chan int, 1)
		go func() {
			code <- mcp.ServeWith(refserver.Options{HTTP: "127.0.0.1:0", Faults: []string{"no-session-id"}, Log: log, Out: log, Stop: stop}, *ext)
		}()
		Eventually(log, wait).Should(gbytes.Say(`listening on (http://\S+)/mcp/http`))
		base := strings.TrimSuffix(strings.Fields(string(log.Contents()))[2], "/mcp/http")
		c := &client{url: base + "/mcp/http", header: http.Header{"Authorization": {"Bearer sekrit"}}, hc: &http.Client{Timeout: wait}}
		r := c.initialize("2025-03-26")
		Expect(r.header.Get("Mcp-Session-Id")).To(BeEmpty())
		resp, err := http.Get(base + "/ping")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		close(stop)
		Eventually(code, wait).Should(Receive(Equal(0)))
	})
})
