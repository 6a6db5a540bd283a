//go:build unix

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// listenStdio is stdio's client role: a client launches its server as a
// command, so {server} is an executable script that execs wirecheck's
// hidden `connect-back SOCKET`, which relays its stdin and stdout to a
// unix socket this listener accepts on. The client's server process is
// then wirecheck, and its pipes are the Conn.
func listenStdio(o ListenOptions) (Listener, error) {
	if o.Binary == "" {
		return nil, errors.New("stdio listener: no wirecheck executable to connect back with")
	}
	dir, err := os.MkdirTemp("", "wirecheck-client-")
	if err != nil {
		return nil, fmt.Errorf("stdio listener: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("stdio listener: %w", err)
	}
	script := filepath.Join(dir, "server")
	body := "#!/bin/sh\nexec " + shellQuote(o.Binary) + " connect-back " + shellQuote(sock) + "\n"
	if err := writeExecutable(script, []byte(body)); err != nil {
		_ = ln.Close()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("stdio listener: %w", err)
	}
	return &stdioListener{dir: dir, script: script, ln: ln, maxFrame: o.MaxFrame}, nil
}

// writeExecutable writes a file that another process will exec. The
// write is done under syscall.ForkLock: a process forked while the file
// is open for writing holds that descriptor until it execs (close-on-exec
// closes it only then), and exec of a file open for writing anywhere
// fails with ETXTBSY ("text file busy"), which lanes starting clients at
// once under load hit.
func writeExecutable(name string, body []byte) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	return os.WriteFile(name, body, 0o700)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type stdioListener struct {
	dir, script string
	ln          *net.UnixListener
	maxFrame    int
	once        sync.Once
}

func (l *stdioListener) Endpoint() string { return l.script }

func (l *stdioListener) Accept(ctx context.Context) (Conn, error) {
	type res struct {
		c   *net.UnixConn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := l.ln.AcceptUnix()
		ch <- res{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return newSockConn(r.c, l.maxFrame), nil
	case <-ctx.Done():
		// Closing the listener is what ends the AcceptUnix above.
		_ = l.Close()
		if r := <-ch; r.c != nil {
			_ = r.c.Close()
		}
		return nil, ctx.Err()
	}
}

func (l *stdioListener) Close() error {
	var err error
	l.once.Do(func() {
		err = l.ln.Close()
		_ = os.RemoveAll(l.dir)
	})
	return err
}

// sockConn is NDJSON over one accepted socket, bounded as a launched
// server's stdout is (MaxFrame, the buffer caps).
type sockConn struct {
	c        *net.UnixConn
	q        *queue
	done     chan struct{}
	stop     chan struct{}
	writeMu  sync.Mutex
	once     sync.Once
	workers  sync.WaitGroup
	maxFrame int
}

func newSockConn(c *net.UnixConn, maxFrame int) *sockConn {
	o := Options{MaxFrame: maxFrame}.withDefaults()
	s := &sockConn{c: c, q: newQueue(o.MaxBuffered, o.Pool), done: make(chan struct{}), stop: make(chan struct{}), maxFrame: o.MaxFrame}
	s.workers.Add(2)
	go func() {
		defer s.workers.Done()
		defer close(s.done)
		defer s.q.finish()
		_ = splitLines(c, s.maxFrame, readBufSize, &charge{b: frames, abort: s.stop}, func(line []byte, oversize, partial bool) {
			fr := Frame{Oversize: oversize, Partial: partial}
			if oversize {
				line, fr.Limit = line[:min(len(line), OversizeEvidence)], s.maxFrame
			}
			if line == nil {
				line = []byte{}
			}
			s.q.offerFrame(line, fr)
		})
	}()
	go func() {
		defer s.workers.Done()
		s.q.deliver(s.stop)
	}()
	return s
}

func (s *sockConn) Send(msg []byte) error {
	b := make([]byte, 0, len(msg)+1)
	return s.WriteRaw(append(append(b, msg...), '\n'))
}

// WriteRaw gives up after DefaultWriteTimeout without progress, as a
// write to a launched server's stdin does.
func (s *sockConn) WriteRaw(b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for len(b) > 0 {
		_ = s.c.SetWriteDeadline(time.Now().Add(DefaultWriteTimeout))
		n, err := s.c.Write(b)
		b = b[n:]
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && n > 0:
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("%w: no byte accepted for %v, %d bytes unsent", ErrWriteTimeout, DefaultWriteTimeout, len(b))
		default:
			return fmt.Errorf("write to client: %w", err)
		}
	}
	return nil
}

func (s *sockConn) Recv() <-chan Frame    { return s.q.out }
func (s *sockConn) SetSink(k Sink)        { s.q.setSink(k) }
func (s *sockConn) Done() <-chan struct{} { return s.done }
func (s *sockConn) Overflowed() bool      { return s.q.overflow.Load() }

// CloseWrite ends the client's input (its server's stdout reaches EOF)
// while what it still sends is read.
func (s *sockConn) CloseWrite() error { return s.c.CloseWrite() }

func (s *sockConn) Close() error {
	var err error
	s.once.Do(func() {
		err = s.c.Close()
		close(s.stop)
		s.workers.Wait()
	})
	return err
}

// ConnectBack relays in to the unix socket at path and the socket to out,
// for `wirecheck connect-back`: the client's server process. It returns
// when either side ends: the client closed its end (in's EOF; the
// socket's write half is closed and what wirecheck still sends is
// relayed until it closes too, bounded by linger) or wirecheck closed the
// socket.
func ConnectBack(path string, in io.Reader, out io.Writer, linger time.Duration) error {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return err
	}
	defer c.Close()
	down := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, c)
		down <- err
	}()
	up := make(chan error, 1)
	go func() {
		_, err := io.Copy(c, in)
		up <- err
	}()
	select {
	case err := <-down:
		// wirecheck ended the connection: nothing more to relay either way.
		return err
	case <-up:
		_ = c.CloseWrite()
		select {
		case err := <-down:
			return err
		case <-time.After(linger):
			return nil
		}
	}
}

func init() {
	kindsMu.Lock()
	kinds[0].Listen = listenStdio
	kindsMu.Unlock()
}
