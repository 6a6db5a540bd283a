package httpserve

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxHistory bounds the events a stream keeps for a client to resume.
const maxHistory = 1024

// stream is one SSE stream of a session: a POSTed request's, a GET's or
// the legacy transport's. Its events are numbered "<stream>-<n>", so a
// Last-Event-ID names the stream it resumes. All of it is guarded by the
// session's mutex.
type stream struct {
	id     string
	seq    int
	get    bool
	legacy bool
	ids    bool
	n      int
	lastID string
	// history are the events sent, kept while the stream may be resumed.
	history []string
	sink    *sink
	ended   bool
	// awaitingResume is set from Drop until the client resumes it.
	awaitingResume bool
	droppedAt      time.Time
	retry          time.Duration
}

// sink is one HTTP response carrying a stream.
type sink struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone chan struct{}
	once sync.Once
}

func newSink(w http.ResponseWriter) *sink {
	return &sink{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
}

// close lets the handler holding the response return.
func (k *sink) close() { k.once.Do(func() { close(k.gone) }) }

func (k *sink) write(text string) error {
	_ = k.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := io.WriteString(k.w, text); err != nil {
		return err
	}
	return k.rc.Flush()
}

func (c *Session) newStream(get bool) *stream {
	c.nstream++
	st := &stream{id: "s" + strconv.Itoa(c.nstream), seq: c.nstream, get: get, ids: !c.set.NoEventIDs}
	c.streams[st.id] = st
	return st
}

// streamHeaders start an SSE response.
func streamHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}

// attach makes k carry the stream and writes text (headers' first bytes,
// a replay) at once.
func (st *stream) attach(k *sink, text string) {
	st.sink = k
	if err := k.write(text); err != nil {
		st.broken()
	}
}

// event sends one message as an event (kept for a resumption when the
// stream has ids); with no connection attached it only keeps it.
func (st *stream) event(data []byte) error {
	var b strings.Builder
	if st.ids {
		st.n++
		st.lastID = st.id + "-" + strconv.Itoa(st.n)
		b.WriteString("id: " + st.lastID + "\n")
	}
	if st.legacy {
		b.WriteString("event: message\n")
	}
	for _, line := range strings.Split(string(data), "\n") {
		b.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
	}
	b.WriteString("\n")
	text := b.String()
	if st.ids {
		st.history = append(st.history, text)
		if len(st.history) > maxHistory {
			st.history = st.history[len(st.history)-maxHistory:]
		}
	}
	if st.sink == nil {
		if st.ids {
			return nil
		}
		return ErrClosed
	}
	err := st.sink.write(text)
	if err != nil {
		st.broken()
		if st.ids {
			return nil
		}
	}
	return err
}

// prime sends the priming event: an id and empty data, with the retry
// field when one is set.
func (st *stream) prime(retry time.Duration) string {
	var b strings.Builder
	if st.ids {
		st.lastID = st.id + "-0"
		b.WriteString("id: " + st.lastID + "\n")
	}
	if retry > 0 {
		b.WriteString("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("data: \n\n")
	return b.String()
}

// replay is what followed the event lastID.
func (st *stream) replay(lastID string) string {
	n, err := strconv.Atoi(strings.TrimPrefix(lastID, st.id+"-"))
	if err != nil || n < 0 {
		n = 0
	}
	first := st.n - len(st.history) + 1
	var b strings.Builder
	for i, text := range st.history {
		if first+i > n {
			b.WriteString(text)
		}
	}
	return b.String()
}

// broken: the connection failed under a write; what follows is kept for a
// resumption.
func (st *stream) broken() {
	if st.sink != nil {
		st.sink.close()
		st.sink = nil
	}
}

// end terminates the stream after its last event.
func (st *stream) end() {
	st.ended = true
	if st.sink != nil {
		st.sink.close()
		st.sink = nil
	}
	if !st.awaitingResume {
		st.history = nil
	}
}

// detach lets the stream's handler return (the session is over).
func (st *stream) detach() {
	if st.sink != nil {
		st.sink.close()
		st.sink = nil
	}
}

// drop closes the connection without ending the stream, after a retry
// field when one is set.
func (st *stream) drop(retry time.Duration) {
	if st.sink == nil {
		return
	}
	if retry > 0 {
		_ = st.sink.write("retry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\n\n")
	}
	st.sink.close()
	st.sink = nil
	st.awaitingResume = true
	st.droppedAt = time.Now()
	st.retry = retry
}

// exchange is one POST carrying requests, open until each is answered.
type exchange struct {
	// methods are the requests not yet answered, by key.
	methods map[string]string
	batch   bool
	json    bool
	out     [][]byte
	ready   chan struct{}
	once    sync.Once
	stream  *stream
	// held: the answer's status waits for the response or a refusal
	// (probe.go); refusal is the one Session.Refuse gave.
	held    bool
	refusal *Refusal
}

func (x *exchange) answer(key string, msg []byte) error {
	delete(x.methods, key)
	if x.json {
		x.out = append(x.out, append([]byte(nil), msg...))
		if len(x.methods) == 0 {
			x.finish()
		}
		return nil
	}
	err := x.stream.event(msg)
	if len(x.methods) == 0 {
		x.stream.end()
		x.finish()
	}
	return err
}

func (x *exchange) finish() { x.once.Do(func() { close(x.ready) }) }
