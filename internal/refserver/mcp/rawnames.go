package mcp

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
)

// Go's net/http hands a handler header names in canonical case, whatever
// case the client wrote them in; the fault header-names-exact needs them
// as written. So, with that fault only, every connection keeps the bytes
// it read last, and the handler reads its request's head back from them.
// A client writes its next request on a connection only after the
// response to the one before (Go's server reads no pipelined head before
// then), so the last request line in those bytes is the handler's own.

// maxRawHead bounds the bytes a connection keeps: more than a head the
// server accepts (http.DefaultMaxHeaderBytes is 1 MiB, but the heads the
// fault is judged on are a few hundred bytes).
const maxRawHead = 64 << 10

type rawConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *rawConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf = append(c.buf, p[:n]...)
	if len(c.buf) > maxRawHead {
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-maxRawHead:]...)
	}
	c.mu.Unlock()
	return n, err
}

type rawListener struct{ net.Listener }

func (l rawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &rawConn{Conn: c}, nil
}

type rawConnKey struct{}

// RecordHeaderNames makes srv, serving on the listener it returns, keep
// the header names of each request as the client wrote them, for the
// fault header-names-exact.
func RecordHeaderNames(srv *http.Server, ln net.Listener) net.Listener {
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, rawConnKey{}, c)
	}
	return rawListener{ln}
}

// rawNames are the header names of r as written on the wire; nil when
// the server was not set up to record them (a front served without
// RecordHeaderNames looks names up in any case, the fault then inert).
func rawNames(r *http.Request) map[string]bool {
	c, ok := r.Context().Value(rawConnKey{}).(*rawConn)
	if !ok {
		return nil
	}
	names := map[string]bool{}
	c.mu.Lock()
	buf := append([]byte(nil), c.buf...) // Read may trim c.buf in place meanwhile
	c.mu.Unlock()
	line := []byte(r.Method + " " + r.RequestURI + " ")
	i := bytes.LastIndex(buf, line)
	if i < 0 {
		return names
	}
	head, _, _ := bytes.Cut(buf[i:], []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	for _, l := range lines[1:] {
		if name, _, ok := bytes.Cut(l, []byte(":")); ok {
			names[string(bytes.TrimSpace(name))] = true
		}
	}
	return names
}
