// Package interrupt turns Ctrl-C and SIGTERM (a CI job's timeout) into the
// end of a run: the first signal cancels the run's context, so wirecheck
// stops judging, ends its servers and writes the reports it has; a second
// one, from a user who will not wait for that, exits at once.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Signals are the signals a run listens for.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// Watch is the signal state of one run.
type Watch struct {
	mu  sync.Mutex
	sig os.Signal
	at  time.Time

	cancel context.CancelFunc
	stop   func()
	done   chan struct{}
	once   sync.Once
}

// Now is how a second signal ends the process: kill what must not outlive
// it (the servers' process groups), then exit with code.
type Now func(code int)

// Notify returns a context the first SIGINT or SIGTERM cancels, and the
// Watch that remembers which signal it was and when. A second signal
// calls now with the exit code of that second signal. Stop ends the
// listening; a signal after it is the default action again.
func Notify(parent context.Context, now Now) (context.Context, *Watch) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, Signals...)
	ctx, w := watch(parent, ch, now)
	w.stop = func() { signal.Stop(ch) }
	return ctx, w
}

// watch reads signals from ch (Notify's channel, or a test's).
func watch(parent context.Context, ch <-chan os.Signal, now Now) (context.Context, *Watch) {
	ctx, cancel := context.WithCancel(parent)
	w := &Watch{cancel: cancel, stop: func() {}, done: make(chan struct{})}
	go func() {
		first := true
		for {
			select {
			case s := <-ch:
				if first {
					first = false
					w.mu.Lock()
					w.sig, w.at = s, time.Now()
					w.mu.Unlock()
					cancel()
					continue
				}
				now(Code(s))
			case <-w.done:
				return
			}
		}
	}()
	return ctx, w
}

// Stop stops listening and releases the context.
func (w *Watch) Stop() {
	w.once.Do(func() {
		w.stop()
		close(w.done)
		w.cancel()
	})
}

// Signal is the name of the signal that interrupted the run (SIGINT,
// SIGTERM) and when it came; "" when none did.
func (w *Watch) Signal() (string, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sig == nil {
		return "", time.Time{}
	}
	return Name(w.sig), w.at
}

// Name is a signal's conventional name.
func Name(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// Code is the exit code of a process a signal ended, as a shell reports
// it: 128 + its number (130 for SIGINT, 143 for SIGTERM).
func Code(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}
