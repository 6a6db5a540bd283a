//go:build unix

package transport

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// killWait bounds how long Close waits for the server to be reaped after
// SIGKILL. Only a process stuck in uninterruptible sleep outlasts it; Close
// then reports that rather than hang.
const killWait = 2 * time.Second

// sendCopyMax is the largest message Send copies to append its '\n', so the
// pair goes out in one write; bigger ones are written in two rather than
// copied (and a scratch buffer that size kept).
const sendCopyMax = 64 << 10

// Launch starts opts.Command as a server speaking NDJSON on stdio.
//
// Command[0] is looked up in wirecheck's own PATH. The server runs in a
// process group of its own, so Close can end it along with anything it
// spawned. Any failure to start wraps ErrStart.
//
// Besides Transport, the result has StderrOverflowed() bool: stderr floods
// drop lines too, but are not a protocol matter, so Overflowed ignores them.
func Launch(opts Options) (Transport, error) {
	opts = opts.withDefaults()
	if len(opts.Command) == 0 || opts.Command[0] == "" {
		return nil, fmt.Errorf("%w: no command given", ErrStart)
	}
	name := opts.Command[0]
	// exec would report a missing directory as a failure of the command
	// itself ("fork/exec X: no such file or directory"), which misleads.
	if opts.Dir != "" {
		fi, err := os.Stat(opts.Dir)
		if err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%w %q: working directory %q: %w", ErrStart, name, opts.Dir, err)
		}
	}

	cmd := exec.Command(name, opts.Command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// Our own pipes rather than StdoutPipe: exec then starts no copying
	// goroutines and Wait returns when the server exits, even if a child of
	// it still holds the pipes; and our ends stay non-blocking, which gives
	// writes deadlines and lets Close unblock a pending read.
	var files []*os.File // every end, for cleanup on failure
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
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("%w %q: %w", ErrStart, name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("%w %q: %w", ErrStart, name, startCause(err))
	}
	// The child has its copies; ours of its ends would keep stdout open
	// after it exits and hide the EOF.
	closeAll([]*os.File{inR, outW, errW})

	t := started(opts, inW, outR, errR)
	t.cmd, t.pgid = cmd, cmd.Process.Pid
	groups.Store(t.pgid, struct{}{})
	go t.wait()
	return t, nil
}

// started is the transport over a server's three pipes (our ends), its
// readers and deliverers running; the caller watches for the exit.
func started(opts Options, stdin, stdout, stderr *os.File) *stdio {
	t := &stdio{
		opts:   opts,
		stdin:  stdin,
		stdout: stdout,
		stderr: stderr,
		outQ:   newQueue(opts.MaxBuffered, opts.Pool),
		errQ:   newQueue(opts.MaxBuffered, opts.Pool),
		exited: make(chan struct{}),
		stop:   make(chan struct{}),
	}
	t.workers.Add(4)
	go t.read(stdout, t.outQ, opts.MaxFrame)
	go t.read(stderr, t.errQ, opts.MaxStderrLine)
	go t.deliver(t.outQ)
	go t.deliver(t.errQ)
	return t
}

// startCause strips the command name that exec's errors repeat, since ours
// already names it.
func startCause(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Op == "fork/exec" {
		return pe.Err
	}
	return err
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

type stdio struct {
	opts   Options
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	outQ   *queue
	errQ   *queue

	writeMu sync.Mutex
	wbuf    []byte

	inOnce   sync.Once
	inErr    error
	inClosed atomic.Bool

	exited    chan struct{}
	statusMu  sync.Mutex
	status    ExitStatus
	signalled atomic.Bool

	stop      chan struct{} // closed by Close: deliverers give up
	workers   sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

func (t *stdio) read(f *os.File, q *queue, maxLine int) {
	defer t.workers.Done()
	defer q.finish()
	// An error (Close closing f under us, or a failed read) ends the stream
	// just as EOF does; there is no one to report it to but the frames.
	_ = splitLines(f, maxLine, readBufSize, &charge{b: frames, abort: t.stop}, func(line []byte, oversize, partial bool) {
		if line == nil {
			line = []byte{} // a line is never an End frame
		}
		fr := Frame{Oversize: oversize, Partial: partial}
		if oversize {
			line, fr.Limit = line[:min(len(line), OversizeEvidence)], maxLine
		}
		q.offerFrame(line, fr)
	})
	_ = f.Close()
}

func (t *stdio) deliver(q *queue) {
	defer t.workers.Done()
	q.deliver(t.stop)
}

func (t *stdio) wait() {
	_ = t.cmd.Wait() // the outcome is in ProcessState
	st := ExitStatus{Code: -1}
	if ps := t.cmd.ProcessState; ps != nil {
		st.Code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st.Signal = ws.Signal().String()
		}
	}
	st.KilledByUs = t.signalled.Load()
	t.statusMu.Lock()
	t.status = st
	t.statusMu.Unlock()
	close(t.exited)
}

func (t *stdio) Send(msg []byte) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if len(msg) < sendCopyMax {
		t.wbuf = append(append(t.wbuf[:0], msg...), '\n')
		return t.write(t.wbuf)
	}
	if err := t.write(msg); err != nil {
		return err
	}
	return t.write([]byte{'\n'})
}

func (t *stdio) WriteRaw(b []byte) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	return t.write(b)
}

// write gives up after WriteTimeout without progress, not after a fixed
// total: a big message to a server that reads steadily must get through.
func (t *stdio) write(b []byte) error {
	for len(b) > 0 {
		if err := t.stdin.SetWriteDeadline(time.Now().Add(t.opts.WriteTimeout)); err != nil {
			// On a closed file this fails with an unexported poll error,
			// where Write would have said os.ErrClosed.
			if t.inClosed.Load() {
				err = os.ErrClosed
			}
			return fmt.Errorf("write to server: input already closed: %w", err)
		}
		n, err := t.stdin.Write(b)
		b = b[n:]
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && n > 0:
			// Progress was made; give the server another full period.
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("%w: no byte accepted for %v, %d bytes unsent", ErrWriteTimeout, t.opts.WriteTimeout, len(b))
		case errors.Is(err, syscall.EPIPE):
			return fmt.Errorf("write to server: its stdin is closed (exited?): %w", err)
		case errors.Is(err, os.ErrClosed):
			return fmt.Errorf("write to server: input already closed: %w", err)
		default:
			return fmt.Errorf("write to server: %w", err)
		}
	}
	return nil
}

// AwaitRead polls the pipe rather than sleeping a fixed pause: a blocked
// server reads what it is sent within microseconds, and a split send
// (the only caller) waits on this once per fuzzed split request. Where the
// pipe cannot tell, it waits the whole limit, as a pause would.
func (t *stdio) AwaitRead(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	step := 5 * time.Microsecond
	for {
		n, ok := unread(t.stdin)
		if ok && n == 0 {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		if !ok {
			time.Sleep(left)
			return false
		}
		time.Sleep(min(step, left))
		step = min(2*step, 100*time.Microsecond)
	}
}

// PID is the launched process's id (0 in wirecheck's own process).
func (t *stdio) PID() int {
	if t.cmd == nil {
		return 0
	}
	return t.pgid
}

func (t *stdio) Recv() <-chan Frame   { return t.outQ.out }
func (t *stdio) SetSink(s Sink)       { t.outQ.setSink(s) }
func (t *stdio) Stderr() <-chan Frame { return t.errQ.out }

// CloseInput does not wait for a Send in progress: closing the pipe makes
// that Send fail at once rather than after WriteTimeout.
func (t *stdio) CloseInput() error {
	t.inOnce.Do(func() {
		t.inClosed.Store(true)
		t.inErr = t.stdin.Close()
	})
	return t.inErr
}

func (t *stdio) Exited() <-chan struct{} { return t.exited }

func (t *stdio) ExitStatus() ExitStatus {
	t.statusMu.Lock()
	defer t.statusMu.Unlock()
	return t.status
}

func (t *stdio) Overflowed() bool { return t.outQ.overflow.Load() }

// StderrOverflowed reports whether stderr lines were dropped because nobody
// read Stderr fast enough.
func (t *stdio) StderrOverflowed() bool { return t.errQ.overflow.Load() }

// Close drops frames not yet received, so a caller that wants a dead
// server's last words drains Recv and Stderr after Exited and before Close.
// A second call waits for the first and returns its result.
func (t *stdio) Close() error {
	t.closeOnce.Do(func() { t.closeErr = t.shutdown() })
	return t.closeErr
}

func (t *stdio) shutdown() error {
	if t.cmd == nil {
		return t.shutdownInProcess()
	}
	select {
	case <-t.exited:
	default:
		t.signalled.Store(true)
	}
	// The leader may be gone while its children live on in the group, so
	// the group is signalled whether or not the leader has exited.
	_ = syscall.Kill(-t.pgid, syscall.SIGTERM)
	_ = t.CloseInput()

	var err error
	if !t.awaitGroup(t.opts.Grace) {
		_ = syscall.Kill(-t.pgid, syscall.SIGKILL)
		select {
		case <-t.exited:
		case <-time.After(killWait):
			err = fmt.Errorf("server process %d still not reaped %v after SIGKILL", t.pgid, killWait)
		}
	}

	// A process that left the group (setsid) can hold the pipes open for
	// ever; closing our ends is what guarantees the readers return.
	_ = t.stdout.Close()
	_ = t.stderr.Close()
	close(t.stop)
	t.workers.Wait()
	groups.Delete(t.pgid)
	return err
}

// awaitGroup waits up to d for the leader to exit and the rest of its group
// to be gone, and reports whether both happened.
func (t *stdio) awaitGroup(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	exited := t.exited
	var poll <-chan time.Time // only once the leader has exited
	interval := time.Millisecond
	for {
		select {
		case <-exited:
			exited = nil
		case <-poll:
		case <-deadline.C:
			return false
		}
		if exited == nil {
			if !groupAlive(t.pgid) {
				return true
			}
			poll = time.After(interval)
			interval = min(2*interval, 20*time.Millisecond)
		}
	}
}

// groupAlive reports whether any process of group pgid is still running.
// kill(-pgid, 0) alone is not enough: it also finds zombies, and orphaned
// children of the server are zombies until init reaps them, which in some
// containers takes seconds.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	live, err := liveMembers(pgid)
	if err != nil {
		return true // no /proc to tell: assume the worst
	}
	return len(live) > 0
}

// liveMembers lists the processes of group pgid that are not zombies.
func liveMembers(pgid int) ([]int, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var live []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// "pid (comm) state ppid pgrp ..."; comm may hold spaces and
		// parentheses, so fields are counted from its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid && string(f[0]) != "Z" {
			live = append(live, pid)
		}
	}
	return live, nil
}
