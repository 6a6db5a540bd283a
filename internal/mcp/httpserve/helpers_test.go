package httpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/testhooks"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// listen starts a server whose listener is closed after the spec.
func listen(legacy bool, set httpserve.Settings) (*httpserve.Server, *testhooks.Recorder) {
	rec := &testhooks.Recorder{}
	hooks := rec.Hooks()
	path := "/mcp"
	if legacy {
		path = "/sse"
	}
	s, err := httpserve.Listen(transport.ListenOptions{Hooks: &hooks, MaxFrame: 1 << 20}, legacy, path)
	Expect(err).NotTo(HaveOccurred())
	s.Set(set)
	DeferCleanup(s.Close)
	return s, rec
}

// accept waits for the next session.
func accept(s *httpserve.Server) *httpserve.Session {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := s.Accept(ctx)
	Expect(err).NotTo(HaveOccurred())
	return c.(*httpserve.Session)
}

// responder plays a minimal MCP server on a session until it ends:
// initialize at the revision asked, tools/list, tools/call, ping. before,
// when set, runs on each request before its answer.
func responder(c *httpserve.Session, before func(method, key string)) {
	go func() {
		defer GinkgoRecover()
		for f := range c.Recv() {
			msgs := []json.RawMessage{f.Raw}
			if bytes.HasPrefix(f.Raw, []byte("[")) {
				_ = json.Unmarshal(f.Raw, &msgs)
			}
			for _, raw := range msgs {
				answer(c, raw, before)
			}
		}
	}()
}

func answer(c *httpserve.Session, raw []byte, before func(method, key string)) {
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return
	}
	if before != nil {
		before(m.Method, string(m.ID))
	}
	var result string
	switch m.Method {
	case "slow":
		return // the spec answers it itself
	case "initialize":
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"wirecheck-test","version":"1"}}`, m.Params.ProtocolVersion)
	case "server/discover":
		result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"wirecheck-test","version":"1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		result = `{"content":[{"type":"text","text":"echoed"}]}`
	default:
		result = `{}`
	}
	_ = c.Send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`))
}

// client is a small Streamable HTTP client for the specs: each call
// sends exactly the headers it is given.
type client struct {
	url string
	hc  *http.Client
}

func newClient(url string) *client {
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	DeferCleanup(hc.CloseIdleConnections)
	return &client{url: url, hc: hc}
}

var goodPost = map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
			continue
		}
		out[kv[i]] = kv[i+1]
	}
	return out
}

func (cl *client) do(method, url string, h map[string]string, body string) *http.Response {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	Expect(err).NotTo(HaveOccurred())
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := cl.hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(resp.Body.Close)
	return resp
}

func (cl *client) post(h map[string]string, body string) *http.Response {
	return cl.do(http.MethodPost, cl.url, h, body)
}

// messages reads a response's JSON-RPC messages: the body, or each event
// with data of an SSE stream until it ends.
func messages(resp *http.Response) []string {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return []string{string(bytes.TrimSpace(b))}
	}
	var out []string
	r := sse.NewReader(resp.Body, 1<<20, 1<<20)
	for {
		ev, err := r.Next()
		if err != nil {
			Expect(errors.Is(err, io.EOF)).To(BeTrue(), "%v", err)
			return out
		}
		if ev.Data != "" {
			out = append(out, ev.Data)
		}
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// initialize opens a session at 2025-06-18 and sends initialized.
func initialize(cl *client, s *httpserve.Server) (*httpserve.Session, string) {
	accepted := make(chan *httpserve.Session, 1)
	go func() {
		defer GinkgoRecover()
		c := accept(s)
		responder(c, nil)
		accepted <- c
	}()
	resp := cl.post(goodPost, initBody)
	c := <-accepted
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	sid := resp.Header.Get("Mcp-Session-Id")
	Expect(sid).NotTo(BeEmpty())
	Expect(messages(resp)).To(ConsistOf(ContainSubstring(`"protocolVersion":"2025-06-18"`)))
	resp = cl.post(with(goodPost, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	Expect(resp.StatusCode).To(Equal(http.StatusAccepted))
	return c, sid
}
