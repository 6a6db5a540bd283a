package mcpclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// The reference client over HTTP: given a URL in place of a server
// command, it speaks Streamable HTTP, or the legacy HTTP+SSE transport
// when a POST of initialize is refused 400, 404 or 405 (2025-03-26
// basic/transports, Backwards Compatibility). The conversation is the
// stdio one's: link turns each line the client writes into a POST, and
// everything the server answers (JSON bodies, SSE events) into lines the
// client reads.

// serverURL is the URL a client is given alone instead of a command.
func serverURL(args []string) (*url.URL, bool) {
	if len(args) != 1 || !strings.HasPrefix(args[0], "http://") && !strings.HasPrefix(args[0], "https://") {
		return nil, false
	}
	u, err := url.Parse(args[0])
	return u, err == nil
}

// serveHTTP runs the reference client against the server at u.
func serveHTTP(o refserver.Options, u *url.URL) int {
	c := newClient(o)
	l := newLink(u, c.fault, c.variant, o.Log)
	l.params = c.paramsOf
	l.creds = credsFromEnv()
	c.in = l
	go c.read(l.lines)
	code := c.run()
	if code == 0 && c.variant["linger"] {
		// An interactive client: the session lasts until the server
		// ends it, which ends the stream it listens on.
		l.mu.Lock()
		streaming := l.getStreaming
		l.mu.Unlock()
		if streaming {
			<-l.getDone
		}
	}
	_ = l.Close()
	return code
}

// link carries the client's messages over HTTP.
type link struct {
	url   *url.URL
	fault map[string]bool
	log   io.Writer
	hc    *http.Client
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	lines *io.PipeReader
	pw    *io.PipeWriter
	wmu   sync.Mutex // one message at a time into the pipe

	mu      sync.Mutex
	post    string // where messages go: the URL, or the legacy endpoint
	legacy  bool
	sid     string
	version string
	getOpen bool
	// getStreaming: the GET stream is open; getDone closes when it ends.
	getStreaming bool
	getDone      chan struct{}
	// init is the client's initialize, which a new session repeats.
	init map[string]any
	// token is the access token the client was issued (oauth.go).
	token string
	// variant are the client's variants (how it authenticates at the
	// token endpoint; ids-restart: a new session's ids begin again).
	variant map[string]bool

	// creds are what the client was given out of band (oauthext.go).
	creds creds

	// authMu lets one 401 at a time lead to an authorization; authTries
	// counts them, so a server refusing every token is not asked forever.
	authMu    sync.Mutex
	authTries int
	// params are a tool's x-mcp-header annotations, by its name.
	params func(tool string) []mcpheader.Param
	// reg is who the client is to authorization servers (registration.go).
	reg registrations
}

func newLink(u *url.URL, fault, variant map[string]bool, log io.Writer) *link {
	ctx, stop := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	return &link{url: u, fault: fault, variant: variant, log: log, hc: &http.Client{Timeout: 0}, ctx: ctx, stop: stop,
		lines: pr, pw: pw, post: u.String(), getDone: make(chan struct{})}
}

// deliver hands one message to the client's reader.
func (l *link) deliver(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	var batch []json.RawMessage
	if data[0] == '[' && json.Unmarshal(data, &batch) == nil {
		for _, m := range batch {
			l.deliver(m)
		}
		return
	}
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(data, &m) == nil && m.Result.ProtocolVersion != "" {
		l.mu.Lock()
		l.version = m.Result.ProtocolVersion
		l.mu.Unlock()
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, _ = l.pw.Write(append(append([]byte(nil), data...), '\n'))
}

// metadata mirrors a request's method and name into the headers a
// revision with per-request _meta asks for (2026-07-28 streamable-http,
// Standard Request Headers); the fault no-method-header leaves
// Mcp-Method out.
func (l *link) metadata(req *http.Request, body []byte) {
	r, ok := mcpheader.Read(body)
	if !ok || r.Method == "" || r.Revision == "" || !mcprevisions.Has(r.Revision, revtable.RequiredMeta) {
		return
	}
	l.mu.Lock()
	l.version = r.Revision
	l.mu.Unlock()
	if !l.fault["no-method-header"] {
		req.Header.Set("Mcp-Method", r.Method)
	}
	if r.NameRequired() && r.HasName {
		req.Header.Set("Mcp-Name", mcpheader.Encode(r.Name))
	}
	if r.Method == "tools/call" && r.HasName && l.params != nil && !l.fault["no-param-headers"] {
		l.mirror(req, r, l.params(r.Name))
	}
}

// mirror puts the tool's annotated arguments in Mcp-Param headers
// (streamable-http, Custom Headers from Tool Parameters): none for a
// null one, Base64 where a value cannot travel plain; the faults
// param-null-sent and param-unencoded do otherwise, the variant
// param-base64-all encodes every value.
func (l *link) mirror(req *http.Request, r mcpheader.Request, ps []mcpheader.Param) {
	for _, p := range ps {
		if v, present := p.At(r.Arguments); present && v == nil {
			if l.fault["param-null-sent"] {
				req.Header.Set(p.Header(), "null")
			}
			continue
		}
		raw, ok := p.Raw(r.Arguments)
		if !ok {
			continue
		}
		v := mcpheader.Encode(raw)
		switch {
		case l.fault["param-unencoded"]:
			v = raw
		case l.variant["param-base64-all"]:
			v = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(raw)) + "?="
		}
		req.Header.Set(p.Header(), v)
	}
}

// headers are what every request after initialize carries, less what a
// fault leaves out.
func (l *link) headers(req *http.Request, accept string) {
	l.mu.Lock()
	sid, version := l.sid, l.version
	l.mu.Unlock()
	if l.fault["wrong-accept"] {
		accept = "application/json"
		if req.Method == http.MethodGet {
			accept = "application/json"
		}
	}
	req.Header.Set("Accept", accept)
	if sid != "" && !l.fault["no-session-id"] {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" && mcprevisions.Has(version, revtable.VersionHeader) && !l.fault["no-protocol-version-header"] {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	l.mu.Lock()
	token := l.token
	l.mu.Unlock()
	switch {
	case token == "":
	case l.fault["token-in-query"]:
		q := req.URL.Query()
		q.Set("access_token", token)
		req.URL.RawQuery = q.Encode()
	default:
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

// Write sends one line the client wrote: one message, one POST. A
// request's answer is read apart (it may wait on the client answering the
// server's own requests), the rest is sent before Write returns, so the
// order the client wrote them in holds.
func (l *link) Write(line []byte) (int, error) {
	body := bytes.TrimSpace(line)
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &m)
	isRequest := m.Method != "" && len(m.ID) > 0
	if m.Method == "initialize" {
		var v map[string]any
		if json.Unmarshal(body, &v) == nil {
			l.mu.Lock()
			l.init = v
			// A fallback after a probe of 2026-07-28: initialize
			// carries no version header (none is negotiated yet).
			l.version = ""
			l.mu.Unlock()
		}
	}
	if m.Method == "initialize" && !l.legacyChecked() {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.initialize(body, string(m.ID))
		}()
		return len(line), nil
	}
	if isRequest {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.request(body, string(m.ID))
		}()
		return len(line), nil
	}
	l.mu.Lock()
	sid := l.sid
	l.mu.Unlock()
	resp, err := l.send(body)
	if err != nil {
		fmt.Fprintln(l.log, "mcp reference client:", err)
		return len(line), nil
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if m.Method == "notifications/initialized" && resp.StatusCode == http.StatusAccepted {
		l.openGet(sid)
	}
	return len(line), nil
}

func (l *link) legacyChecked() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.legacy || l.sid != ""
}

// send POSTs one message; answered 401, it authorizes (once) and sends
// it again with the token; answered 403 insufficient_scope, it authorizes
// again with the challenge's scope (step-up) and sends it once more, then
// treats the request as failed (the fault retry-forever keeps going,
// bounded; no-step-up sends it again with the same token).
func (l *link) send(body []byte) (*http.Response, error) {
	for tries := 0; ; tries++ {
		l.mu.Lock()
		used := l.token
		l.mu.Unlock()
		resp, err := l.post1(body)
		if err != nil {
			return nil, err
		}
		www := resp.Header.Get("WWW-Authenticate")
		limit := 0
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			limit = 1
		case resp.StatusCode == http.StatusForbidden && strings.Contains(www, "insufficient_scope"):
			limit = 1
			if l.fault["retry-forever"] {
				limit = 10
			}
		default:
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if tries >= limit {
			return nil, fmt.Errorf("HTTP %d again after authorizing: giving up", resp.StatusCode)
		}
		if resp.StatusCode == http.StatusForbidden && l.fault["no-step-up"] {
			continue
		}
		l.authMu.Lock()
		l.mu.Lock()
		renewed := l.token != used
		l.mu.Unlock()
		if !renewed {
			if resp.StatusCode == http.StatusUnauthorized && l.authTries >= 2 {
				l.authMu.Unlock()
				return nil, fmt.Errorf("HTTP 401 after authorizing twice: giving up")
			}
			if resp.StatusCode == http.StatusUnauthorized {
				l.authTries++
			}
			if err := l.authorize(www); err != nil {
				l.authMu.Unlock()
				fmt.Fprintln(l.log, "mcp reference client: OAuth flow failed:", err)
				return nil, err
			}
		}
		l.authMu.Unlock()
	}
}

func (l *link) post1(body []byte) (*http.Response, error) {
	l.mu.Lock()
	post := l.post
	l.mu.Unlock()
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, post, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	l.metadata(req, body)
	l.headers(req, "application/json, text/event-stream")
	return l.hc.Do(req)
}

// initialize POSTs initialize; refused as a legacy server refuses it, it
// goes over HTTP+SSE instead.
func (l *link) initialize(body []byte, key string) {
	resp, err := l.send(body)
	if err != nil {
		l.lost(key, err.Error())
		return
	}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		resp.Body.Close()
		if !l.openLegacy() {
			l.lost(key, "neither Streamable HTTP nor HTTP+SSE answered")
			return
		}
		resp, err = l.send(body)
		if err != nil {
			l.lost(key, err.Error())
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		l.mu.Lock()
		l.sid = sid
		l.mu.Unlock()
	}
	l.answer(resp, key)
}

// lost gives the client an error answer for a request whose answer the
// transport could not get, so it goes on rather than waiting it out.
func (l *link) lost(key, why string) {
	fmt.Fprintf(l.log, "mcp reference client: no answer to request %s: %s\n", key, why)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(key), "error": map[string]any{"code": -32603, "message": "transport: " + why}})
	l.deliver(msg)
}

// refused is lost for a request the server answered with an HTTP status
// other than 200 (or 202): the error's data carries the status, the
// content type and the body.
func (l *link) refused(key, why string, status int, ct string, body []byte) {
	fmt.Fprintf(l.log, "mcp reference client: no answer to request %s: %s\n", key, why)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(key), "error": map[string]any{"code": -32603, "message": "transport: " + why,
		"data": map[string]any{"httpStatus": status, "contentType": ct, "body": string(body)}}})
	l.deliver(msg)
}

// request POSTs a request and reads its answer; a session the server
// ended (404) is begun anew, and the request sent again in it.
func (l *link) request(body []byte, key string) {
	resp, err := l.send(body)
	if err != nil {
		l.lost(key, err.Error())
		return
	}
	l.mu.Lock()
	sid, legacy := l.sid, l.legacy
	l.mu.Unlock()
	if resp.StatusCode == http.StatusNotFound && sid != "" && !legacy {
		resp.Body.Close()
		if !l.renew(sid) {
			l.lost(key, "the session ended and no new one began")
			return
		}
		if resp, err = l.send(body); err != nil {
			l.lost(key, err.Error())
			return
		}
	}
	l.answer(resp, key)
}

// renew starts a new session after the server ended old: initialize
// without a session id (the fault reinit-with-old-id keeps it), then
// notifications/initialized.
func (l *link) renew(old string) bool {
	l.mu.Lock()
	if !l.fault["reinit-with-old-id"] {
		l.sid = ""
	}
	again := map[string]any{}
	for k, v := range l.init {
		again[k] = v
	}
	l.mu.Unlock()
	// The same initialize as the first session's (capabilities, client
	// info, revision), under an id of its own, unless ids begin again
	// with the session: a new session is a new id space.
	if !l.variant["ids-restart"] {
		again["id"] = "renew"
	}
	init, _ := json.Marshal(again)
	resp, err := l.send(init)
	if err != nil || resp.StatusCode != http.StatusOK {
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		fmt.Fprintf(l.log, "mcp reference client: session %s ended; a new one was refused: %v\n", old, err)
		return false
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.mu.Lock()
	l.sid = sid
	l.mu.Unlock()
	if resp, err = l.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return true
}

// answer reads a POST's answer: one JSON body, or an SSE stream, resumed
// with GET and Last-Event-ID when it breaks before the response to key.
func (l *link) answer(resp *http.Response, key string) {
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return
	case strings.HasPrefix(ct, "application/json") && resp.StatusCode == http.StatusOK:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		l.deliver(b)
		return
	case !strings.HasPrefix(ct, "text/event-stream") || resp.StatusCode != http.StatusOK:
		// The status and the body go to the client with the error: a
		// 400 to its probe is how a server of an earlier revision may
		// answer it (run's fallback reads them).
		var b []byte
		if !strings.HasPrefix(ct, "text/event-stream") {
			// (A stream's body may never end.)
			b, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		}
		l.refused(key, fmt.Sprintf("HTTP %d %s", resp.StatusCode, ct), resp.StatusCode, ct, b)
		return
	}
	last, retry, done := l.events(resp.Body, key)
	defer func() {
		if !done {
			l.lost(key, "its stream ended before the response")
		}
	}()
	for !done && last != "" && l.ctx.Err() == nil {
		// The stream broke before the response: resume it, after the
		// wait the server asked for.
		if retry > 0 && !l.fault["ignores-retry"] {
			select {
			case <-time.After(retry):
			case <-l.ctx.Done():
				return
			}
		}
		req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, l.url.String(), nil)
		if err != nil {
			return
		}
		l.headers(req, "text/event-stream")
		if !l.fault["no-last-event-id"] {
			req.Header.Set("Last-Event-ID", last)
		}
		r, err := l.hc.Do(req)
		if err != nil {
			return
		}
		if r.StatusCode != http.StatusOK {
			r.Body.Close()
			return
		}
		var l2 string
		var r2 time.Duration
		l2, r2, done = l.events(r.Body, key)
		r.Body.Close()
		if l2 != "" {
			last = l2
		}
		if r2 > 0 {
			retry = r2
		}
		if l2 == "" {
			return
		}
	}
}

// events reads a stream's events into the client; done is set once the
// response to key came (key "" takes any response).
func (l *link) events(body io.Reader, key string) (last string, retry time.Duration, done bool) {
	maxEvent := 16 << 20
	if l.fault["small-event-buffer"] {
		// A reader with a line reader's default buffer: an event past it
		// ends the stream, and the client hears its server no more.
		maxEvent = 64 << 10
	}
	r := sse.NewReader(body, maxEvent, 16<<20)
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if ev.Data == "" || ev.Type != "" && ev.Type != "message" {
			continue
		}
		l.deliver([]byte(ev.Data))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(ev.Data), &m) == nil && m.Method == "" && len(m.ID) > 0 && (key == "" || string(m.ID) == key) {
			done = true
		}
	}
	if ms := r.Retry(); ms > 0 {
		retry = time.Duration(ms) * time.Millisecond
	}
	return r.LastID(), retry, done
}

// openGet opens the standalone stream the server sends its own messages
// on, where it offers one.
//
// sid is the session the initialized notification was sent in: a
// request answered 404 meanwhile may have begun renewing the session
// (its id cleared until the new one is known), and a GET then would go
// out without a session id, or into a session not yet initialized.
func (l *link) openGet(sid string) {
	l.mu.Lock()
	if l.getOpen || l.legacy || l.sid != sid {
		l.mu.Unlock()
		return
	}
	l.getOpen = true
	l.mu.Unlock()
	// The GET is sent, and its answer's headers read, before the client
	// goes on: the stream is open (or refused) by then.
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, l.url.String(), nil)
	if err != nil {
		return
	}
	l.headers(req, "text/event-stream")
	if sid != "" && !l.fault["no-session-id"] {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		return
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return
	}
	l.mu.Lock()
	l.getStreaming = true
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(l.getDone)
		defer resp.Body.Close()
		l.events(resp.Body, "\x00")
	}()
}

// openLegacy opens the legacy transport's stream and waits for the
// endpoint event naming where to POST.
func (l *link) openLegacy() bool {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, l.url.String(), nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := l.hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		if err == nil {
			resp.Body.Close()
		}
		fmt.Fprintln(l.log, "mcp reference client: neither Streamable HTTP nor HTTP+SSE at", l.url)
		return false
	}
	r := sse.NewReader(resp.Body, 16<<20, 16<<20)
	ev, err := r.Next()
	if err != nil || ev.Type != "endpoint" {
		resp.Body.Close()
		fmt.Fprintln(l.log, "mcp reference client: the legacy stream did not begin with an endpoint event")
		return false
	}
	post, err := l.url.Parse(ev.Data)
	if err != nil {
		resp.Body.Close()
		return false
	}
	l.mu.Lock()
	l.legacy, l.post = true, post.String()
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer resp.Body.Close()
		for {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if ev.Type == "" || ev.Type == "message" {
				l.deliver([]byte(ev.Data))
			}
		}
	}()
	return true
}

// Close ends the session with DELETE (unless the fault no-delete), stops
// every stream and ends what the client reads.
func (l *link) Close() error {
	l.mu.Lock()
	sid, legacy := l.sid, l.legacy
	l.mu.Unlock()
	if sid != "" && !legacy && !l.fault["no-delete"] {
		if req, err := http.NewRequestWithContext(l.ctx, http.MethodDelete, l.url.String(), nil); err == nil {
			l.headers(req, "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			if resp, err := l.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	l.stop()
	l.wg.Wait()
	l.closeDocument()
	l.hc.CloseIdleConnections()
	return l.pw.Close()
}
