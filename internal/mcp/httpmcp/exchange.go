package httpmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/transport"
)

func (c *client) Send(msg []byte) error { return c.send(msg, false) }

// WriteRaw POSTs exactly b, synchronous up to its status line, so its
// answer (if any) is a frame before the next Send.
func (c *client) WriteRaw(b []byte) error { return c.send(b, true) }

func (c *client) send(msg []byte, raw bool) error {
	if c.closed.Load() {
		return ErrClosed
	}
	body := append([]byte(nil), msg...) // the caller may reuse msg
	out := classify(body)
	if c.o.Kind == KindSSE {
		return c.legacySend(body, out, raw)
	}
	x := &exchange{c: c, n: c.nextExchange(), body: body, out: out, raw: raw, headers: make(chan struct{})}
	if out.kind == kindRequest || raw {
		c.owe(body, out, raw, x.n)
	}
	if out.method == "initialize" {
		c.mu.Lock()
		c.initKey = out.key
		c.mu.Unlock()
	}
	// Made before the exchange starts, so CloseRequest can end it from
	// the moment Send returns.
	x.ctx, x.cancel = context.WithCancel(c.ctx)
	c.track(x)
	if err := c.launch(x, x.run); err != nil {
		c.untrack(x)
		x.cancel()
		return err
	}
	return nil
}

// owe records the id keys the POST of body, exchange n, is owed an answer
// under: a request's, and for a raw body (a bad one, or a probe's) id null
// and its id where one can be read.
func (c *client) owe(body []byte, out outgoing, raw bool, n int) {
	keys := out.keys
	if raw {
		keys = append(keys[:len(keys):len(keys)], "null")
		var m map[string]any
		if json.Unmarshal(body, &m) == nil && m["id"] != nil {
			keys = append(keys, transport.IDKey(m["id"]))
		}
	}
	for _, k := range keys {
		c.firstSeen(c.posted, k, n)
	}
}

// launch runs an exchange. A request is asynchronous, so a slow call
// never holds back a cancellation or a pipelined request; anything else
// waits for its status line, as the order the scenarios rely on needs.
func (c *client) launch(x *exchange, run func()) error {
	if !c.start(run) {
		return ErrClosed
	}
	if x.out.kind == kindRequest && !x.raw {
		return nil
	}
	select {
	case <-x.headers:
	case <-c.ctx.Done():
	}
	return nil
}

func (c *client) nextExchange() int { return int(c.exchange.Add(1)) }

// start runs f as one of the transport's workers, unless it is closing:
// on a worker waiting for work, else on a new one. An exchange's
// goroutine grows its stack through net/http's client to the peer's
// judging, copying it each time it doubles: a goroutine per exchange
// paid that every time (some 3% of a run's CPU), a worker once.
func (c *client) start(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return false
	}
	c.work.Add(1)
	select {
	case c.idle <- f:
	default:
		c.workers.Add(1)
		go c.worker(f)
	}
	return true
}

// worker runs f, then what start hands it, until the transport closes.
func (c *client) worker(f func()) {
	defer c.workers.Done()
	for {
		f()
		c.work.Done()
		select {
		case f = <-c.idle:
		case <-c.ctx.Done():
			return
		}
	}
}

// request builds an HTTP request carrying the session's headers: the
// user's to the endpoint's origin only.
func (c *client) request(ctx context.Context, method string, u *url.URL, body []byte) *http.Request {
	req, _ := c.build(ctx, method, u, body)
	return req
}

// build is request, also saying why the message is not to be sent at
// all ("" when it is: see metadata).
func (c *client) build(ctx context.Context, method string, u *url.URL, body []byte) (*http.Request, string) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if origin(u) == c.origin {
		for k, vs := range c.headers {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.o.Kind == KindHTTP {
		c.mu.Lock()
		if c.session != "" {
			req.Header.Set("Mcp-Session-Id", c.session)
		}
		if c.version != "" {
			req.Header.Set("MCP-Protocol-Version", c.version)
		}
		c.mu.Unlock()
		if method == http.MethodPost && body != nil {
			return req, c.metadata(req.Header, body)
		}
	}
	return req, ""
}

// noteResponse puts the status line and the headers that matter in the
// transcript; never credentials.
func (c *client) noteResponse(n int, verb string, resp *http.Response) {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP exchange %d: %s → %s", n, verb, resp.Status)
	for _, h := range []string{"Content-Type", "Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate", "Location", "Retry-After"} {
		v := resp.Header.Get(h)
		if v == "" {
			continue
		}
		if h == "Mcp-Session-Id" && len(v) > 8 {
			v = v[:8] + "…"
		}
		fmt.Fprintf(&b, "; %s: %s", h, v)
	}
	c.note(b.String())
}

// exchange is one POST of the session's flow.
type exchange struct {
	c       *client
	n       int
	body    []byte
	out     outgoing
	raw     bool
	headers chan struct{}
	once    sync.Once
	// why is set before the exchange's context is cancelled by one of its
	// own limits, so the read that fails knows what to say.
	why    atomic.Pointer[string]
	ctx    context.Context
	cancel context.CancelFunc
	// abandoned is set when the client closed the exchange on purpose
	// (CloseRequest): nothing more of it is delivered or judged.
	abandoned atomic.Bool
	// answered is set once a batch's stream answered some of its
	// requests: the others alone end without an answer.
	answered map[string]bool
}

func (x *exchange) gotHeaders() { x.once.Do(func() { close(x.headers) }) }

// stop ends the exchange for the given reason.
func (x *exchange) stop(why string) {
	x.why.CompareAndSwap(nil, &why)
	x.cancel()
}

// wantsAnswer: a request, or bytes that are no JSON-RPC message at all
// (a raw probe, answered by whatever comes).
func (x *exchange) wantsAnswer() bool {
	return x.out.kind == kindRequest || x.out.kind == kindInvalid
}

func (x *exchange) via(resp *http.Response, verb string) *transport.Via {
	v := &transport.Via{Exchange: x.n, Verb: verb, For: x.out.key}
	if resp != nil {
		v.Status, v.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	}
	return v
}

// end tells the peer the exchange is over without the answer it wanted,
// for each request it carried (a raw probe's with For "").
func (x *exchange) end(resp *http.Response, why string) { x.endAs(resp, why, false, false) }

// endTimed is end without a response, saying whether wirecheck's
// --timeout ended it (Via.TimedOut).
func (x *exchange) endTimed(why string, timed bool) {
	x.endWith(nil, why, func(v *transport.Via) { v.TimedOut = timed })
}

// endAs is end, saying whether the stream was dropped (Via.Dropped) or
// the answer went over the cap (Via.OverCap).
func (x *exchange) endAs(resp *http.Response, why string, dropped, overCap bool) {
	x.endWith(resp, why, func(v *transport.Via) { v.Dropped, v.OverCap = dropped, overCap })
}

// endWith is end, set marking each End frame's Via.
func (x *exchange) endWith(resp *http.Response, why string, set func(*transport.Via)) {
	c := x.c
	if c.closed.Load() || x.abandoned.Load() || !x.wantsAnswer() {
		return
	}
	keys := x.out.keys
	if x.answered != nil {
		keys = keys[:0:0]
		for _, k := range x.out.keys {
			if !x.answered[k] {
				keys = append(keys, k)
			}
		}
	} else if len(keys) == 0 {
		keys = []string{""}
	}
	for _, k := range keys {
		v := x.via(resp, http.MethodPost)
		v.For, v.End = k, why
		set(v)
		v.Authorization = resp != nil && authRefusal(resp)
		c.q.Offer(nil, transport.Frame{HTTP: v})
	}
}

func (x *exchange) run() {
	c := x.c
	defer c.untrack(x)
	defer x.gotHeaders()
	ctx, cancel := x.ctx, x.cancel
	defer cancel()
	c.mu.Lock()
	u := c.endpoint
	c.mu.Unlock()
	req, unsent := c.build(ctx, http.MethodPost, u, x.body)
	if unsent != "" {
		x.gotHeaders()
		if !x.wantsAnswer() {
			c.note("a notification not sent: " + unsent)
		}
		x.endWith(nil, unsent, func(v *transport.Via) { v.Unsent = true })
		return
	}
	resp, err := c.hc.Do(req)
	x.gotHeaders()
	if err != nil {
		x.endTimed(failure(err, c.o.Timeout), timedOut(err))
		return
	}
	defer resp.Body.Close()
	c.noteResponse(x.n, http.MethodPost, resp)
	if resp.StatusCode/100 == 2 && resp.Request.URL.String() != u.String() {
		// Followed same-origin redirects: that is where the endpoint is.
		c.mu.Lock()
		c.endpoint = resp.Request.URL
		c.mu.Unlock()
	}
	if x.out.method == "initialize" {
		c.captureSession(resp)
	}
	if x.out.kind == kindNotification {
		x.accepted(ctx, resp)
		return
	}
	x.answer(ctx, resp)
}

// failure says why an HTTP request got no response.
// timedOut reports whether err is wirecheck's --timeout running out
// (failure says so).
func timedOut(err error) bool {
	return strings.Contains(err.Error(), "timeout awaiting response headers") || errors.Is(err, context.DeadlineExceeded)
}

func failure(err error, timeout time.Duration) string {
	var ee *endError
	var off *transport.OffLoopback
	switch {
	case errors.As(err, &ee):
		return ee.why
	case errors.As(err, &off):
		return off.Error()
	case strings.Contains(err.Error(), "timeout awaiting response headers"):
		return fmt.Sprintf("no response headers within %v (--timeout)", timeout)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %v (--timeout)", timeout)
	}
	return "HTTP exchange failed: " + err.Error()
}

func (c *client) captureSession(resp *http.Response) {
	sid, ok := resp.Header["Mcp-Session-Id"]
	if !ok || len(sid) == 0 {
		return
	}
	if bad := strings.IndexFunc(sid[0], func(r rune) bool { return r < 0x21 || r > 0x7E }); bad >= 0 || sid[0] == "" {
		c.fail(CheckHTTPSessionID, fmt.Sprintf("Mcp-Session-Id %q holds a character outside visible ASCII (0x21–0x7E)", sid[0]),
			"visible ASCII characters (0x21 to 0x7E)", fmt.Sprintf("%q", sid[0]))
	} else {
		c.pass(CheckHTTPSessionID, "Mcp-Session-Id is visible ASCII")
	}
	c.mu.Lock()
	c.session = sid[0]
	c.mu.Unlock()
}

// readBody reads at most limit bytes of the body within the timeout; over
// limit it reports over and stops reading. The body is read within the
// process's budget of frames being read (transport.ReadFrame): release
// gives it back, once b is no longer needed.
//
// A body cut off or over the cap comes back as its first
// transport.OversizeEvidence bytes; n is how many were read.
func (x *exchange) readBody(resp *http.Response, limit int) (b []byte, n int, over bool, release func(), err error) {
	t := time.AfterFunc(x.c.o.Timeout, func() {
		x.stop(fmt.Sprintf("the body did not end within %v (--timeout)", x.c.o.Timeout))
	})
	defer t.Stop()
	var abort <-chan struct{}
	if resp.Request != nil {
		// x.stop cancels it: the timeout above, or Close.
		abort = resp.Request.Context().Done()
	}
	b, n, over, release, err = transport.ReadFrame(resp.Body, limit, abort)
	if over {
		return b, n, true, release, nil
	}
	if err != nil && x.why.Load() != nil {
		err = errors.New(*x.why.Load())
	}
	return b, n, false, release, err
}

// sseReader reads resp's event stream, its buffers charged to the
// process's budget of frames being read (transport.Budget); the caller
// releases it once done.
func (c *client) sseReader(resp *http.Response) *sse.Reader {
	r := sse.NewReader(resp.Body, c.o.MaxFrame, maxIdle)
	var abort <-chan struct{}
	if resp.Request != nil {
		abort = resp.Request.Context().Done()
	}
	r.SetBudget(transport.NewCharge(abort))
	return r
}

// overCap queues the frame of a body or event over the cap: a copy of its
// first transport.OversizeEvidence bytes, so the buffer read is garbage
// at once.
func (c *client) overCap(b []byte, v *transport.Via) {
	ev := append([]byte{}, b[:min(len(b), transport.OversizeEvidence)]...)
	c.q.Offer(ev, transport.Frame{HTTP: v, Oversize: true, Limit: c.o.MaxFrame})
}

// accepted judges the answer to a POST that carried no request: 202 and
// no body. A 2xx carrying a JSON-RPC error said success while refusing.
func (x *exchange) accepted(ctx context.Context, resp *http.Response) {
	c := x.c
	b, _, _, release, _ := x.readBody(resp, c.o.MaxFrame)
	defer release()
	ct := resp.Header.Get("Content-Type")
	what := "a notification"
	if x.out.method == "" {
		what = "a response"
	}
	frames := messagesIn(b, ct)
	if c.closed.Load() {
		return
	}
	switch {
	case !valid(x.out, x.body):
		// The rules speak of "a JSON-RPC response or notification": a
		// body that only looks like one (its "jsonrpc" not "2.0", bytes
		// that are no UTF-8) is bad input, whose answer the bad-input
		// rules judge (fuzz sends such on purpose), not these.
	case resp.StatusCode/100 != 2:
		c.pass(CheckHTTPRefusedStatus, fmt.Sprintf("%s refused with HTTP %d", what, resp.StatusCode))
	case resp.StatusCode == http.StatusAccepted && len(bytes.TrimSpace(b)) == 0:
		c.pass(CheckHTTPAccepted, what+" accepted with 202 and no body")
		c.pass(CheckHTTPRefusedStatus, what+" accepted with 202")
	default:
		c.fail(CheckHTTPAccepted, fmt.Sprintf("%s was answered HTTP %d with %d bytes of body, not 202 Accepted with no body", what, resp.StatusCode, len(b)),
			"202 Accepted with no body", answered(resp, b))
		refused := false
		for _, f := range frames {
			for _, m := range parseMessages(f) {
				refused = refused || m.isError
			}
		}
		if refused {
			c.fail(CheckHTTPRefusedStatus, fmt.Sprintf("%s was refused with a JSON-RPC error under HTTP %d, a success status", what, resp.StatusCode),
				"an HTTP error status (4xx) for input not accepted", answered(resp, b))
		} else {
			c.pass(CheckHTTPRefusedStatus, fmt.Sprintf("%s answered HTTP %d without a JSON-RPC error", what, resp.StatusCode))
		}
	}
	// JSON-RPC messages in a success body are delivered all the same: a
	// response nobody asked for is the peer's to judge (stray). Anything
	// else there (`{}`, text) is http.accepted's evidence, no frame.
	if resp.StatusCode/100 == 2 {
		for _, f := range frames {
			if msgs := parseMessages(f); len(msgs) > 0 {
				x.deliverParsed(f, msgs, resp, http.MethodPost, false, "")
			}
		}
	}
	if resp.StatusCode == http.StatusAccepted && x.out.method == "notifications/initialized" {
		c.openGet()
	}
}

// messagesIn finds the JSON-RPC messages of a small body whatever it is
// labelled: JSON, or an event stream read to its end.
func messagesIn(b []byte, ct string) [][]byte {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return nil
	}
	if mediaType(ct) == "text/event-stream" || looksSSE(t) {
		return eventData(b)
	}
	frames, _ := splitBody(t)
	return frames
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func looksSSE(b []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

func looksJSON(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// answered is the evidence of what came: status, content type and the
// first bytes of the body.
func answered(resp *http.Response, b []byte) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "no Content-Type"
	}
	s := fmt.Sprintf("HTTP %d, %s", resp.StatusCode, ct)
	if len(b) > 0 {
		s += ", body " + quote(b)
	} else {
		s += ", no body"
	}
	return s
}

func quote(b []byte) string {
	if len(b) > evidence {
		return fmt.Sprintf("%q…", b[:evidence])
	}
	return fmt.Sprintf("%q", b)
}

// deliver hands one message to the peer and learns from it what the
// transport needs: the negotiated version, the answer's arrival.
func (x *exchange) deliver(raw []byte, resp *http.Response, verb string, stream bool, eventID string) []message {
	if x.abandoned.Load() {
		return nil
	}
	return x.deliverParsed(raw, parseMessages(raw), resp, verb, stream, eventID)
}

// deliverParsed is deliver of a message its caller parsed already
// (parseMessages decodes the whole of it: once is enough).
func (x *exchange) deliverParsed(raw []byte, msgs []message, resp *http.Response, verb string, stream bool, eventID string) []message {
	c := x.c
	if x.abandoned.Load() {
		return nil
	}
	v := x.via(resp, verb)
	v.Stream, v.EventID = stream, eventID
	for _, m := range msgs {
		if m.response && verb == http.MethodPost {
			c.firstSeen(c.posted, m.key, x.n)
		}
		if m.response && m.key != "" {
			c.mu.Lock()
			if m.key == c.initKey && m.version != "" {
				c.revision = m.version
				if sendsVersionHeader(m.version) {
					c.version = m.version
				}
			}
			if m.key == x.out.key && !m.isError && x.out.method == "tools/list" {
				c.learnParams(raw)
			}
			if m.key == x.out.key && !m.isError && namesRevisionInMeta(x.out.revision) {
				// A 2026-07-28 server served the revision the request
				// named: "Every POST request" carries it from now on, a
				// request without _meta too (streamable-http.mdx,
				// Protocol Version Header).
				c.revision, c.version = x.out.revision, x.out.revision
			}
			c.mu.Unlock()
		}
		if m.method != "" && m.hasID {
			c.serverRequest(m.key, x.n)
		}
	}
	c.q.Offer(raw, transport.Frame{HTTP: v})
	return msgs
}

// maxRemembered bounds the bytes of ids a session keeps for its
// uniqueness checks: a server streaming ids for ever must not grow them
// without end. Past it, new ids are judged against the ones kept.
const maxRemembered = 4 << 20

// firstSeen is the exchange that first brought key into m, and whether one
// did; else it records n as that exchange.
func (c *client) firstSeen(m map[string]int, key string, n int) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first, seen := m[key]
	if !seen && c.remembered+len(key) <= maxRemembered {
		m[key] = n
		c.remembered += len(key)
	}
	return first, seen
}

// serverRequest judges http.one-stream: a server request goes out on one
// stream, not broadcast on several.
func (c *client) serverRequest(key string, n int) {
	first, seen := c.firstSeen(c.serverRq, key, n)
	if seen && first != n {
		c.fail(CheckHTTPOneStream, fmt.Sprintf("server request id %s came on exchange %d's stream and again on exchange %d's", key, first, n),
			"each message on one stream only", fmt.Sprintf("id %s on exchanges %d and %d", key, first, n))
	} else if !seen {
		c.pass(CheckHTTPOneStream, "server request id "+key+" on one stream")
	}
}

// answer reads the answer to a request (or a raw probe).
func (x *exchange) answer(ctx context.Context, resp *http.Response) {
	c := x.c
	ct := resp.Header.Get("Content-Type")
	mt := mediaType(ct)
	if resp.StatusCode/100 != 2 {
		x.refusal(resp)
		return
	}
	if mt == "text/event-stream" {
		x.judgeType(resp, true, nil)
		x.stream(ctx, resp, http.MethodPost)
		return
	}
	if resp.ContentLength > int64(c.o.MaxFrame) {
		// Refused before reading: the bytes would only be thrown away.
		x.judgeType(resp, mt == "application/json", nil)
		c.overCap(nil, x.via(resp, http.MethodPost))
		x.endAs(resp, fmt.Sprintf("a body of %d bytes, over wirecheck's --max-frame %s", resp.ContentLength, transport.SizeString(c.o.MaxFrame)), false, true)
		return
	}
	b, n, over, release, err := x.readBody(resp, c.o.MaxFrame)
	defer release()
	if c.closed.Load() {
		return
	}
	if mt != "application/json" && !looksJSON(b) && looksSSE(bytes.TrimSpace(b)) {
		// A stream under another name: read what came as one.
		x.judgeType(resp, false, b)
		got := x.deliverAll(eventData(b), resp, true)
		if !got {
			x.end(resp, "the answer held no response ("+answered(resp, b)+")")
		}
		return
	}
	switch {
	case over:
		x.judgeType(resp, mt == "application/json", nil)
		c.overCap(b, x.via(resp, http.MethodPost)) // b: evidence already
		x.endAs(resp, "a body over wirecheck's --max-frame "+transport.SizeString(c.o.MaxFrame), false, true)
		return
	case err != nil:
		if len(b) > 0 {
			// Cut off, it is no message to judge but evidence of one
			// (readBody keeps no more): a body cut off at tens of MB, in
			// every lane at once, must not be held whole.
			c.q.Offer(b, transport.Frame{HTTP: x.via(resp, http.MethodPost), Partial: true})
		}
		x.end(resp, fmt.Sprintf("the body was cut off after %d bytes: %v", n, err))
		return
	}
	frames, shape := splitBody(b)
	if len(bytes.TrimSpace(b)) == 0 {
		frames = nil
	}
	x.judgeType(resp, mt == "application/json" && (shape == shapeObject || x.out.batch && shape == shapeArray), b)
	if !x.deliverAll(frames, resp, false) {
		x.end(resp, "the answer held no response ("+answered(resp, b)+")")
	}
}

// deliverAll delivers frames and reports whether the exchange's answer
// was among them.
func (x *exchange) deliverAll(frames [][]byte, resp *http.Response, stream bool) bool {
	got := false
	for _, f := range frames {
		for _, m := range x.deliver(f, resp, http.MethodPost, stream, "") {
			got = got || x.answers(m)
		}
	}
	return got
}

// answers reports whether m is (one of) the answers this exchange waits
// for: the request's response, or for a raw probe any response.
func (x *exchange) answers(m message) bool {
	if !m.response {
		return false
	}
	if x.out.kind == kindInvalid {
		return true
	}
	for _, k := range x.out.keys {
		if m.key == k {
			return true
		}
	}
	return false
}

// judgeType is http.content-type for a 2xx answer to a request: JSON (one
// object, or an array for a batch) or an event stream.
func (x *exchange) judgeType(resp *http.Response, ok bool, body []byte) {
	if x.out.kind != kindRequest {
		return
	}
	c := x.c
	ct := resp.Header.Get("Content-Type")
	if ok {
		c.pass(CheckHTTPContentType, fmt.Sprintf("request answered with Content-Type %s", ct))
		return
	}
	c.fail(CheckHTTPContentType, fmt.Sprintf("a %s request was answered HTTP %d with Content-Type %q, not application/json holding one JSON object or text/event-stream", x.out.method, resp.StatusCode, ct),
		"Content-Type application/json (one JSON object) or text/event-stream", answered(resp, body))
}

// refusal reads a non-2xx answer: a JSON-RPC response with the request's
// id is its response; anything else ends the exchange, with the body as
// evidence.
func (x *exchange) refusal(resp *http.Response) {
	c := x.c
	b, _, _, release, _ := x.readBody(resp, c.o.MaxFrame)
	defer release()
	if c.closed.Load() {
		return
	}
	if x.wantsAnswer() {
		frames := messagesIn(b, resp.Header.Get("Content-Type"))
		for _, f := range frames {
			msgs := parseMessages(f)
			for _, m := range msgs {
				if x.answers(m) {
					if len(frames) > 1 && bytes.Equal(frames[0], bytes.TrimSpace(b)) {
						// The body was several JSON values (splitBody):
						// it goes first, judged as the one message it
						// is not.
						x.deliver(frames[0], resp, http.MethodPost, false, "")
					}
					x.deliverParsed(f, msgs, resp, http.MethodPost, false, "")
					return
				}
			}
		}
	}
	if len(b) > 0 {
		c.note(fmt.Sprintf("HTTP exchange %d: body %s", x.n, quote(b)))
	}
	x.end(resp, answered(resp, b)+c.authHint(resp))
}

// authRefusal reports whether authorization refused a request: 401, or
// 403 with a challenge (basic/authorization: "Invalid or expired tokens
// MUST receive a HTTP 401 response"; insufficient scope is 403 with
// WWW-Authenticate).
func authRefusal(resp *http.Response) bool {
	return resp.StatusCode == http.StatusUnauthorized ||
		(resp.StatusCode == http.StatusForbidden && resp.Header.Get("WWW-Authenticate") != "")
}

// authHint says, after an authorization refusal, what the user can do
// about it; "" for any other answer.
func (c *client) authHint(resp *http.Response) string {
	switch {
	case !authRefusal(resp):
		return ""
	case !c.Credentialed():
		return "; the server requires a token and this run sent none: pass one with --header (wirecheck run --help shows how)"
	case resp.StatusCode == http.StatusForbidden:
		return "; the server found the token given with --header short of the scope this request needs"
	default:
		return "; the server refused the token given with --header"
	}
}
