package transport

import (
	"fmt"
	"sync"
	"time"
)

// connLinger is how long a client's connection may outlive its process
// before it is closed: what was in flight when it exited is still read.
const connLinger = time.Second

// Serving is a client under test as the engine sees a server: its
// process (stderr, exit status, the process group Close ends) and the
// connection it made to wirecheck playing its server (the messages). So
// the peer, the session and the runner serve the client role unchanged:
// wirecheck's requests (a ping, sampling) are correlated as a server's
// answers are, and the client's requests go to the handler and the
// scenario. CloseInput ends the connection; Close ends the process, the
// connection and the listener.
func Serving(proc Transport, conn Conn, l Listener) Transport {
	s := &serving{proc: proc, conn: conn, l: l}
	go func() {
		select {
		case <-conn.Done():
		case <-proc.Exited():
			// Only now is the client known to be done: what it owed
			// its connection at the end is judged (HTTP: a session
			// ended with DELETE), while its scenario still runs.
			if f, ok := conn.(Finisher); ok {
				// Finish has taken in what the client sent: no need
				// to linger for it.
				f.Finish()
				_ = conn.Close()
				return
			}
			select {
			case <-conn.Done():
			case <-time.After(connLinger):
				_ = conn.Close()
			}
		}
	}()
	if _, ok := conn.(Sinker); ok {
		return sinkingServing{s}
	}
	return s
}

// Finisher is a Conn that judges, when its client has exited, what the
// client owed it before going. Finish first takes in what the client
// sent before it exited.
type Finisher interface {
	Finish()
}

// Conn is the client's connection, for a scenario that asks what its
// transport can do beyond messages (HTTP: settings, a stream to break).
func (s *serving) Conn() Conn { return s.conn }

// sinkingServing is a serving whose connection takes a sink (Sinker);
// one whose connection does not is no Sinker, so the peer reads Recv.
type sinkingServing struct{ *serving }

func (s sinkingServing) SetSink(k Sink) { s.conn.(Sinker).SetSink(k) }

type serving struct {
	proc Transport
	conn Conn
	l    Listener
	once sync.Once
	err  error
}

func (s *serving) Send(msg []byte) error   { return s.conn.Send(msg) }
func (s *serving) WriteRaw(b []byte) error { return s.conn.WriteRaw(b) }
func (s *serving) Recv() <-chan Frame      { return s.conn.Recv() }
func (s *serving) Stderr() <-chan Frame    { return s.proc.Stderr() }
func (s *serving) Exited() <-chan struct{} { return s.proc.Exited() }
func (s *serving) ExitStatus() ExitStatus  { return s.proc.ExitStatus() }

// CloseInput ends what the client reads from its server: on stdio the
// socket's write half (its server's stdout reaches EOF, and what it
// still sends is read), elsewhere the connection.
func (s *serving) CloseInput() error {
	if h, ok := s.conn.(interface{ CloseWrite() error }); ok {
		return h.CloseWrite()
	}
	return s.conn.Close()
}

func (s *serving) Overflowed() bool {
	if o, ok := s.conn.(interface{ Overflowed() bool }); ok && o.Overflowed() {
		return true
	}
	return false
}

// SetHooks hands the session's hooks to a connection that judges what
// it sees below the messages (an HTTP transport's headers): its
// observations go to the peer as a server-role transport's do.
func (s *serving) SetHooks(h Hooks) {
	if hk, ok := s.conn.(Hooked); ok {
		hk.SetHooks(h)
	}
}

func (s *serving) Close() error {
	s.once.Do(func() {
		// The connection first: a client wirecheck ends owed its
		// connection nothing more (HTTP: no DELETE), and its exit, which
		// follows, must not be judged as its own.
		_ = s.conn.Close()
		s.err = s.proc.Close()
		_ = s.l.Close()
	})
	return s.err
}

// Disturbances are the connection's (transport.Disturber), none when it
// has none.
func (s *serving) Disturbances() []string {
	if d, ok := s.conn.(Disturber); ok {
		return d.Disturbances()
	}
	return nil
}

// Disturb has the connection do one of its Disturbances.
func (s *serving) Disturb(name string) (string, error) {
	if d, ok := s.conn.(Disturber); ok {
		return d.Disturb(name)
	}
	return "", fmt.Errorf("this connection has no disturbance %q", name)
}

// Unwrap is the client's process, for what asks it (its pid).
func (s *serving) Unwrap() Transport { return s.proc }
