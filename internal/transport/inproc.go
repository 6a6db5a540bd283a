//go:build unix

package transport

import (
	"fmt"
	"io"
	"os"
	"time"
)

// ServeFunc is a server run in wirecheck's own process (a Go test of a
// server's handler, conformance.Options.Serve): it reads the messages
// from in and writes its output to out, as a process would on stdin and
// stdout, and returns when in ends.
type ServeFunc func(in io.Reader, out io.Writer) error

// InProcess runs serve in a goroutine behind real pipes, so every bound
// of a launched server holds for it too (write deadlines, line caps,
// buffer caps). It exits when serve returns: code 0, or 1 with its error
// on stderr (2 for a panic). Close closes its input and its output and
// waits Grace for it to return; a goroutine cannot be killed, so one that
// never returns is left behind (Close says so).
func InProcess(serve ServeFunc, opts Options) (Transport, error) {
	opts = opts.withDefaults()
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("%w in-process server: %w", ErrStart, err)
		}
	}
	t := started(opts, inW, outR, errR)
	go func() {
		st := ExitStatus{}
		func() {
			defer func() {
				if r := recover(); r != nil {
					fmt.Fprintf(errW, "panic: %v\n", r)
					st.Code = 2
				}
			}()
			if err := serve(inR, outW); err != nil {
				fmt.Fprintln(errW, err)
				st.Code = 1
			}
		}()
		// Its ends closed as a process's would be at exit: the readers
		// see EOF, a write to its input fails.
		closeAll([]*os.File{inR, outW, errW})
		st.KilledByUs = t.signalled.Load()
		t.statusMu.Lock()
		t.status = st
		t.statusMu.Unlock()
		close(t.exited)
	}()
	return t, nil
}

// shutdownInProcess is Close for InProcess: closing the input is all a
// goroutine can be asked.
func (t *stdio) shutdownInProcess() error {
	select {
	case <-t.exited:
	default:
		t.signalled.Store(true)
	}
	// Its input ends and its output breaks (a write fails, as SIGPIPE
	// would end a process): what a goroutine cannot ignore short of
	// never reading or writing again.
	_ = t.CloseInput()
	_ = t.stdout.Close()
	_ = t.stderr.Close()
	var err error
	select {
	case <-t.exited:
	case <-time.After(t.opts.Grace):
		err = fmt.Errorf("in-process server still running %v after its input closed and its output broke", t.opts.Grace)
	}
	close(t.stop)
	t.workers.Wait()
	return err
}
