package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/refserver"
)

// The extension API: how a profile's reference server (a product an MCP
// profile describes: sonde-hub, sophon) is this server with more in it.
// The profile gives its tools, resources and prompts, how it checks a
// bearer token and refuses a request without it, its REST routes, its
// endpoint paths, a hook on every JSON-RPC message over HTTP, and which
// of the MCP server's own faults and variants its names switch on; the
// MCP machinery (sessions, SSE, resumption, the revisions) is this
// package's, unchanged. Without an extension nothing here runs.

// Extension is what a profile adds to the reference MCP server.
type Extension struct {
	// Name and Version are the serverInfo (default wirecheck-reference
	// 1.0.0).
	Name, Version string
	// Revisions are the revisions the server speaks (nil: every one,
	// versions and discoverRev). An initialize asking for another is answered
	// with the newest of them; MCP-Protocol-Version headers naming
	// another are refused; without discoverRev, _meta names no revision to it.
	Revisions []string
	// OwnOnly hides the reference server's own tools, resources and
	// prompts: it lists the extension's only, and declares no resources,
	// prompts or completions capability that would be empty (their
	// methods answer -32601).
	OwnOnly   bool
	Tools     []Tool
	Resources []Resource
	// Templates are resource templates listed by resources/templates/list
	// (a Resource with Match reads their URIs).
	Templates []map[string]any
	Prompts   []Prompt
	// Paths are the HTTP endpoints (defaults /mcp, /sse, /message).
	Paths Paths
	// Auth checks every HTTP request to the MCP endpoints and to the
	// routes that are not Open: a non-nil Refusal is the answer (see
	// Bearer). nil: no authorization.
	Auth func(r *http.Request) *Refusal
	// Routes are more HTTP endpoints (a REST API beside MCP).
	Routes []Route
	// Before runs on every JSON-RPC message POSTed to an MCP endpoint,
	// after Auth and once the message's session is found: a non-nil
	// Refusal answers the POST instead of the server (a rate limit). Not
	// run on stdio.
	Before func(m Message) *Refusal
	// CoreFaults and CoreVariants translate the profile's fault and
	// variant names (either kind, in either map) into this server's own:
	// a profile name listed in CoreFaults switches that MCP fault on, one
	// in CoreVariants that MCP variant (a choice MCP allows may be a
	// profile's fault). Names not listed are the profile's own and never
	// reach the MCP core.
	CoreFaults, CoreVariants map[string]string
	// Discovery publishes MCP's authorization discovery documents (the
	// protected resource metadata, the authorization server metadata and
	// its fallback endpoints) as the MCP server's variant auth does, and
	// a Refusal with Challenge gets its WWW-Authenticate challenge.
	Discovery bool
}

// Paths are where the HTTP fronts answer.
type Paths struct {
	// HTTP is the Streamable HTTP endpoint; SSE the legacy stream's GET,
	// Message where its POSTs go.
	HTTP, SSE, Message string
}

func (p Paths) withDefaults() Paths {
	if p.HTTP == "" {
		p.HTTP = endpoint
	}
	if p.SSE == "" {
		p.SSE = "/sse"
	}
	if p.Message == "" {
		p.Message = "/message"
	}
	return p
}

// Tool is one tool of a profile: its definition as tools/list shows it
// (name, description, inputSchema, …) and what a call does.
type Tool struct {
	Def map[string]any
	// Run returns the CallToolResult, or a JSON-RPC error.
	Run func(c Call) (map[string]any, *Error)
}

// Resource is one resource of a profile: Def as resources/list shows it
// (nil: not listed, reached through Match), and what a read answers.
type Resource struct {
	Def map[string]any
	// Match, when set, says which URIs Read serves (a template's);
	// otherwise the URI is Def's.
	Match func(uri string) bool
	// Read returns the contents of ReadResourceResult, or an error.
	Read func(c Call) ([]any, *Error)
}

// Prompt is one prompt of a profile: Def as prompts/list shows it, and
// the GetPromptResult.
type Prompt struct {
	Def map[string]any
	Get func(c Call) (map[string]any, *Error)
}

// Call is what a profile's tool, resource or prompt is asked.
type Call struct {
	// Params are the request's params; Args its arguments (tools/call,
	// prompts/get), URI the resource read.
	Params, Args map[string]any
	URI          string
	// Revision is the session's revision.
	Revision string
	// Notify sends the client a notification in this session.
	Notify func(method string, params map[string]any)
}

// Error is a JSON-RPC error answer.
type Error struct {
	Code    int
	Message string
	Data    map[string]any
}

// Route is an HTTP endpoint of a profile beside MCP.
type Route struct {
	// Pattern is a net/http ServeMux pattern ("GET /health").
	Pattern string
	Handler http.HandlerFunc
	// Open routes are served without Auth.
	Open bool
}

// Message is one JSON-RPC message POSTed to an MCP endpoint.
type Message struct {
	HTTP *http.Request
	// Kind is request, notification, response or raw (no message).
	Kind, Method string
	// ID is the request's id as sent (nil when none).
	ID json.RawMessage
}

// Refusal is the answer to an HTTP request the profile refuses: its
// status and headers, and a JSON-RPC error body when Code is set (a
// plain-text body of the status otherwise).
type Refusal struct {
	Status  int
	Header  http.Header
	Code    int
	Message string
	// Challenge adds MCP's WWW-Authenticate challenge naming the
	// protected resource metadata (with Extension.Discovery).
	Challenge bool
	// Body, when set, is the answer's JSON body instead (a REST API's
	// error document).
	Body []byte
}

// Write answers with the refusal; id is the refused request's id (nil:
// null).
func (rf *Refusal) Write(w http.ResponseWriter, id json.RawMessage) {
	for k, vs := range rf.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if rf.Body != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rf.Status)
		w.Write(rf.Body)
		return
	}
	if rf.Code == 0 {
		msg := rf.Message
		if msg == "" {
			msg = http.StatusText(rf.Status)
		}
		http.Error(w, msg, rf.Status)
		return
	}
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": rf.Code, "message": rf.Message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rf.Status)
	w.Write(append(body, '\n'))
}

// Bearer is an Auth that lets a request with "Authorization: Bearer
// token" through and answers any other with refuse.
func Bearer(token string, refuse Refusal) func(r *http.Request) *Refusal {
	return func(r *http.Request) *Refusal {
		if HasBearer(r, token) {
			return nil
		}
		rf := refuse
		return &rf
	}
}

// DemoToken is the bearer token the reference servers of profiles accept:
// $WIRECHECK_TOKEN, or wirecheck-demo (runs pass it with --header
// 'Authorization: Bearer ${WIRECHECK_TOKEN}').
func DemoToken() string {
	if t := os.Getenv("WIRECHECK_TOKEN"); t != "" {
		return t
	}
	return "wirecheck-demo"
}

// HasBearer reports whether r carries the bearer token.
func HasBearer(r *http.Request, token string) bool {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && tok == token
}

// ServeWith runs the reference server with a profile's extension: on
// stdio, or over HTTP when o.HTTP or o.SSE is set. Both fronts listen
// there, on their Paths (Streamable HTTP and the legacy transport), with
// the extension's routes. o.Faults and o.Variants hold the profile's
// names; only those ext translates reach the MCP core.
func ServeWith(o refserver.Options, ext Extension) int {
	names := append(append([]string{}, o.Faults...), o.Variants...)
	o.Faults = translate(names, ext.CoreFaults)
	o.Variants = translate(names, ext.CoreVariants)
	ext.Paths = ext.Paths.withDefaults()
	if o.HTTP != "" || o.SSE != "" {
		return serveHTTP(o, &ext)
	}
	return serveStdio(o, &ext)
}

func translate(names []string, to map[string]string) []string {
	var out []string
	for _, n := range names {
		if c, ok := to[n]; ok {
			out = append(out, c)
		}
	}
	return out
}

// Handler is the HTTP handler of the reference server with ext: both
// fronts on their paths, and ext's routes. Close ends its sessions.
type Handler struct {
	ext    *Extension
	fronts [2]*Front // Streamable HTTP, legacy
	routes *http.ServeMux
	open   map[string]bool
}

// NewHandler is the HTTP side of ServeWith, for a test's httptest server
// (o's faults and variants already translated: ServeWith does it).
func NewHandler(o refserver.Options, ext *Extension) *Handler {
	ext.Paths = ext.Paths.withDefaults()
	h := &Handler{ext: ext, routes: http.NewServeMux(), open: map[string]bool{}}
	for i := range h.fronts {
		h.fronts[i] = NewFront(o, i == 1)
		h.fronts[i].ext = ext
	}
	for _, rt := range ext.Routes {
		h.routes.HandleFunc(rt.Pattern, rt.Handler)
		h.open[rt.Pattern] = rt.Open
	}
	return h
}

// Fatal closes when a core fault asks the server to die.
func (h *Handler) Fatal() <-chan struct{} {
	c := make(chan struct{})
	go func() {
		select {
		case <-h.fronts[0].Fatal():
		case <-h.fronts[1].Fatal():
		}
		close(c)
	}()
	return c
}

func (h *Handler) lingerOnStop() { h.fronts[0].lingerOnStop() }

// Close ends every session of both fronts.
func (h *Handler) Close() {
	for _, f := range h.fronts {
		f.Close()
	}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := h.ext.Paths
	var front *Front
	switch r.URL.Path {
	case p.HTTP, p.HTTP + "/":
		front = h.fronts[0]
	case p.SSE, p.Message:
		front = h.fronts[1]
	default:
		if _, pattern := h.routes.Handler(r); pattern != "" {
			if h.open[pattern] || h.authorized(w, r, nil) {
				h.routes.ServeHTTP(w, r)
			}
			return
		}
		// The well-known documents of the MCP variant auth, and 404s.
		h.fronts[0].ServeHTTP(w, r)
		return
	}
	// A foreign Origin is refused before anything else of the profile's
	// runs (its token check, its hook).
	if !front.originOK(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		if h.authorized(w, r, nil) {
			front.ServeHTTP(w, r)
		}
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg := readMessage(body)
	var id json.RawMessage
	if msg.kind == "request" {
		id = json.RawMessage(msg.key)
	}
	if !h.authorized(w, r, id) {
		return
	}
	front.ServeHTTP(w, r)
}

// before runs the extension's hook on a message the front has found the
// session of (so a request of an unknown session is answered 404 first);
// false when the hook answered it.
func (f *Front) before(w http.ResponseWriter, r *http.Request, msg message) bool {
	if f.ext == nil || f.ext.Before == nil {
		return true
	}
	var id json.RawMessage
	if msg.kind == "request" {
		id = json.RawMessage(msg.key)
	}
	if rf := f.ext.Before(Message{HTTP: r, Kind: msg.kind, Method: msg.method, ID: id}); rf != nil {
		rf.Write(w, id)
		return false
	}
	return true
}

func (h *Handler) authorized(w http.ResponseWriter, r *http.Request, id json.RawMessage) bool {
	if h.ext.Auth == nil {
		return true
	}
	if rf := h.ext.Auth(r); rf != nil {
		if rf.Challenge && h.ext.Discovery {
			w.Header().Set("WWW-Authenticate", h.fronts[0].challengeHeader(r, "invalid_token"))
		}
		rf.Write(w, id)
		return false
	}
	return true
}

// The hooks the core and the fronts read; each is a no-op without an
// extension.

// speaks reports whether the server speaks revision v.
func (e *Extension) speaks(v string) bool {
	return e == nil || e.Revisions == nil || slices.Contains(e.Revisions, v)
}

// handshake is the revisions spoken with initialize, oldest first.
func (e *Extension) handshake() []string {
	if e == nil || e.Revisions == nil {
		return versions()
	}
	var vs []string
	for _, v := range versions() {
		if slices.Contains(e.Revisions, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// info is the serverInfo.
func (e *Extension) info() obj {
	if e == nil || e.Name == "" {
		return obj{"name": "wirecheck-reference", "version": "1.0.0"}
	}
	v := e.Version
	if v == "" {
		v = "1.0.0"
	}
	return obj{"name": e.Name, "version": v}
}

func (e *Extension) ownOnly() bool { return e != nil && e.OwnOnly }

// has reports whether the server has anything of a capability the
// extension may leave empty (resources, prompts, completions).
func (e *Extension) has(c string) bool {
	if !e.ownOnly() {
		return true
	}
	switch c {
	case "resources":
		return len(e.Resources) > 0 || len(e.Templates) > 0
	case "prompts", "completions":
		return len(e.Prompts) > 0
	}
	return true
}

// hidden reports whether method belongs to a capability the extension
// left empty.
func (e *Extension) hidden(method string) bool {
	for _, c := range []string{"resources", "prompts", "completions"} {
		prefix := c + "/"
		if c == "completions" {
			prefix = "completion/"
		}
		if strings.HasPrefix(method, prefix) && !e.has(c) {
			return true
		}
	}
	return false
}

// call is the Call of a request in session s.
func (s *server) call(p, args obj, uri string) Call {
	return Call{Params: p, Args: args, URI: uri, Revision: s.ver(), Notify: func(method string, params map[string]any) { s.notify(method, params) }}
}

// extTools are the extension's tools as the core runs them.
func (s *server) extTools() []tool {
	if s.ext == nil {
		return nil
	}
	var ts []tool
	for _, t := range s.ext.Tools {
		ts = append(ts, tool{def: t.Def, ext: t.Run})
	}
	return ts
}

// extRead answers a read of an extension's resource; false when none
// serves uri.
func (s *server) extRead(id any, p obj, uri string) bool {
	if s.ext == nil {
		return false
	}
	for _, r := range s.ext.Resources {
		if (r.Match != nil && r.Match(uri)) || (r.Match == nil && r.Def["uri"] == uri) {
			contents, e := r.Read(s.call(p, nil, uri))
			if e != nil {
				s.failWith(id, &rpcError{e.Code, e.Message, e.Data})
				return true
			}
			s.result(id, s.cacheable(obj{"contents": contents}))
			return true
		}
	}
	return false
}

// extPrompt answers prompts/get of an extension's prompt; false when it
// has none of that name.
func (s *server) extPrompt(id any, p obj, name string, args obj) bool {
	if s.ext == nil {
		return false
	}
	for _, pr := range s.ext.Prompts {
		if pr.Def["name"] == name {
			r, e := pr.Get(s.call(p, args, ""))
			if e != nil {
				s.failWith(id, &rpcError{e.Code, e.Message, e.Data})
				return true
			}
			s.result(id, r)
			return true
		}
	}
	return false
}

// extResources, extPrompts and extTemplates are the listed definitions
// of the extension's resources (those with a Def), prompts and templates.
func (s *server) extResources() []any {
	return listed(s.ext, func(e *Extension) []Resource { return e.Resources }, func(r Resource) map[string]any { return r.Def })
}

func (s *server) extPrompts() []any {
	return listed(s.ext, func(e *Extension) []Prompt { return e.Prompts }, func(p Prompt) map[string]any { return p.Def })
}

func (s *server) extTemplates() []any {
	return listed(s.ext, func(e *Extension) []map[string]any { return e.Templates }, func(t map[string]any) map[string]any { return t })
}

func listed[T any](e *Extension, items func(*Extension) []T, def func(T) map[string]any) []any {
	if e == nil {
		return nil
	}
	var out []any
	for _, it := range items(e) {
		if d := def(it); d != nil {
			out = append(out, d)
		}
	}
	return out
}
