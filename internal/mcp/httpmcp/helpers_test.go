package httpmcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/testhooks"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// server is an httptest server closed when the spec ends, before the
// leak check; the quit channels are closed first, for the handlers that
// wait on them (a hijacked connection is not the server's to wait for).
func server(h http.Handler, quit ...chan struct{}) *httptest.Server {
	s := httptest.NewServer(h)
	DeferCleanup(func() {
		for _, q := range quit {
			close(q)
		}
		s.Close()
	})
	return s
}

// dial connects to u with a short timeout and hooks; Close at spec end.
func dial(u, kind string, timeout time.Duration) (transport.Transport, *testhooks.Recorder) {
	return dialCapped(u, kind, timeout, 0)
}

// dialCapped is dial with MaxFrame (--max-frame) set; 0 is its default.
func dialCapped(u, kind string, timeout time.Duration, maxFrame int) (transport.Transport, *testhooks.Recorder) {
	t, err := httpmcp.Dial(httpmcp.Options{URL: u, Kind: kind, Timeout: timeout, Headers: []string{"X-Token: secret"}, MaxFrame: maxFrame})
	Expect(err).NotTo(HaveOccurred())
	h := &testhooks.Recorder{}
	t.(transport.Hooked).SetHooks(h.Hooks())
	DeferCleanup(func() {
		done := make(chan struct{})
		go func() { _ = t.Close(); close(done) }()
		Eventually(done).WithTimeout(3 * time.Second).Should(BeClosed())
	})
	return t, h
}

// next is the next frame, within a generous bound.
func next(t transport.Transport) transport.Frame {
	var f transport.Frame
	EventuallyWithOffset(1, t.Recv()).WithTimeout(10 * time.Second).Should(Receive(&f))
	return f
}

// rpc is what a handler reads of a POSTed message.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func readRPC(r *http.Request) rpc {
	var m rpc
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &m)
	return m
}

func result(id json.RawMessage, res string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}

const (
	initReq    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	initedNote = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listReq    = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// mcpServer is a small Streamable HTTP server: JSON answers (SSE with
// sse set), a session id, 202 to notifications, GET 405 unless get is
// set. It records the requests' headers.
type mcpServer struct {
	version string
	sse     bool
	get     http.HandlerFunc
	mu      sync.Mutex
	seen    []http.Header
	methods []string
}

func (m *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.seen = append(m.seen, r.Header.Clone())
	m.methods = append(m.methods, r.Method)
	m.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		if m.get != nil {
			m.get(w, r)
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	}
	m.serveRPC(w, readRPC(r))
}

// serveRPC answers one POSTed message.
func (m *mcpServer) serveRPC(w http.ResponseWriter, msg rpc) {
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	res := `{}`
	if msg.Method == "initialize" {
		v := m.version
		if v == "" {
			v = "2025-06-18"
		}
		res = `{"protocolVersion":"` + v + `"}`
		w.Header().Set("Mcp-Session-Id", "session-1")
	}
	body := result(msg.ID, res)
	if m.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Accel-Buffering", "no")
		if m.version == "2025-11-25" {
			fmt.Fprint(w, "id: p1\ndata:\nretry: 50\n\n")
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

func (m *mcpServer) headers() []http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]http.Header(nil), m.seen...)
}

func (m *mcpServer) verbs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.methods...)
}

// handshake runs initialize and notifications/initialized.
func handshake(t transport.Transport) transport.Frame {
	Expect(t.Send([]byte(initReq))).To(Succeed())
	f := next(t)
	Expect(t.Send([]byte(initedNote))).To(Succeed())
	return f
}
