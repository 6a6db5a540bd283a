// Package httpserve is MCP's HTTP transports with wirecheck as the
// SERVER, for a client under test (--role client): Streamable HTTP
// (2025-03-26 on; sessionless and POST-only from 2026-07-28) and the
// legacy HTTP+SSE transport of 2024-11-05. Listen binds loopback and
// serves one endpoint; each session is a transport.Conn. What the client
// gets right or wrong below the messages (its headers, its reconnection)
// goes to transport.Hooks under the checks of checks.go.
package httpserve

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Settings are how the server answers; a scenario picks them, since a
// client must cope with every legal choice (Server.Set for sessions to
// come, Session.Set for one).
type Settings struct {
	// JSON answers a POSTed request with an application/json body rather
	// than an SSE stream ("The client MUST support both these cases").
	JSON bool
	// NoGet answers GET 405 Method Not Allowed (no standalone stream).
	NoGet bool
	// NoDelete answers DELETE 405 (the server keeps its sessions).
	NoDelete bool
	// Sessionless assigns no Mcp-Session-Id: one Conn carries every
	// request (2026-07-28 has no sessions; earlier ones make them a MAY).
	Sessionless bool
	// Retry, when positive, is the retry field sent with each stream's
	// first event, and what a reconnection must wait.
	Retry time.Duration
	// NoEventIDs sends events without ids: streams are not resumable.
	NoEventIDs bool
	// DropCall names a method: the stream of the session's first request
	// of it is broken right after its priming event, before the
	// response, which waits for the client to resume the stream (GET
	// with Last-Event-ID). What a scenario needs to see a client resume.
	DropCall string
	// EndAfter names a method: the session ends once the response to its
	// first request of it is sent, so the client's next request gets 404
	// and it owes a new session.
	EndAfter string
}

// Server is a Listener serving one MCP HTTP transport on loopback.
type Server struct {
	legacy   bool
	path     string
	url      string
	maxFrame int
	hooks    transport.Hooks
	ln       net.Listener
	hs       *http.Server

	mu       sync.Mutex
	set      Settings
	sessions map[string]*Session
	// ended are the ids of sessions over (ended by wirecheck or by the
	// client's DELETE): requests with them get 404.
	ended map[string]bool
	// notFound are the ended ids a request was refused 404 with: the
	// client owes a new initialize without them.
	notFound map[string]bool
	// sentIDs are the keys of the request ids the client POSTed
	// (streamable.go's sent).
	sentIDs map[string]bool
	anon    *Session
	// issued is set once a response returned the client an
	// Mcp-Session-Id: only then does it owe one on every request (a
	// client whose initialize was refused probes the legacy transport
	// with a GET that has none to carry).
	issued atomic.Bool
	// renewable is a session whose id wirecheck retired (EndAfter): the
	// next initialize without an id goes on in it, under a new id, so the
	// engine's one connection sees the client's new session.
	renewable *Session
	// last is the session begun last, hooked the last whose hooks were
	// set.
	last, hooked *Session
	nsession     int
	accepts      chan *Session
	// inflight counts the requests being handled, streaming those held
	// open as streams.
	inflight, streaming atomic.Int64
	done                chan struct{}
	closed              bool
	// guard, set, makes the endpoint a protected resource (auth.go).
	guard atomic.Pointer[Guard]
	// prov are the credentials the client is given (provision.go).
	prov Provisions
	wg   sync.WaitGroup
}

// settle waits, at most limit, until no request of the client is being
// handled but streams: what a client sent before it exited (its DELETE)
// is taken in before what it owed is judged.
func (s *Server) settle(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for s.inflight.Load() > s.streaming.Load() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// Kinds as transport.Kind names them (internal/mcp/httpmcp registers them).
const (
	KindHTTP = "http"
	KindSSE  = "sse"
)

// writeTimeout bounds one write to a client that stopped reading: a
// hostile client never holds wirecheck.
const writeTimeout = 5 * time.Second

// Listen serves Streamable HTTP, or the legacy HTTP+SSE transport when
// legacy is set, at 127.0.0.1 on a free port. defaultPath is the Kind's.
func Listen(o transport.ListenOptions, legacy bool, defaultPath string) (*Server, error) {
	path := cmp.Or(o.Path, defaultPath, "/mcp")
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		legacy: legacy, path: path, maxFrame: cmp.Or(o.MaxFrame, transport.DefaultMaxFrame),
		ln: ln, url: "http://" + ln.Addr().String() + path,
		sessions: map[string]*Session{}, ended: map[string]bool{}, notFound: map[string]bool{},
		accepts: make(chan *Session, 64), done: make(chan struct{}),
	}
	if o.Hooks != nil {
		s.hooks = *o.Hooks
	}
	if s.prov, err = newProvisions(s.base()); err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.hs.Serve(ln)
	}()
	return s, nil
}

// Endpoint is the URL that replaces {url} in the client's argv.
func (s *Server) Endpoint() string { return s.url }

// Set changes the settings of the sessions that begin after it.
func (s *Server) Set(set Settings) {
	s.mu.Lock()
	s.set = set
	s.mu.Unlock()
}

// Settings are those new sessions get.
func (s *Server) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

// Accept waits for the client's next session.
func (s *Server) Accept(ctx context.Context) (transport.Conn, error) {
	select {
	case c := <-s.accepts:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, ErrClosed
	}
}

// ErrClosed is what Accept and Send return once the listener or the
// session is closed.
var ErrClosed = errors.New("httpserve: closed")

// Close stops serving. A stream wirecheck broke that the client never
// resumed is judged then (CheckResumes); a missing DELETE is judged only
// when the client exits (Session.Finish), since a client may well outlive
// a listener the scenario is done with.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var live []*Session
	for _, c := range s.sessions {
		live = append(live, c)
	}
	if s.renewable != nil {
		live = append(live, s.renewable)
	}
	s.mu.Unlock()
	if !s.legacy {
		for _, c := range live {
			c.judgeUnresumed()
		}
	}
	close(s.done)
	for _, c := range live {
		c.end(false)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.hs.Shutdown(ctx)
	if err != nil {
		err = s.hs.Close()
	}
	s.wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// check reports an observation no session is known for (a request
// without a session id, or with one that is over): to the listener's
// hooks, else to those of the newest session, the one the client most
// likely means.
func (s *Server) check(name string, v verdict.Verdict, msg, expected, actual string) {
	if f := s.hooks.Check; f != nil {
		f(name, v, msg, expected, actual)
		return
	}
	if c := s.newest(); c != nil {
		c.check(name, v, msg, expected, actual)
	}
}

func (s *Server) note(text string) {
	if f := s.hooks.Note; f != nil {
		f(text)
		return
	}
	if c := s.newest(); c != nil {
		c.note(text)
	}
}

// newest is the session whose hooks were set last (the engine's), else
// the one begun last, over or not.
func (s *Server) newest() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hooked != nil {
		return s.hooked
	}
	return s.last
}

// ServeHTTP routes by path and verb.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	if s.legacy {
		s.serveLegacy(w, r)
		return
	}
	if s.guarded(w, r) {
		return
	}
	if r.URL.Path != s.path {
		http.Error(w, "not the MCP endpoint ("+s.path+")", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodGet:
		s.get(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// newSession makes a session and offers it to Accept; nil when the
// listener is closed or nobody takes sessions.
func (s *Server) newSession(withID bool) *Session {
	return s.newSessionWith(nil, withID)
}

// newSessionWith is newSession with prepare run on the session before
// Accept can hand it out (the legacy stream it must have); a legacy
// session always has an id.
func (s *Server) newSessionWith(prepare func(*Session), withID ...bool) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.nsession++
	c := newSession(s, s.set)
	if s.legacy || len(withID) > 0 && withID[0] {
		c.setID(sessionID(s.nsession))
		s.sessions[c.ID()] = c
	} else {
		s.anon = c
		s.sessions[""] = c
	}
	if prepare != nil {
		c.mu.Lock()
		prepare(c)
		c.mu.Unlock()
	}
	select {
	case s.accepts <- c:
		s.last = c
	default:
		delete(s.sessions, c.ID())
		return nil
	}
	return c
}

// retire ends c's id old (404 from now on) but keeps c for the client's
// next session.
func (s *Server) retire(c *Session, old string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[old] == c {
		delete(s.sessions, old)
	}
	s.ended[old] = true
	s.renewable = c
}

// renew gives the retired session a new id for the client's new
// initialize; nil when there is none.
func (s *Server) renew() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.renewable
	if c == nil || s.closed {
		return nil
	}
	s.renewable = nil
	s.nsession++
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil
	}
	c.setID(sessionID(s.nsession))
	c.initialized = false
	c.retired = false
	c.mu.Unlock()
	s.sessions[c.ID()] = c
	return c
}

// forget ends a session's id: later requests with it get 404.
func (s *Server) forget(c *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[c.ID()] == c {
		delete(s.sessions, c.ID())
	}
	if c.ID() != "" {
		s.ended[c.ID()] = true
	}
	if s.anon == c {
		s.anon = nil
	}
	if s.renewable == c {
		s.renewable = nil
	}
}

func (s *Server) lookup(id string) (c *Session, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id], s.ended[id]
}
