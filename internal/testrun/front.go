package testrun

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/wirecheck/wirecheck/internal/refserver"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/target"
)

// Hook sees every request before the reference server does. It returns
// the writer the server answers through (w, or one wrapping it), or nil
// when it answered the request itself.
type Hook func(w http.ResponseWriter, r *http.Request) http.ResponseWriter

// Front serves the MCP reference server over Streamable HTTP in the test
// process, each request through hook first (nil: none), for tests that
// make the server misbehave in ways no planted fault does: delay a
// stream, drop an answer, refuse a request. It returns the server as a
// running target (`--url` alone) and the function that stops it.
func Front(o refserver.Options, hook Hook) (target.Target, func()) {
	f := refmcp.NewFront(o, false)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hook != nil {
			if w = hook(w, r); w == nil {
				return
			}
		}
		f.ServeHTTP(w, r)
	}))
	return target.Target{URL: ts.URL + "/mcp", Transport: "http"}, func() {
		f.Close()
		ts.CloseClientConnections()
		ts.Close()
	}
}

// Body reads a request's body and puts it back, for a hook that decides
// by what a POST carries.
func Body(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

// NotInitialized answers as the TypeScript SDK's servers answer a request
// outside a session that is not initialize: 400 and a JSON-RPC error with
// id null. It returns nil, the Hook's "answered".
func NotInitialized(w http.ResponseWriter) http.ResponseWriter {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`))
	return nil
}
