package httpmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// eventData is the data of every event of a body already read.
func eventData(b []byte) [][]byte {
	r := sse.NewReader(bytes.NewReader(b), len(b)+1, len(b)+1)
	defer r.Close()
	var out [][]byte
	for {
		ev, err := r.Next()
		if err != nil {
			return out
		}
		if strings.TrimSpace(ev.Data) != "" {
			out = append(out, []byte(ev.Data))
		}
	}
}

// StreamLimit is how many --timeouts a request's SSE stream may stay open
// without bringing its response before wirecheck closes it: past it the
// peer has long given up the call. Exported for the scenarios that hold a
// request longer by design (suite/mcp's tasks/result), which give it up
// before this.
const StreamLimit = 4

func (c *client) streamLimit() time.Duration { return StreamLimit * c.o.Timeout }

// judgeXAccel is http.xaccel on every SSE response.
func (c *client) judgeXAccel(resp *http.Response, verb string) {
	if v := resp.Header.Get("X-Accel-Buffering"); strings.EqualFold(strings.TrimSpace(v), "no") {
		c.pass(CheckHTTPXAccel, verb+" SSE response has X-Accel-Buffering: no")
		return
	}
	// A counted check: the report says how many streams of how many.
	c.fail(CheckHTTPXAccel, "had no X-Accel-Buffering: no header",
		"X-Accel-Buffering: no", fmt.Sprintf("the %s SSE response: X-Accel-Buffering: %q", verb, resp.Header.Get("X-Accel-Buffering")))
}

// eventID is http.event-id-unique: ids are unique across the session's
// streams, so Last-Event-ID names one point of one stream.
func (c *client) eventID(id string, n int) {
	first, seen := c.firstSeen(c.eventIDs, id, n)
	// The same id again on the same exchange is a resumed stream's
	// replay, not a clash between streams.
	if seen && first != n {
		c.fail(CheckHTTPEventIDUnique, fmt.Sprintf("event id %q came on exchange %d and again on exchange %d", id, first, n),
			"event ids unique across the session's streams", fmt.Sprintf("id %q on exchanges %d and %d", id, first, n))
	}
}

// maxResumes bounds how often one request's stream is resumed.
const maxResumes = 8

// streamState is what a request's stream has shown so far, across its
// resumptions.
type streamState struct {
	revision string
	events   int
	got      bool // the response came
	first    bool // no event read yet
	ids      bool // an event id came
	retry    int  // the last retry field, ms
	lastID   string
	closer   *time.Timer
	limit    *time.Timer
}

// stream reads a request's SSE answer until the response and, once that
// came, until the server closes the stream (at most closeWait). A stream
// that ends before the response after an event id is resumed with a GET
// carrying Last-Event-ID (2025-03-26 to 2025-11-25), as a client may.
func (x *exchange) stream(ctx context.Context, resp *http.Response, verb string) {
	c := x.c
	c.judgeXAccel(resp, verb)
	c.mu.Lock()
	st := &streamState{revision: c.revision, first: true}
	c.mu.Unlock()
	st.limit = time.AfterFunc(c.streamLimit(), func() {
		x.stop(fmt.Sprintf("its SSE stream stayed open %v without the response; closed by wirecheck", c.streamLimit()))
	})
	defer st.limit.Stop()
	err := x.readStream(resp, verb, st)
	judgedRetry := false
	resumeFailed := "" // why the last resumption got no stream
	// 2026-07-28 streams are not resumable: its servers ignore Last-Event-ID.
	for resumes := 0; !st.got && resumable(err) && st.lastID != "" && resumesStreams(st.revision) &&
		resumes < maxResumes && x.why.Load() == nil && !c.closed.Load(); resumes++ {
		if !judgedRetry && retriesBeforeClose(st.revision) && x.out.kind == kindRequest {
			judgedRetry = true
			x.judgeRetry(st)
		}
		wait := min(time.Duration(st.retry)*time.Millisecond, c.o.Timeout)
		if st.retry == 0 {
			wait = getPause
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		c.mu.Lock()
		u := c.endpoint
		c.mu.Unlock()
		req := c.request(ctx, http.MethodGet, u, nil)
		req.Header.Set("Last-Event-ID", st.lastID)
		n := c.nextExchange()
		r2, derr := c.hc.Do(req)
		if derr != nil {
			resumeFailed = failure(derr, c.o.Timeout)
			break
		}
		c.noteResponse(n, "GET (resuming after event "+st.lastID+")", r2)
		if r2.StatusCode/100 != 2 || mediaType(r2.Header.Get("Content-Type")) != "text/event-stream" {
			b, _ := io.ReadAll(io.LimitReader(r2.Body, evidence+1))
			_ = r2.Body.Close()
			resumeFailed = answered(r2, b)
			break
		}
		c.judgeXAccel(r2, http.MethodGet)
		err = x.readStream(r2, http.MethodGet, st)
		_ = r2.Body.Close()
	}
	if st.closer != nil {
		st.closer.Stop()
	}
	if c.closed.Load() || x.abandoned.Load() {
		return
	}
	why := x.why.Load()
	switch {
	case st.got && why != nil && *why == "closed by wirecheck":
		c.fail(CheckHTTPStreamCloses, fmt.Sprintf("the %s stream was still open %v after the response; wirecheck closed it", x.out.method, closeWait),
			"the server closes the SSE stream after the response", fmt.Sprintf("stream open %v after the response", closeWait))
	case st.got && errors.Is(err, io.EOF):
		c.pass(CheckHTTPStreamCloses, "the server closed the SSE stream after the response")
	case st.got:
		// Ended some other way after the response (cap, reset): nothing
		// more to judge or to wait for.
	case why != nil:
		x.end(resp, fmt.Sprintf("%s (%d events)", *why, st.events))
	default:
		cause, dropped := "the SSE stream closed before the response", true
		switch {
		case errors.Is(err, sse.ErrEventTooLarge):
			// The response may be that event: wirecheck's cap, not the
			// server, ended the stream, and nothing of it is judged.
			x.endAs(resp, fmt.Sprintf("an SSE event over wirecheck's --max-frame %s", transport.SizeString(c.o.MaxFrame)), false, true)
			return
		case errors.Is(err, sse.ErrNoEvent):
			cause, dropped = fmt.Sprintf("the SSE stream sent %d bytes without an event", maxIdle), false
		case !errors.Is(err, io.EOF):
			cause = fmt.Sprintf("the SSE stream broke before the response: %v", err)
		}
		if resumeFailed != "" {
			cause += "; resuming it with Last-Event-ID " + st.lastID + " got " + resumeFailed
		}
		if x.out.kind == kindRequest {
			c.fail(CheckHTTPStreamHasResponse, fmt.Sprintf("%s (request %s, %d events)", cause, strings.Join(x.out.keys, ", "), st.events),
				"the request's response on its SSE stream", cause)
			if !judgedRetry && st.ids && retriesBeforeClose(st.revision) {
				x.judgeRetry(st)
			}
		}
		x.endAs(resp, cause, dropped, false)
	}
}

// resumable: the connection ended, not a cap.
func resumable(err error) bool {
	return err != nil && !errors.Is(err, sse.ErrEventTooLarge) && !errors.Is(err, sse.ErrNoEvent)
}

// judgeRetry is http.retry: a connection closed before the response,
// after an event id, should have sent a retry field.
func (x *exchange) judgeRetry(st *streamState) {
	c := x.c
	if st.retry > 0 {
		c.pass(CheckHTTPRetry, fmt.Sprintf("retry: %d sent before the connection closed", st.retry))
		return
	}
	c.fail(CheckHTTPRetry, "the connection closed before the response, after an event id, with no retry field",
		"an SSE event with a retry field before closing", "no retry field on the stream")
}

// readStream reads one connection of a request's stream and returns what
// ended it.
func (x *exchange) readStream(resp *http.Response, verb string, st *streamState) error {
	c := x.c
	r := c.sseReader(resp)
	defer r.Close()
	defer func() {
		if id := r.LastID(); id != "" {
			st.lastID, st.ids = id, true
		}
		if r.Retry() > 0 {
			st.retry = r.Retry()
		}
	}()
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				c.overCap([]byte(ev.Data), x.streamVia(resp, verb, ""))
			}
			return err
		}
		st.events++
		if st.first && primes(st.revision) && x.out.kind == kindRequest {
			x.judgePriming(ev, r)
		}
		st.first = false
		if ev.HasID {
			st.ids = true
			c.eventID(ev.ID, x.n)
		}
		if strings.TrimSpace(ev.Data) == "" {
			continue
		}
		for _, m := range x.deliver([]byte(ev.Data), resp, verb, true, ev.ID) {
			if !x.answers(m) || st.got {
				continue
			}
			if x.answered == nil {
				x.answered = map[string]bool{}
			}
			x.answered[m.key] = true
			if x.out.kind == kindRequest && len(x.answered) < len(x.out.keys) {
				continue // a batch: more responses to come
			}
			st.got = true
			c.pass(CheckHTTPStreamHasResponse, "the request's SSE stream carried its response")
			st.limit.Stop()
			st.closer = time.AfterFunc(closeWait, func() { x.stop("closed by wirecheck") })
		}
	}
}

func (x *exchange) streamVia(resp *http.Response, verb, id string) *transport.Via {
	v := x.via(resp, verb)
	v.Stream, v.EventID = true, id
	return v
}

// judgePriming is http.priming (2025-11-25): a POST's stream opens with an
// event id and empty data (a block with an id and no data at all is read
// the same way: the client got its Last-Event-ID).
func (x *exchange) judgePriming(ev sse.Event, r *sse.Reader) {
	c := x.c
	if ev.HasID && strings.TrimSpace(ev.Data) == "" || !ev.HasID && r.LastID() != "" {
		c.pass(CheckHTTPPriming, "the SSE stream opened with a priming event")
		return
	}
	got := fmt.Sprintf("first event: id %q, data %s", ev.ID, quote([]byte(ev.Data)))
	if !ev.HasID {
		got = "first event without an id, data " + quote([]byte(ev.Data))
	}
	// A counted check: the report says how many streams of how many.
	c.fail(CheckHTTPPriming, "did not open with an event id and empty data (priming)", "an event with an id and empty data first",
		"the "+x.out.method+" SSE stream: "+got)
}

// openGet opens the session's GET stream once, after the server accepted
// notifications/initialized.
func (c *client) openGet() {
	c.mu.Lock()
	if c.get.started || c.closed.Load() {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.get = getState{started: true, cancel: cancel}
	c.mu.Unlock()
	c.start(func() {
		defer cancel()
		c.getLoop(ctx)
	})
}

// getLoop keeps at most one GET stream open, reopening one the server
// ended at most getReopens times.
func (c *client) getLoop(ctx context.Context) {
	for attempt := 0; attempt <= getReopens; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(getPause):
			case <-ctx.Done():
				return
			}
			c.note(fmt.Sprintf("the server ended the GET stream; opening it again (%d of %d)", attempt, getReopens))
		}
		if !c.getOnce(ctx) {
			return
		}
	}
}

// getOnce opens and reads one GET stream, and reports whether to open it
// again (the server ended it).
func (c *client) getOnce(ctx context.Context) bool {
	c.mu.Lock()
	u := c.endpoint
	c.mu.Unlock()
	n := c.nextExchange()
	resp, err := c.hc.Do(c.request(ctx, http.MethodGet, u, nil))
	if err != nil {
		if ctx.Err() == nil {
			c.note(fmt.Sprintf("HTTP exchange %d: GET failed: %s", n, failure(err, c.o.Timeout)))
		}
		return false
	}
	defer resp.Body.Close()
	c.noteResponse(n, http.MethodGet, resp)
	if ctx.Err() != nil {
		// wirecheck ended the session meanwhile (CloseInput cancels the
		// stream before its DELETE): a server that handled the DELETE
		// first rightly answers this GET 404, which judges nothing.
		return false
	}
	if resp.StatusCode == http.StatusMethodNotAllowed {
		c.pass(CheckHTTPGetStream, "GET answered 405: the server offers no stream")
		return false
	}
	if resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, evidence+1))
		c.fail(CheckHTTPGetStream, fmt.Sprintf("GET on the endpoint was answered HTTP %d %s, neither an SSE stream nor 405", resp.StatusCode, resp.Header.Get("Content-Type")),
			"Content-Type: text/event-stream, or 405 Method Not Allowed", answered(resp, b))
		return false
	}
	c.pass(CheckHTTPGetStream, "GET opened an SSE stream")
	c.judgeXAccel(resp, http.MethodGet)
	x := &exchange{c: c, n: n, out: outgoing{kind: kindNotification}}
	r := c.sseReader(resp)
	defer r.Close()
	responses := 0
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				c.overCap([]byte(ev.Data), x.streamVia(resp, http.MethodGet, ""))
			}
			// Passed however the stream ended, Close included: whether
			// the server or wirecheck ends it first is timing, and the
			// verdict must not be.
			if responses == 0 {
				c.pass(CheckHTTPGetNoResponse, "no JSON-RPC response on the GET stream")
			}
			if c.closed.Load() {
				return false
			}
			return ctx.Err() == nil && errors.Is(err, io.EOF)
		}
		if ev.HasID {
			c.eventID(ev.ID, n)
		}
		if strings.TrimSpace(ev.Data) == "" {
			continue
		}
		raw := []byte(ev.Data)
		msgs := parseMessages(raw)
		owed := len(msgs) > 0
		for _, m := range msgs {
			if m.response {
				responses++
				c.fail(CheckHTTPGetNoResponse, fmt.Sprintf("a JSON-RPC response (id %s) came on the GET stream", m.key),
					"no JSON-RPC response on the GET stream (unless resuming)", "event data "+quote([]byte(ev.Data)))
			}
			owed = owed && m.response && c.isPosted(m.key)
		}
		// A response to a request wirecheck POSTed is owed on that POST's
		// stream, which delivers it (as one a POST already brought, the
		// id-null error of a bad body): a copy here is
		// http.get-no-response's evidence only, not a second response
		// (JSON-RPC asks for a reply, and it came) nor, arriving before
		// the POST stream's progress, an early end of the request.
		if !owed {
			x.deliverParsed(raw, msgs, resp, http.MethodGet, true, ev.ID)
		}
	}
}

// isPosted says whether key is the id of a request wirecheck POSTed, or
// of a response a POST's answer brought.
func (c *client) isPosted(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.posted[key]
	return ok
}

// CloseInput ends the session: DELETE it (when the server gave one) and
// close the GET stream. The launched process keeps running until Close.
func (c *client) CloseInput() error {
	c.mu.Lock()
	cancel, sid := c.get.cancel, c.session
	c.get.started = true // no GET stream after the session ended
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if c.o.Kind == KindSSE {
		c.legacyStop()
		return nil
	}
	if sid == "" || c.closed.Load() {
		return nil
	}
	ctx, stop := context.WithTimeout(c.ctx, c.o.Timeout)
	defer stop()
	n := c.nextExchange()
	c.mu.Lock()
	u := c.endpoint
	c.mu.Unlock()
	resp, err := c.hc.Do(c.request(ctx, http.MethodDelete, u, nil))
	if err != nil {
		c.note(fmt.Sprintf("HTTP exchange %d: DELETE failed: %s", n, failure(err, c.o.Timeout)))
		return nil
	}
	c.noteResponse(n, http.MethodDelete, resp)
	_ = resp.Body.Close()
	return nil
}
