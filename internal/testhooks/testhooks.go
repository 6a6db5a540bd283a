// Package testhooks records what a transport reports through its
// transport.Hooks, for tests: the checks it judged and the notes it
// wrote, safe to read while the transport still reports. The transports'
// test suites share it so each reads its checks the same way.
package testhooks

import (
	"slices"
	"sync"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Outcome is one Hooks.Check call.
type Outcome struct {
	Check    string
	Verdict  verdict.Verdict
	Msg      string
	Expected string
	Actual   string
}

// Recorder collects a transport's Hooks calls; its zero value is ready.
type Recorder struct {
	mu    sync.Mutex
	got   []Outcome
	notes []string
}

// Hooks are the hooks to hand the transport: every call lands in r.
func (r *Recorder) Hooks() transport.Hooks {
	return transport.Hooks{
		Check: func(check string, v verdict.Verdict, msg, expected, actual string) {
			r.mu.Lock()
			r.got = append(r.got, Outcome{check, v, msg, expected, actual})
			r.mu.Unlock()
		},
		Note: func(text string) int {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.notes = append(r.notes, text)
			return len(r.notes)
		},
	}
}

// Outcomes are the checks reported so far, in order.
func (r *Recorder) Outcomes() []Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// Notes are the notes written so far, in order.
func (r *Recorder) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.notes)
}

// Verdicts are the verdicts check got so far, in order.
func (r *Recorder) Verdicts(check string) []verdict.Verdict {
	var out []verdict.Verdict
	for _, o := range r.Outcomes() {
		if o.Check == check {
			out = append(out, o.Verdict)
		}
	}
	return out
}

// Failed says whether check failed at least once.
func (r *Recorder) Failed(check string) bool {
	return slices.Contains(r.Verdicts(check), verdict.Fail)
}

// PassedOnly says whether check was judged and never failed.
func (r *Recorder) PassedOnly(check string) bool {
	v := r.Verdicts(check)
	return len(v) > 0 && !slices.Contains(v, verdict.Fail)
}

// Failure is check's first failure, its message and evidence ("" when it
// never failed), for a test's failure message.
func (r *Recorder) Failure(check string) string {
	for _, o := range r.Outcomes() {
		if o.Check == check && o.Verdict == verdict.Fail {
			return o.Msg + " | expected: " + o.Expected + " | actual: " + o.Actual
		}
	}
	return ""
}
