// Package pipe runs a reference server in-process on pipes, for the tests
// of the reference servers: what they write on stdout arrives line by line,
// their stderr is kept, their exit code is reported.
package pipe

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// Server is one reference server running on pipes.
type Server struct {
	// In is the server's stdin; closing it is end of input.
	In *io.PipeWriter
	// Lines carries each stdout line, newline included; it is closed when
	// stdout ends.
	Lines chan []byte
	// Exit receives the exit code; Done is closed after it.
	Exit   chan int
	Done   chan struct{}
	Stderr *Buffer
}

// Start runs serve (a reference server's Serve) on fresh pipes.
func Start(serve func(in io.Reader, out, log io.Writer) int) *Server {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &Server{In: inW, Lines: make(chan []byte, 256), Exit: make(chan int, 1), Done: make(chan struct{}), Stderr: &Buffer{}}
	go func() {
		code := serve(inR, outW, s.Stderr)
		outW.Close()
		inR.Close()
		s.Exit <- code
		close(s.Done)
	}()
	go func() {
		defer close(s.Lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.Lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// Buffer is a server's stderr, read by a test while the server writes.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
