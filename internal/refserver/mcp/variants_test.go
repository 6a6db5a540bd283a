package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

var _ = Describe("the HTTP variants of the reference server", func() {
	countdown := call(7, "tools/call", `{"name":"countdown","_meta":{"progressToken":"p"}}`)

	It("sse-answers: answers every request with an SSE stream", func() {
		c := ready(serve(false, nil, []string{"sse-answers"}), "2025-06-18")
		r := c.post(call(1, "tools/list", ""))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		Expect(r.last()["result"]).To(HaveKey("tools"))
	})

	It("sse-when-needed: JSON for an answer alone, a stream when progress comes with it", func() {
		c := ready(serve(false, nil, []string{"sse-when-needed"}), "2025-06-18")
		Expect(c.post(call(1, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)).header.Get("Content-Type")).To(HavePrefix("application/json"))
		r := c.post(countdown)
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		Expect(r.msgs()).To(HaveLen(3))
	})

	It("bad-input-plain-400: refuses a body it cannot parse with a plain-text 400, and goes on", func() {
		c := ready(serve(false, nil, []string{"bad-input-plain-400"}), "2025-06-18")
		r := c.post("{")
		Expect(r.status).To(Equal(http.StatusBadRequest))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/plain"))
		Expect(c.post(call(1, "ping", "")).status).To(Equal(http.StatusOK))
	})

	It("legacy-bad-input-plain-400: refuses a body it cannot parse with a plain-text 400 and no error on the stream", func() {
		l := serve(true, nil, []string{"legacy-bad-input-plain-400"}).connect()
		Expect(l.post("{").status).To(Equal(http.StatusBadRequest))
		Expect(l.post(call(1, "ping", "")).status).To(Equal(http.StatusAccepted))
		first := l.st.next(func(m map[string]any) bool { return m["id"] != nil || m["error"] != nil })
		Expect(first).To(HaveKeyWithValue("id", 1.0), "the ping's answer comes first: no error for the refused body")
	})

	It("bearer-key: checks the token, challenges with a bare Bearer and publishes nothing of OAuth", func() {
		s := serve(false, nil, []string{"bearer-key"})
		c := s.client()
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		for _, set := range [][]string{nil, {"Authorization: Bearer wirecheck-invalid-token"}} {
			r := c.post(init, set...)
			Expect(r.status).To(Equal(http.StatusUnauthorized), "%v", set)
			Expect(r.header.Values("WWW-Authenticate")).To(Equal([]string{"Bearer"}), "%v", set)
		}
		Expect(c.post(init, "Authorization: Bearer "+mcp.Token).status).To(Equal(http.StatusOK))
		for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/token"} {
			Expect(get(s, p).status).To(Equal(http.StatusNotFound), p)
		}
	})

	It("legacy-bad-input-json-400: refuses a body it cannot parse with a 400 whose body is the JSON-RPC error, and nothing on the stream", func() {
		l := serve(true, nil, []string{"legacy-bad-input-json-400"}).connect()
		r := l.post("{")
		Expect(r.status).To(Equal(http.StatusBadRequest))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(r.last()).To(HaveKeyWithValue("id", BeNil()))
		Expect(r.last()["error"]).To(HaveKeyWithValue("code", -32700.0))
		Expect(l.post(call(1, "ping", "")).status).To(Equal(http.StatusAccepted))
		first := l.st.next(func(m map[string]any) bool { return m["id"] != nil || m["error"] != nil })
		Expect(first).To(HaveKeyWithValue("id", 1.0), "the ping's answer comes first: the error went in the refusal")
	})

	It("get-405: answers GET 405", func() {
		c := ready(serve(false, nil, []string{"get-405"}), "2025-06-18")
		Expect(c.do(http.MethodGet, "").status).To(Equal(http.StatusMethodNotAllowed))
	})

	It("no-sessions: names no session and serves requests without one, by their version header", func() {
		c := serve(false, nil, []string{"no-sessions"}).client()
		r := c.initialize("2025-06-18")
		Expect(r.header.Get("Mcp-Session-Id")).To(BeEmpty())
		r = c.post(call(1, "tools/list", ""))
		Expect(r.status).To(Equal(http.StatusOK))
		tools := r.last()["result"].(map[string]any)["tools"].([]any)
		Expect(tools[0]).To(HaveKey("outputSchema"), "served as 2025-06-18")
	})

	It("delete-405: answers DELETE 405 and the session goes on", func() {
		c := ready(serve(false, nil, []string{"delete-405"}), "2025-06-18")
		Expect(c.do(http.MethodDelete, "").status).To(Equal(http.StatusMethodNotAllowed))
		Expect(c.post(call(1, "ping", "")).status).To(Equal(http.StatusOK))
	})

	It("resumable: numbers events uniquely and replays the rest of a stream after Last-Event-ID", func() {
		c := ready(serve(false, nil, []string{"resumable"}), "2025-06-18")
		st := c.open(http.MethodPost, call(8, "tools/call", `{"name":"slow","arguments":{"durationMs":300},"_meta":{"progressToken":"r"}}`))
		var first ev
		Eventually(st.evs, wait).Should(Receive(&first))
		Expect(first.id).NotTo(BeEmpty())
		st.resp.Body.Close()
		// The server may not have seen the drop when the GET comes (it
		// refuses to resume a stream still live): a client reconnects, as
		// the http-resume scenario does.
		var resp *http.Response
		Eventually(func() string {
			if resp != nil {
				resp.Body.Close()
			}
			resp = c.send(http.MethodGet, "", "Last-Event-ID: "+first.id)
			return resp.Header.Get("Content-Type")
		}, wait).Should(HavePrefix("text/event-stream"))
		defer resp.Body.Close()
		evs := readEvents(resp.Body, func(e ev) bool { return isAnswer(e.data) })
		Expect(evs).NotTo(BeEmpty())
		last := evs[len(evs)-1]
		Expect(last.data).To(ContainSubstring(`"id":8`))
		Expect(last.id).NotTo(Equal(first.id))
	})

	It("polling: primes with retry 50, closes before the answer and answers on the resumed GET", func() {
		c := ready(serve(false, nil, []string{"polling"}), "2025-11-25")
		resp := c.send(http.MethodPost, countdown)
		evs := readEvents(resp.Body, nil)
		resp.Body.Close()
		Expect(evs).To(HaveLen(1))
		Expect(evs[0].retry).To(Equal(50))
		Expect(evs[0].data).To(BeEmpty())
		r := c.do(http.MethodGet, "", "Last-Event-ID: "+evs[0].id)
		Expect(r.msgs()).To(HaveLen(3))
		Expect(r.last()["id"]).To(BeNumerically("==", 7))
	})

	It("batch-sse: answers a 2025-03-26 batch with one event holding the array", func() {
		c := ready(serve(false, nil, []string{"batch-sse"}), "2025-03-26")
		r := c.post(`[` + call(1, "ping", "") + `,` + call(2, "ping", "") + `]`)
		Expect(r.header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		var arr []any
		Expect(json.Unmarshal([]byte(r.events[len(r.events)-1].data), &arr)).To(Succeed())
		Expect(arr).To(HaveLen(2))
	})

	It("batch-sse-events: answers a 2025-03-26 batch with one stream, a response an event", func() {
		c := ready(serve(false, nil, []string{"batch-sse-events"}), "2025-03-26")
		resp := c.send(http.MethodPost, `[`+call(1, "ping", "")+`,`+call(2, "ping", "")+`]`)
		defer resp.Body.Close()
		Expect(resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		var ids []any
		for _, e := range readEvents(resp.Body, nil) {
			var m map[string]any
			if json.Unmarshal([]byte(e.data), &m) == nil {
				ids = append(ids, m["id"])
			}
		}
		Expect(ids).To(ConsistOf(1.0, 2.0))
	})

	It("answers a batch of notifications only with 202 and a batch of requests with a JSON array", func() {
		c := ready(serve(false, nil, nil), "2025-03-26")
		Expect(c.post(`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`).status).To(Equal(http.StatusAccepted))
		r := c.post(`[` + call(1, "ping", "") + `]`)
		Expect(r.status).To(Equal(http.StatusOK))
		Expect(strings.TrimSpace(string(r.body))).To(HavePrefix("["))
	})

	It("reject-stray-input: refuses a stray response and an unknown notification with 400 and an id-less error", func() {
		c := ready(serve(false, nil, []string{"reject-stray-input"}), "2025-06-18")
		for _, b := range []string{`{"jsonrpc":"2.0","id":999,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/wirecheck/unknown"}`} {
			r := c.post(b)
			Expect(r.status).To(Equal(http.StatusBadRequest))
			Expect(r.last()).NotTo(HaveKey("id"))
			Expect(r.last()).To(HaveKey("error"))
		}
	})

	It("origin-json-403: refuses a foreign Origin with 403 and an id-less JSON-RPC error", func() {
		c := ready(serve(false, nil, []string{"origin-json-403"}), "2025-11-25")
		r := c.post(call(1, "ping", ""), "Origin: http://dns-rebinding.wirecheck.invalid")
		Expect(r.status).To(Equal(http.StatusForbidden))
		Expect(r.header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(r.last()).NotTo(HaveKey("id"))
	})

	It("auth: 401 with a challenge naming the metadata, published at both well-known URIs; the token is served", func() {
		s := serve(false, nil, []string{"auth"})
		c := s.client()
		r := c.post(call(0, "ping", ""))
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		ch := r.header.Get("WWW-Authenticate")
		Expect(ch).To(HavePrefix("Bearer "))
		Expect(ch).To(ContainSubstring(`resource_metadata="` + s.ts.URL + `/.well-known/oauth-protected-resource/mcp"`))
		Expect(ch).To(ContainSubstring(`scope="mcp"`))
		for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			d := get(s, p)
			Expect(d.status).To(Equal(http.StatusOK), p)
			var doc map[string]any
			Expect(json.Unmarshal(d.body, &doc)).To(Succeed())
			Expect(doc).To(HaveKeyWithValue("resource", s.ts.URL+"/mcp"))
			Expect(doc["authorization_servers"]).To(ContainElement(HavePrefix("https://")))
		}
		c.header.Set("Authorization", "Bearer wirecheck-reference-token")
		Expect(c.initialize("2025-06-18").status).To(Equal(http.StatusOK))
	})

	It("auth-wellknown-only: a challenge without resource_metadata, the metadata at the path-suffixed URI only", func() {
		s := serve(false, nil, []string{"auth-wellknown-only"})
		r := s.client().post(call(0, "ping", ""))
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		Expect(r.header.Get("WWW-Authenticate")).NotTo(ContainSubstring("resource_metadata"))
		Expect(get(s, "/.well-known/oauth-protected-resource/mcp").status).To(Equal(http.StatusOK))
		Expect(get(s, "/.well-known/oauth-protected-resource").status).To(Equal(http.StatusNotFound))
	})

	It("auth-metadata-elsewhere: the challenge names the metadata on a host beyond this machine", func() {
		s := serve(false, nil, []string{"auth-metadata-elsewhere"})
		r := s.client().post(call(0, "ping", ""))
		Expect(r.status).To(Equal(http.StatusUnauthorized))
		ch := r.header.Get("WWW-Authenticate")
		Expect(ch).To(ContainSubstring(`resource_metadata="https://auth.example.invalid/.well-known/oauth-protected-resource/mcp"`))
		Expect(ch).To(ContainSubstring(`scope="mcp"`))
		Expect(ch).NotTo(ContainSubstring(s.ts.URL))
	})

	It("keepalive-comments: comments on an open stream", func() {
		c := ready(serve(false, nil, []string{"keepalive-comments"}), "2025-06-18")
		resp := c.send(http.MethodGet, "")
		lines := rawLines(resp, func(l string) bool { return strings.HasPrefix(l, ":") })
		Expect(lines[len(lines)-1]).To(Equal(": keepalive"))
	})

	It("multiline-data: splits the JSON of an event over several data lines", func() {
		c := ready(serve(false, nil, []string{"multiline-data", "sse-answers"}), "2025-06-18")
		resp := c.send(http.MethodPost, call(1, "ping", ""))
		lines := rawLines(resp, func(string) bool { return false })
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "data:") {
				n++
			}
		}
		Expect(n).To(BeNumerically(">", 1))
		r := ready(serve(false, nil, []string{"multiline-data", "sse-answers"}), "2025-06-18").post(call(1, "ping", ""))
		Expect(r.last()["id"]).To(BeNumerically("==", 1))
	})

	It("endpoint-absolute: names the legacy endpoint by an absolute same-origin URL", func() {
		s := serve(true, nil, []string{"endpoint-absolute"})
		u, err := url.Parse(s.connect().endpoint)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Scheme + "://" + u.Host).To(Equal(s.ts.URL))
		Expect(u.Path).To(Equal("/message"))
	})

	It("trailing-slash-redirect: redirects /mcp to /mcp/ with 307, served there", func() {
		s := serve(false, nil, []string{"trailing-slash-redirect"})
		c := s.client()
		r := c.post(call(0, "ping", ""))
		Expect(r.status).To(Equal(http.StatusTemporaryRedirect))
		Expect(r.header.Get("Location")).To(Equal("/mcp/"))
		c.url += "/"
		Expect(c.initialize("2025-06-18").status).To(Equal(http.StatusOK))
	})

	It("idle-expiry: ends a session idle for 3 s; its id is answered 404", func() {
		c := ready(serve(false, nil, []string{"idle-expiry"}), "2025-06-18")
		// Each probe touches a live session, so they come further apart
		// than the expiry.
		Eventually(func() int { return c.post(call(1, "ping", "")).status }, 30*time.Second, 4*time.Second).Should(Equal(http.StatusNotFound))
	})
})
