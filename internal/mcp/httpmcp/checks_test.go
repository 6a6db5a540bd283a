package httpmcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// answer is a handler for POSTs: initialize and notifications as
// mcpServer does, other requests by f.
func answer(version string, f func(w http.ResponseWriter, r *http.Request, m rpc)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := readRPC(r)
		switch {
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, `{"protocolVersion":"`+version+`"}`))
		case m.ID == nil && m.Method == "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			f(w, r, m)
		}
	})
}

func sseHead(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
}

func flush(w http.ResponseWriter, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
	w.(http.Flusher).Flush()
}

const note = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`

var _ = Describe("checks", func() {
	DescribeTable("http.accepted and http.refused-status on a notification's answer",
		func(status int, body string, accepted, refused verdict.Verdict, evidence string) {
			h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprint(w, body)
			})
			t, hk := dial(server(h).URL, "http", 2*time.Second)
			handshake(t)
			Expect(t.Send([]byte(note))).To(Succeed())
			Eventually(func() []verdict.Verdict { return hk.Verdicts(httpmcp.CheckHTTPRefusedStatus) }).Should(HaveLen(2))
			if accepted == "" {
				Expect(hk.Verdicts(httpmcp.CheckHTTPAccepted)).To(ConsistOf(verdict.Pass)) // initialized's
			} else {
				Expect(hk.Verdicts(httpmcp.CheckHTTPAccepted)).To(ConsistOf(verdict.Pass, accepted))
			}
			Expect(hk.Verdicts(httpmcp.CheckHTTPRefusedStatus)).To(ConsistOf(verdict.Pass, refused))
			if evidence != "" {
				Expect(hk.Failure(httpmcp.CheckHTTPAccepted) + hk.Failure(httpmcp.CheckHTTPRefusedStatus)).To(ContainSubstring(evidence))
			}
		},
		Entry("202, no body", 202, "", verdict.Pass, verdict.Pass, ""),
		Entry("200 {}", 200, "{}", verdict.Fail, verdict.Pass, `HTTP 200, application/json, body "{}"`),
		Entry("202 with a body", 202, `{"ok":true}`, verdict.Fail, verdict.Pass, `not 202 Accepted with no body`),
		Entry("200 with a JSON-RPC error", 200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`, verdict.Fail, verdict.Fail, "a success status"),
		Entry("400 with an id-less error", 400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`, verdict.Verdict(""), verdict.Pass, ""),
	)

	It("leaves the answer to a body that only looks like a notification (jsonrpc not \"2.0\", no UTF-8) to the bad-input rules, not http.accepted and http.refused-status", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		for _, bad := range []string{`{"jsonrpc":"xxxx","method":"notifications/cancelled"}`, "{\"jsonrpc\":\"\xc3(2.0\",\"method\":\"b#c\"}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"a\":\"\xff\"}}"} {
			Expect(t.WriteRaw([]byte(bad))).To(Succeed())
			next(t)
		}
		Expect(hk.Verdicts(httpmcp.CheckHTTPAccepted)).To(ConsistOf(verdict.Pass)) // initialized's
		Expect(t.Send([]byte(note))).To(Succeed())
		Eventually(func() []verdict.Verdict { return hk.Verdicts(httpmcp.CheckHTTPAccepted) }).Should(ConsistOf(verdict.Pass, verdict.Fail))
		Expect(hk.Verdicts(httpmcp.CheckHTTPRefusedStatus)).To(ConsistOf(verdict.Pass, verdict.Fail))
	})

	It("fails http.content-type on JSON labelled text/plain, and still delivers it", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, result(m.ID, "{}"))
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.For).To(Equal("2"))
		Expect(f.Raw).NotTo(BeNil())
		Expect(hk.Verdicts(httpmcp.CheckHTTPContentType)).To(ConsistOf(verdict.Pass, verdict.Fail))
		Expect(hk.Failure(httpmcp.CheckHTTPContentType)).To(ContainSubstring(`HTTP 200, text/plain, body "{\"jsonrpc\"`))
	})

	// Each answers every request the same wrong way; the check fails once
	// the requests sent have been answered.
	DescribeTable("fails a check on the answers to the requests sent",
		func(revision string, reply func(w http.ResponseWriter, m rpc), sends []string, check, want string) {
			h := answer(revision, func(w http.ResponseWriter, r *http.Request, m rpc) { reply(w, m) })
			t, hk := dial(server(h).URL, "http", 2*time.Second)
			handshake(t)
			for _, req := range sends {
				Expect(t.Send([]byte(req))).To(Succeed())
				next(t)
			}
			Expect(hk.Failure(check)).To(ContainSubstring(want))
		},
		Entry("http.content-type on two JSON objects in one body", "2025-06-18", func(w http.ResponseWriter, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, "{}")+result(m.ID, "{}"))
		}, []string{listReq}, httpmcp.CheckHTTPContentType, "one JSON object"),
		Entry("http.xaccel on an SSE answer without X-Accel-Buffering: no", "2025-06-18", func(w http.ResponseWriter, m rpc) {
			w.Header().Set("Content-Type", "text/event-stream")
			flush(w, "data: %s\n\n", result(m.ID, "{}"))
		}, []string{listReq}, httpmcp.CheckHTTPXAccel, `X-Accel-Buffering: ""`),
		Entry("http.event-id-unique on an id reused by another stream", "2025-06-18", func(w http.ResponseWriter, m rpc) {
			sseHead(w)
			flush(w, "id: same\ndata: %s\n\n", result(m.ID, "{}"))
		}, []string{listReq, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`}, httpmcp.CheckHTTPEventIDUnique, `event id "same"`),
	)

	It("fails http.stream-has-response on a stream closed before the response, ending the call", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		Expect(next(t).Raw).NotTo(BeNil())
		f := next(t)
		Expect(f.Raw).To(BeNil())
		Expect(f.HTTP.For).To(Equal("2"))
		Expect(f.HTTP.End).To(Equal("the SSE stream closed before the response"))
		Expect(f.HTTP.Dropped).To(BeTrue())
		Expect(hk.Failure(httpmcp.CheckHTTPStreamHasResponse)).To(ContainSubstring("request 2, 1 events"))
	})

	It("fails http.stream-closes on a stream left open after the response, and closes it", func() {
		closed := make(chan struct{})
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "data: %s\n\n", result(m.ID, "{}"))
			<-r.Context().Done()
			close(closed)
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		next(t)
		Eventually(closed).WithTimeout(10 * time.Second).Should(BeClosed())
		Eventually(func() string { return hk.Failure(httpmcp.CheckHTTPStreamCloses) }).Should(ContainSubstring("still open 1s after the response"))
	})

	It("fails the checks judged once per stream (http.xaccel, http.priming) with one message whatever the stream, naming it in the actual value", func() {
		// The report counts them, "N of M SSE streams …", once per
		// scenario: a message naming the method made a finding per method.
		h := answer("2025-11-25", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			w.Header().Del("X-Accel-Buffering")
			flush(w, "data: %s\n\n", result(m.ID, "{}"))
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		next(t)
		Expect(t.Send([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))).To(Succeed())
		next(t)
		for _, check := range []string{httpmcp.CheckHTTPXAccel, httpmcp.CheckHTTPPriming} {
			Expect(verdict.Counted).To(HaveKey(check))
			msgs := map[string]bool{}
			var acts []string
			for _, o := range hk.Outcomes() {
				if o.Check == check && o.Verdict == verdict.Fail {
					msgs[o.Msg] = true
					acts = append(acts, o.Actual)
				}
			}
			Expect(msgs).To(HaveLen(1), check)
			Expect(acts).To(HaveLen(2), check+": tools/list and ping")
		}
		Expect(hk.Failure(httpmcp.CheckHTTPPriming)).To(ContainSubstring("actual: the tools/list SSE stream: first event"))
		Expect(hk.Failure(httpmcp.CheckHTTPXAccel)).To(ContainSubstring(`actual: the POST SSE response: X-Accel-Buffering: ""`))
	})

	DescribeTable("http.priming, only in 2025-11-25",
		func(version, stream string, want []verdict.Verdict) {
			h := answer(version, func(w http.ResponseWriter, r *http.Request, m rpc) {
				sseHead(w)
				flush(w, stream+"data: %s\n\n", result(m.ID, "{}"))
			})
			t, hk := dial(server(h).URL, "http", 2*time.Second)
			handshake(t)
			Expect(t.Send([]byte(listReq))).To(Succeed())
			next(t)
			Expect(hk.Verdicts(httpmcp.CheckHTTPPriming)).To(Equal(want))
		},
		Entry("id and empty data", "2025-11-25", "id: 0\ndata:\n\n", []verdict.Verdict{verdict.Pass}),
		Entry("comments then an id-only block", "2025-11-25", ": hi\nid: 0\n\n", []verdict.Verdict{verdict.Pass}),
		Entry("no priming event", "2025-11-25", "", []verdict.Verdict{verdict.Fail}),
		Entry("no priming before 2025-11-25", "2025-06-18", "", []verdict.Verdict(nil)),
	)

	DescribeTable("http.retry when the connection closes before the response after an event id",
		func(retry string, want verdict.Verdict) {
			h := answer("2025-11-25", func(w http.ResponseWriter, r *http.Request, m rpc) {
				sseHead(w)
				flush(w, "id: 1\n%sdata:\n\n", retry)
			})
			t, hk := dial(server(h).URL, "http", 2*time.Second)
			handshake(t)
			Expect(t.Send([]byte(listReq))).To(Succeed())
			Expect(next(t).HTTP.End).NotTo(BeEmpty())
			Expect(hk.Verdicts(httpmcp.CheckHTTPRetry)).To(ConsistOf(want))
		},
		Entry("retry sent", "retry: 50\n", verdict.Pass),
		Entry("no retry", "", verdict.Fail),
	)

	It("fails http.get-stream on a GET answered with JSON", func() {
		m := &mcpServer{get: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{}")
		}}
		t, hk := dial(server(m).URL, "http", 2*time.Second)
		handshake(t)
		Eventually(func() string { return hk.Failure(httpmcp.CheckHTTPGetStream) }).Should(ContainSubstring(`HTTP 200, application/json, body "{}"`))
	})

	It("fails http.get-no-response on a response on the GET stream, and http.one-stream on a request on two streams", func() {
		ping := `{"jsonrpc":"2.0","id":"s1","method":"ping"}`
		m := &mcpServer{get: func(w http.ResponseWriter, r *http.Request) {
			sseHead(w)
			flush(w, "data: %s\n\ndata: %s\n\n", result([]byte("7"), "{}"), ping)
			<-r.Context().Done()
		}}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				b := readRPC(r)
				if b.Method == "tools/list" {
					sseHead(w)
					flush(w, "data: %s\n\ndata: %s\n\n", ping, result(b.ID, "{}"))
					return
				}
				r.Body = http.NoBody
				m.serveRPC(w, b)
				return
			}
			m.ServeHTTP(w, r)
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		Eventually(func() string { return hk.Failure(httpmcp.CheckHTTPGetNoResponse) }).Should(ContainSubstring("id 7"))
		Eventually(func() string { return hk.Failure(httpmcp.CheckHTTPOneStream) }).Should(ContainSubstring(`id "s1"`))
	})

	It("delivers a response copied onto the GET stream once: the POST owed it, the copy is http.get-no-response's evidence only", func() {
		posted := make(chan struct{})
		m := &mcpServer{get: func(w http.ResponseWriter, r *http.Request) {
			sseHead(w)
			select {
			case <-posted:
			case <-r.Context().Done():
				return
			}
			// The copy of tools/list's answer, then a response to an id
			// wirecheck never sent, which goes on to the peer (a stray).
			flush(w, "data: %s\n\ndata: %s\n\n", result([]byte("2"), "{}"), result([]byte("77"), "{}"))
			<-r.Context().Done()
		}}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				b := readRPC(r)
				r.Body = http.NoBody
				m.serveRPC(w, b)
				if b.Method == "tools/list" {
					close(posted)
				}
				return
			}
			m.ServeHTTP(w, r)
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		// Read until the POST's own answer and the GET's last event are
		// both in: a copy delivered comes before the latter, whichever
		// connection the transport read first.
		var ids []string
		postAnswered := false
		for !postAnswered || !slices.Contains(ids, "77") {
			f := next(t)
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(f.Raw, &msg) == nil && msg.ID != nil {
				ids = append(ids, string(msg.ID))
				postAnswered = postAnswered || f.HTTP.Verb == http.MethodPost && string(msg.ID) == "2"
			}
		}
		Expect(ids).To(ConsistOf("2", "77"))
		Expect(hk.Failure(httpmcp.CheckHTTPGetNoResponse)).To(ContainSubstring("id 2"))
	})

	It("delivers each value of a body of several JSON values after the body as it came", func() {
		h := answer("2025-06-18", func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, "{}")+"\n"+note)
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		var raws []string
		for range 3 {
			raws = append(raws, string(next(t).Raw))
		}
		Expect(raws).To(Equal([]string{result([]byte("2"), "{}") + "\n" + note, result([]byte("2"), "{}"), note}))
	})

	It("fails http.session-id on a session id with a space", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := readRPC(r)
			w.Header().Set("Mcp-Session-Id", "sess 1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, `{"protocolVersion":"2025-06-18"}`))
		})
		t, hk := dial(server(h).URL, "http", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		next(t)
		Expect(hk.Failure(httpmcp.CheckHTTPSessionID)).To(ContainSubstring(`"sess 1"`))
	})
})

var _ = Describe("resumption", func() {
	It("resumes a stream closed before the response with GET and Last-Event-ID", func() {
		var lastID atomic.Value
		h := answer("2025-11-25", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "id: e1\nretry: 10\ndata:\n\n")
		})
		mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
				lastID.Store(r.Header.Get("Last-Event-ID"))
				sseHead(w)
				flush(w, "id: e2\ndata: %s\n\n", result([]byte("2"), "{}"))
				return
			}
			h.ServeHTTP(w, r)
		})
		t, hk := dial(server(mux).URL, "http", 2*time.Second)
		handshake(t)
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Raw).NotTo(BeNil())
		Expect(f.HTTP.Verb).To(Equal("GET"))
		Expect(f.HTTP.For).To(Equal("2"))
		Expect(f.HTTP.EventID).To(Equal("e2"))
		Expect(lastID.Load()).To(Equal("e1"))
		Expect(hk.Verdicts(httpmcp.CheckHTTPRetry)).To(ConsistOf(verdict.Pass))
		Expect(hk.Verdicts(httpmcp.CheckHTTPStreamHasResponse)).To(ConsistOf(verdict.Pass))
		Eventually(func() []verdict.Verdict { return hk.Verdicts(httpmcp.CheckHTTPStreamCloses) }).Should(ConsistOf(verdict.Pass))
	})

	It("does not resume in 2026-07-28, whose streams are not resumable", func() {
		var resumes atomic.Int32
		h := answer("2026-07-28", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "id: e1\nretry: 10\ndata:\n\n")
		})
		mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Last-Event-ID") != "" {
				resumes.Add(1)
			}
			h.ServeHTTP(w, r)
		})
		t, _ := dial(server(mux).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(Equal("the SSE stream closed before the response"))
		Expect(resumes.Load()).To(BeZero())
	})

	It("ends the request when the resumption is refused, saying so", func() {
		h := answer("2025-11-25", func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			flush(w, "id: e1\nretry: 10\ndata:\n\n")
		})
		t, _ := dial(server(h).URL, "http", 2*time.Second)
		handshake(t)
		Expect(ended(t).HTTP.End).To(Equal(`the SSE stream closed before the response; resuming it with Last-Event-ID e1 got HTTP 405, no Content-Type, no body`))
	})
})
