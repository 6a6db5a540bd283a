// Package transport carries messages between wirecheck and a server under
// test. Framing belongs here: NDJSON lines on stdio; the transports a
// protocol module registers (Register, Kind) frame their own, behind the
// same interface, without touching the peer.
package transport

import (
	"errors"
	"strconv"
	"time"
)

// Frame is one message read from the server, or the reason none could be.
type Frame struct {
	// Raw holds the frame's bytes without framing (no trailing newline).
	// For a frame over the cap it holds its first OversizeEvidence bytes
	// at most: evidence, not the frame.
	Raw []byte
	// At is when the frame was complete.
	At time.Time
	// Oversize is set when the line exceeded the line cap; Raw is then a
	// prefix, and the rest of the line was discarded without buffering.
	Oversize bool
	// Limit is, with Oversize, the cap the frame went over (MaxFrame):
	// wirecheck's bound, which the user can raise, not the protocol's.
	Limit int
	// Partial is set when the stream ended in the middle of a line (no
	// terminating newline before EOF).
	Partial bool
	// HTTP is how the frame came over HTTP; nil on stdio.
	HTTP *Via
}

// Transport is one connection to one server instance.
//
// Recv's channel is closed when the server's output ends (EOF, process exit,
// Close). Implementations never block the reader on a slow consumer forever:
// when the consumer does not drain, buffered bytes are capped and the excess
// is reported through Overflow.
type Transport interface {
	// Send writes one message, adding the framing (a '\n' on stdio).
	Send(msg []byte) error
	// WriteRaw writes bytes as they are, with no framing, for malformed input.
	// It only reads b, which may be a string's bytes (scenario send_raw).
	WriteRaw(b []byte) error
	// Recv delivers frames in arrival order.
	Recv() <-chan Frame
	// Stderr delivers the server's stderr, line by line (each line capped
	// at Options.MaxStderrLine, the buffered lines like frames).
	// It may be nil for transports without one.
	Stderr() <-chan Frame
	// CloseInput closes the server's stdin (or ends the session).
	CloseInput() error
	// Exited is closed when the server process has exited.
	Exited() <-chan struct{}
	// ExitStatus describes how the process ended ("exit 0", "signal: killed");
	// valid once Exited is closed.
	ExitStatus() ExitStatus
	// Close ends the server: its whole process group gets SIGTERM, then
	// SIGKILL after the grace period. It waits for the readers to finish and
	// is safe to call more than once.
	Close() error
	// Overflowed reports whether the server wrote more than the buffer caps
	// allowed while nobody was reading (a flood); frames were dropped.
	Overflowed() bool
}

// Sink takes frames in place of Recv's channel (see Sinker). inline is set
// when it runs on the goroutine that reads the server's output, which reads
// nothing more until it returns: it may then refuse a frame (return false)
// whose handling could block, one it must answer with a write, and the
// frame is queued and handed to it again from another goroutine, with
// inline unset, where it must take it.
type Sink func(f Frame, inline bool) bool

// Sinker is a Transport that can hand its frames to a function rather than
// send them on Recv's channel. A frame that arrives while the consumer is
// idle is then judged on the goroutine that read it: one goroutine switch
// less per round trip than through a channel (BenchmarkRoundTrip, and the
// fuzzer's rate, which waits on every answer). SetSink is called once,
// before anything is taken from Recv; Recv still closes when the output
// ends, after the sink's last call has returned.
type Sinker interface {
	SetSink(Sink)
}

// Disturber is a Transport that can misbehave below the messages on
// purpose, as a hostile peer does (a fuzz campaign draws from it):
// Disturbances names what it can do (none: it cannot), Disturb does one
// and says what it did, "" when there was nothing to do it to. Each is a
// name a reproducer records, so replay does the same.
type Disturber interface {
	Disturbances() []string
	Disturb(name string) (string, error)
}

// ReadAwaiter is a Transport that can tell when the server has read every
// byte written to it so far. AwaitRead waits for that, at most limit, and
// reports whether it happened.
type ReadAwaiter interface {
	AwaitRead(limit time.Duration) bool
}

// Messenger is a Transport whose writes are whole messages (one HTTP
// body each) rather than bytes of a stream: a line written in two parts
// would be two broken messages, and the one meant never sent.
type Messenger interface {
	WholeMessages() bool
}

// ExitStatus is how a server process ended.
type ExitStatus struct {
	Code   int    // exit code, or -1 when killed by a signal
	Signal string // the signal's name when killed by one
	// KilledByUs is set when the process ended because Close signalled it.
	KilledByUs bool
}

func (e ExitStatus) String() string {
	if e.Signal != "" {
		return "signal: " + e.Signal
	}
	return "exit " + strconv.Itoa(e.Code)
}

// ErrStart wraps any failure to start the server (command not found, not
// executable, bad working directory). The CLI maps it to exit code 3.
var ErrStart = errors.New("cannot start server")

// Options configures a stdio launch. Zero values take the documented defaults.
type Options struct {
	Command []string // argv; Command[0] is looked up in PATH
	Dir     string   // working directory; empty means wirecheck's own
	Env     []string // KEY=VALUE added to wirecheck's environment
	// MaxFrame caps one stdout line (--max-frame). Default
	// DefaultMaxFrame.
	MaxFrame int
	// MaxStderrLine caps one stderr line. Default 64 KiB: a stderr line is
	// evidence for a reader, and nothing downstream keeps more of it than
	// the transcript's 16 KiB per line, so holding 4 MiB of it per server
	// would only cost memory.
	MaxStderrLine int
	// MaxBuffered caps the bytes of frames read but not yet consumed, per
	// stream (stdout, stderr). Default 16 MiB; one frame is taken
	// whatever its size, so a frame up to MaxFrame always gets through.
	MaxBuffered int
	// Pool caps the frames buffered by all the transports that share it
	// (the lanes of a run each launch their own servers). Nil means the
	// process-wide pool of DefaultPool bytes.
	Pool *Pool
	// Grace is how long Close waits after SIGTERM before SIGKILL. Default 500ms.
	Grace time.Duration
	// WriteTimeout bounds how long one Send or WriteRaw may go without the
	// server accepting a single byte (it stopped reading its stdin and the
	// pipe is full). The clock restarts whenever bytes get through, so a slow
	// but steady reader is not cut off. Default 5s.
	WriteTimeout time.Duration
}

// Defaults for Options.
const (
	// DefaultMaxFrame is the largest frame judged by default. Protocols
	// bound no message, and real ones are big: a resources/read of a few MB of
	// base64 blob, a tool's page of results. 64 MiB is over ten times the
	// largest seen from a real server (4.4 MB), yet only what one frame
	// may cost while it is read; a flood of smaller frames is bounded by
	// MaxBuffered and the Pool, not by this.
	DefaultMaxFrame      = 64 << 20
	DefaultMaxStderrLine = 64 << 10
	DefaultMaxBuffered   = 16 << 20
	// DefaultPool is what the transports of one wirecheck process may
	// buffer together: eight lanes each flooded would otherwise hold
	// 8 × 2 × MaxBuffered.
	DefaultPool         = 16 << 20
	DefaultGrace        = 500 * time.Millisecond
	DefaultWriteTimeout = 5 * time.Second
)

// OversizeEvidence is how much of a frame over the cap is kept: what a
// report can show of it (the transcript keeps 16 KiB of a line), not the
// MaxFrame bytes read to find it too long, which lanes reading a hostile
// server's gigabyte at once would otherwise hold by the dozen.
const OversizeEvidence = 64 << 10

// ErrWriteTimeout wraps a write that made no progress for Options.WriteTimeout:
// the server is not reading its input. The input stream may then end in the
// middle of a message, so the connection is only good for closing.
var ErrWriteTimeout = errors.New("server is not reading its input")

func (o Options) withDefaults() Options {
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	if o.MaxStderrLine <= 0 {
		o.MaxStderrLine = DefaultMaxStderrLine
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = DefaultMaxBuffered
	}
	if o.Pool == nil {
		o.Pool = sharedPool
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	return o
}
