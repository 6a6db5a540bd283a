package httpmcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// legacyServer is a 2024-11-05 HTTP+SSE server: GET /sse names endpoint
// in its first event, POSTs there are answered 202 and their responses
// come on the stream as events of type event ("" for none).
type legacyServer struct {
	endpoint string
	event    string
	inBody   bool
	// refuseBad refuses a body that is no JSON with 400, a JSON-RPC
	// parse error its body.
	refuseBad bool
	out       chan string
}

func (l *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		w.Header().Set("Content-Type", "text/event-stream")
		if l.endpoint != "" {
			fmt.Fprintf(w, ": hello\nevent: endpoint\ndata: %s\n\n", l.endpoint)
		}
		w.(http.Flusher).Flush()
		for {
			select {
			case msg := <-l.out:
				if l.event != "" {
					fmt.Fprintf(w, "event: %s\n", l.event)
				}
				fmt.Fprintf(w, "data: %s\n\n", msg)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/messages":
		b, _ := io.ReadAll(r.Body)
		if l.refuseBad && !json.Valid(b) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			return
		}
		var m rpc
		_ = json.Unmarshal(b, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if l.inBody {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(m.ID, "{}"))
			return
		}
		w.WriteHeader(http.StatusAccepted)
		select {
		case l.out <- result(m.ID, "{}"):
		case <-r.Context().Done():
		}
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

var _ = Describe("legacy HTTP+SSE", func() {
	It("waits for the endpoint event, POSTs there and reads the answers from the stream", func() {
		l := &legacyServer{endpoint: "/messages?sessionId=1", out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring(`"result"`))
		Expect(f.HTTP.Verb).To(Equal("GET"))
		Expect(f.HTTP.Stream).To(BeTrue())
		Expect(t.Send([]byte(initedNote))).To(Succeed())
		Expect(h.Verdicts(httpmcp.CheckSSEEndpoint)).To(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckSSEStream)).To(ConsistOf(verdict.Pass))
		// The notification's POST is judged when its answer comes, which
		// Send does not wait for.
		Eventually(func() []verdict.Verdict { return h.Verdicts(httpmcp.CheckSSEPostAccepted) }).WithTimeout(time.Minute).
			Should(ConsistOf(verdict.Pass, verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckSSEMessageEvent)).To(ConsistOf(verdict.Pass))
		Expect(t.(httpmcp.Exchanger).Kind()).To(Equal("sse"))
	})

	It("takes an absolute same-origin endpoint and an event typed message", func() {
		l := &legacyServer{event: "message", out: make(chan string)}
		s := server(l)
		l.endpoint = s.URL + "/messages"
		t, h := dial(s.URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		next(t)
		Expect(h.Verdicts(httpmcp.CheckSSEEndpoint)).To(ConsistOf(verdict.Pass))
		Expect(h.Verdicts(httpmcp.CheckSSEMessageEvent)).To(ConsistOf(verdict.Pass))
	})

	It("delivers a message in another event type, failing sse.message-event", func() {
		l := &legacyServer{endpoint: "/messages", event: "response", out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		next(t)
		Expect(h.Failure(httpmcp.CheckSSEMessageEvent)).To(ContainSubstring(`type "response"`))
	})

	It("delivers a message in the POST's body, failing sse.message-event", func() {
		l := &legacyServer{endpoint: "/messages", inBody: true, out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.Verb).To(Equal("POST"))
		Expect(h.Failure(httpmcp.CheckSSEMessageEvent)).To(ContainSubstring("POST's HTTP response body"))
	})

	It("takes a JSON-RPC error in the 4xx refusing a body that is no JSON-RPC message as that body's answer, not a misplaced server message", func() {
		l := &legacyServer{endpoint: "/messages", refuseBad: true, out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		next(t)
		Expect(t.WriteRaw([]byte("{"))).To(Succeed())
		f := next(t)
		Expect(string(f.Raw)).To(ContainSubstring("-32700"))
		Expect(f.HTTP.Verb).To(Equal("POST"))
		Expect(h.Verdicts(httpmcp.CheckSSEMessageEvent)).To(ConsistOf(verdict.Pass))
	})

	It("delivers a message event whose data is no JSON to the peer as it came, which charges it to ndjson.json (MCP-SSE-4)", func() {
		l := &legacyServer{endpoint: "/messages", out: make(chan string)}
		t, _ := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		go func() { l.out <- "ok" }()
		Expect(t.Send([]byte(initReq))).To(Succeed())
		var raw []string
		for range 2 {
			f := next(t)
			Expect(f.HTTP.Stream).To(BeTrue())
			raw = append(raw, string(f.Raw))
		}
		Expect(raw).To(ContainElement("ok"))
	})

	It("never POSTs to a foreign endpoint: the request ends at once, a URI still (sse.endpoint passes), on another origin (sse.endpoint-origin fails)", func() {
		l := &legacyServer{endpoint: "http://elsewhere.invalid/messages", out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(f.Raw).To(BeNil())
		Expect(f.HTTP.For).To(Equal("1"))
		Expect(f.HTTP.End).To(ContainSubstring("another origin"))
		Expect(h.Failure(httpmcp.CheckSSEEndpointOrigin)).To(ContainSubstring("elsewhere.invalid"))
		Expect(h.Verdicts(httpmcp.CheckSSEEndpoint)).To(ConsistOf(verdict.Pass))
	})

	It("ends the request when no endpoint event comes within the timeout", func() {
		l := &legacyServer{out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 300*time.Millisecond)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.End).To(ContainSubstring("no endpoint event"))
		Expect(h.Failure(httpmcp.CheckSSEEndpoint)).To(ContainSubstring("no endpoint event"))
	})

	It("ends the requests waiting when the stream ends", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
				w.(http.Flusher).Flush()
				time.Sleep(200 * time.Millisecond) // the request is POSTed meanwhile
				return
			}
			readRPC(r)
			w.WriteHeader(http.StatusAccepted)
		})
		t, _ := dial(server(h).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.For).To(Equal("1"))
		Expect(f.HTTP.End).To(Equal("the SSE stream ended"))
	})

	It("fails sse.stream when GET on the SSE URL answers no event stream", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{}")
		})
		t, hooks := dial(server(h).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		Expect(next(t).HTTP.End).NotTo(BeEmpty())
		Expect(hooks.Failure(httpmcp.CheckSSEStream)).To(ContainSubstring("application/json"))
	})

	It("fails no sse.stream when authorization refuses the GET (401): the run lacks a token, and the end says so", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="/.well-known/oauth-protected-resource"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		})
		t, hooks := dial(server(h).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		// dial sends an X-Token header, no Authorization.
		Expect(next(t).HTTP.End).To(ContainSubstring("HTTP 401"))
		Expect(hooks.Verdicts(httpmcp.CheckSSEStream)).To(BeEmpty())
	})

	It("leaves a refused body that is no JSON-RPC message to the bad-input rules, not sse.post-accepted", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return
			}
			w.WriteHeader(http.StatusBadRequest)
		})
		t, hooks := dial(server(h).URL+"/sse", "sse", 2*time.Second)
		for _, bad := range []string{`{not json`, `{"jsonrpc":"2.0","method":42,"id":1}`, `{"method":"ping","id":2}`, `[]`,
			// JSON-RPC 2.0 §4: an id is a string, number or null, params
			// an object or array; JSON text is UTF-8.
			`{"jsonrpc":"2.0","method":"ping","id":{}}`, `{"jsonrpc":"2.0","method":"ping","id":3,"params":5}`,
			"{\"jsonrpc\":\"2.0\",\"method\":\"p\xc3(\",\"id\":4}"} {
			Expect(t.WriteRaw([]byte(bad))).To(Succeed())
		}
		Expect(hooks.Verdicts(httpmcp.CheckSSEPostAccepted)).To(BeEmpty())
		Expect(t.Send([]byte(initedNote))).To(Succeed())
		// Send returns at the status line; the verdict follows the body.
		Eventually(func() string { return hooks.Failure(httpmcp.CheckSSEPostAccepted) }).Should(ContainSubstring("HTTP 400"))
		Expect(hooks.Verdicts(httpmcp.CheckSSEPostAccepted)).To(HaveLen(1), "the valid notification's alone")
	})

	It("fails sse.post-accepted on a refused POST and ends its request", func() {
		l := &legacyServer{endpoint: "/nowhere", out: make(chan string)}
		t, h := dial(server(l).URL+"/sse", "sse", 2*time.Second)
		Expect(t.Send([]byte(initReq))).To(Succeed())
		f := next(t)
		Expect(f.HTTP.End).To(ContainSubstring("HTTP 404"))
		Expect(h.Failure(httpmcp.CheckSSEPostAccepted)).To(ContainSubstring("HTTP 404"))
	})
})
